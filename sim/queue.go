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

func (e *event) before(o *event) bool {
	return e.at < o.at || (e.at == o.at && e.seq < o.seq)
}

// queue is a 4-ary min-heap ordered by (at, seq). A 4-ary heap halves the depth
// of a binary heap and keeps sibling comparisons within a cache line or two.
type queue struct {
	ev []event
}

func (q *queue) len() int { return len(q.ev) }

func (q *queue) push(e event) {
	ev := append(q.ev, e)
	q.ev = ev
	// Sift up with a hole: move parents down, write e once.
	i := len(ev) - 1
	for i > 0 {
		p := (i - 1) >> 2
		if !e.before(&ev[p]) {
			break
		}
		ev[i] = ev[p]
		i = p
	}
	ev[i] = e
}

// peek returns the earliest event's time, or Never.
func (q *queue) peekTime() Time {
	if len(q.ev) == 0 {
		return Never
	}
	return q.ev[0].at
}

func (q *queue) pop(top *event) {
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
