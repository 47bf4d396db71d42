package sim

// eventKind says what an event does when it comes due.
type eventKind uint8

const (
	evDeliver     eventKind = iota + 1 // a message reaches its destination
	evDepart                           // a message held behind a pending disk write leaves
	evTimer                            // a node's timer fires
	evPersistDone                      // a node's disk write completes
	evControl                          // a scheduled callback (faults, drivers)
	evLocal                            // a message that arrived while its node was paused, handed over on resume
	evResend                           // a stream's message TCP sends again after a cut (Streams)
)

// event is a 24-byte value struct: the queue stores events inline, so
// scheduling allocates nothing. ref indexes the message slab, timer table or
// control table (for disk completions it is the node's incarnation). Stale
// timer entries are recognised by their slot, not by the event.
type event struct {
	at   Time
	seq  uint64
	ref  int32
	node int16
	kind eventKind
}

func (e *event) before(o *event) bool { return e.beforeKey(o.at, o.seq) }

// beforeKey reports whether e comes before an event keyed (at, seq).
func (e *event) beforeKey(at Time, seq uint64) bool {
	return e.at < at || (e.at == at && e.seq < seq)
}

// queue is the event queue, ordered by (at, seq). Keys are unique, so any
// correct priority queue pops the same sequence; the representation is only
// a speed choice. Small queues — the common case: a few timers and the
// messages in flight — are an array sorted latest-first, so pop takes the last
// element and a push shifts the few entries due before it (new events are
// mostly near-future deliveries). Past sortedMax entries the array becomes a
// 4-ary min-heap, and back again below sortedMin (hysteresis avoids flapping).
type queue struct {
	ev   []event
	heap bool
}

const (
	sortedMax = 128
	sortedMin = 48
)

func (q *queue) len() int { return len(q.ev) }

// peekTime returns the earliest event's time, or Never.
func (q *queue) peekTime() Time {
	n := len(q.ev)
	switch {
	case n == 0:
		return Never
	case q.heap:
		return q.ev[0].at
	}
	return q.ev[n-1].at
}

// push queues e. The hot path uses slot instead, which writes the fields
// in place.
func (q *queue) push(e event) { *q.slot(e.at, e.seq) = e }

// slot makes room for an event with key (at, seq) at its place in the
// order and returns it; the caller fills in every field, the key included.
// Filling fields in place rather than copying an event built on the stack
// matters: a 16-byte copy of fields just stored one by one cannot be
// forwarded from the store buffer and stalls (a tenth of the run).
func (q *queue) slot(at Time, seq uint64) *event {
	if q.heap {
		return q.heapSlot(at, seq)
	}
	n := len(q.ev)
	if n >= sortedMax {
		q.toHeap()
		return q.heapSlot(at, seq)
	}
	ev := q.grow()
	i := len(ev) - 1 // == n; written so that the compiler sees i < len(ev) and drops the bounds checks
	for ; i > 0 && ev[i-1].beforeKey(at, seq); i-- {
		ev[i] = ev[i-1]
	}
	return &ev[i]
}

func (q *queue) pop(top *event) {
	if q.heap {
		q.heapPop(top)
		if len(q.ev) < sortedMin {
			q.toSorted()
		}
		return
	}
	n := len(q.ev) - 1
	*top = q.ev[n]
	q.ev = q.ev[:n]
}

// toHeap turns the latest-first array into a min-heap: reversed, it is
// sorted earliest-first, which is a valid heap.
func (q *queue) toHeap() {
	ev := q.ev
	for i, j := 0, len(ev)-1; i < j; i, j = i+1, j-1 {
		ev[i], ev[j] = ev[j], ev[i]
	}
	q.heap = true
}

// toSorted turns the heap back into a latest-first array (insertion sort:
// it holds fewer than sortedMin events).
func (q *queue) toSorted() {
	ev := q.ev
	for i := 1; i < len(ev); i++ {
		e := ev[i]
		j := i
		for j > 0 && ev[j-1].before(&e) {
			ev[j] = ev[j-1]
			j--
		}
		ev[j] = e
	}
	q.heap = false
}

// grow lengthens the queue by one entry, its content to be written, and
// returns it.
func (q *queue) grow() []event {
	if n := len(q.ev); n < cap(q.ev) {
		q.ev = q.ev[:n+1]
	} else {
		q.ev = append(q.ev, event{})
	}
	return q.ev
}

// heapSlot is slot for the heap: sift up with a hole, moving parents down,
// and return the hole.
func (q *queue) heapSlot(at Time, seq uint64) *event {
	ev := q.grow()
	i := len(ev) - 1
	for i > 0 {
		p := (i - 1) >> 2
		if ev[p].beforeKey(at, seq) { // keys are unique: not before is after
			break
		}
		ev[i] = ev[p]
		i = p
	}
	return &ev[i]
}

func (q *queue) heapPop(top *event) {
	ev := q.ev
	*top = ev[0]
	n := len(ev) - 1
	last := ev[n]
	ev = ev[:n]
	q.ev = ev
	if n == 0 {
		return
	}
	// Sift down with a hole.
	i := 0
	for {
		c := 4*i + 1
		if c >= n {
			break
		}
		m := c
		if c+3 < n {
			// Four children: a tournament of two pairs.
			a, b := c, c+2
			if ev[c+1].before(&ev[c]) {
				a = c + 1
			}
			if ev[c+3].before(&ev[c+2]) {
				b = c + 3
			}
			m = a
			if ev[b].before(&ev[a]) {
				m = b
			}
		} else {
			for j := c + 1; j < n; j++ {
				if ev[j].before(&ev[m]) {
					m = j
				}
			}
		}
		if !ev[m].before(&last) {
			break
		}
		ev[i] = ev[m]
		i = m
	}
	ev[i] = last
}
