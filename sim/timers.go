package sim

import (
	"cmp"
	"math"
	"slices"
	"time"
)

func timerID(slot int32, gen uint32) TimerID { return TimerID(uint64(slot)<<32 | uint64(gen)) }

func (id TimerID) split() (int32, uint32) { return int32(id >> 32), uint32(id) }

// SetTimer implements Env.
func (n *nodeState) SetTimer(d time.Duration, tag int) TimerID {
	if d < 0 {
		d = 0
	}
	var slot int32
	if k := len(n.free); k > 0 {
		slot = n.free[k-1]
		n.free = n.free[:k-1]
	} else {
		// A new slot only when every one of the node's is armed: the
		// bound is checked off the hot path, at the call that would
		// exceed it, so a handler arming timers in a loop stops there.
		s := n.s
		if s.timerSlots >= s.cfg.MaxTimers {
			s.timersFull, s.checkAt = true, 0
			panic(budgetStop(OutcomeTimers))
		}
		s.timerSlots++
		n.timers = append(n.timers, timerSlot{})
		slot = int32(len(n.timers) - 1)
	}
	t := &n.timers[slot]
	t.gen++
	t.state = timerArmed
	t.tag = tag
	t.deadline = n.after(d)
	n.queueTimer(slot)
	return timerID(slot, t.gen)
}

// after returns the monotonic reading d from now, saturating so that a huge
// d (math.MaxInt64 as "never") cannot wrap around into the past.
func (n *nodeState) after(d time.Duration) int64 {
	now := n.mono()
	if int64(d) > math.MaxInt64-now {
		return math.MaxInt64
	}
	return now + int64(d)
}

// queueTimer pushes a queue entry for an armed timer at the true time its
// monotonic deadline is reached under the clock's current rate.
func (n *nodeState) queueTimer(slot int32) {
	t := &n.timers[slot]
	at := n.clk.mono.trueAt(t.deadline)
	if at < n.s.now {
		at = n.s.now
	}
	t.queuedAt = at
	n.s.push(at, evTimer, int16(n.id), slot)
	t.queueSeq = n.s.seq
}

func (n *nodeState) armed(id TimerID) (*timerSlot, bool) {
	slot, gen := id.split()
	if slot < 0 || int(slot) >= len(n.timers) {
		return nil, false
	}
	t := &n.timers[slot]
	if t.gen != gen || t.state == timerFree {
		return nil, false
	}
	return t, true
}

// ResetTimer implements Env. Extending a timer costs no queue operation: the
// existing entry is re-armed lazily when it comes due.
func (n *nodeState) ResetTimer(id TimerID, d time.Duration) bool {
	t, ok := n.armed(id)
	if !ok {
		return false
	}
	if d < 0 {
		d = 0
	}
	t.deadline = n.after(d)
	if t.state == timerDue {
		// Expired in a pause but not yet handed over, so still armed to the
		// node: re-arm it; the entry queued on resume goes stale.
		t.state = timerArmed
		n.queueTimer(int32(id >> 32))
	} else if n.clk.mono.trueAt(t.deadline) < t.queuedAt {
		// Earlier than the queued entry: queue anew; the old entry is
		// recognised as superseded by its seq (see fireTimer).
		n.queueTimer(int32(id >> 32))
	}
	return true
}

// CancelTimer implements Env.
func (n *nodeState) CancelTimer(id TimerID) bool {
	t, ok := n.armed(id)
	if !ok {
		return false
	}
	n.freeTimer(int32(id>>32), t)
	return true
}

func (n *nodeState) freeTimer(slot int32, t *timerSlot) {
	t.state = timerFree
	t.gen++
	n.free = append(n.free, slot)
}

// fireTimer handles a timer queue entry.
func (s *Sim) fireTimer(e *event) {
	n := s.nodes[e.node]
	t := &n.timers[e.ref]
	if t.state == timerFree {
		s.stats.Stale++ // cancelled, fired, or lost in a crash
		return
	}
	if t.state == timerArmed {
		if e.seq != t.queueSeq {
			// Superseded: re-armed earlier, re-projected, or the slot was
			// reused. Matching the seq, not just the time, keeps a reused
			// slot from firing early through its old entry, ahead of
			// timers set before it with the same deadline.
			s.stats.Stale++
			return
		}
		if t.deadline > n.mono() {
			n.queueTimer(e.ref) // extended by ResetTimer: re-arm lazily
			s.stats.Stale++
			return
		}
		if n.paused {
			t.state = timerDue
			n.pauseBuf = append(n.pauseBuf, *e)
			return
		}
	} else if n.paused {
		// Due, handed over by a resume, but paused again before it ran.
		n.pauseBuf = append(n.pauseBuf, *e)
		return
	}
	// Armed and due, or due and handed over on resume.
	tag := t.tag
	id := timerID(e.ref, t.gen)
	n.freeTimer(e.ref, t)
	s.stats.Events++
	s.stats.TimersFired++
	s.hash.timer(n.id, s.now, tag, id)
	if len(s.full) > 0 { // lean sinks take no timer records
		s.rec = Record{At: s.now, Type: RecTimer, Node: n.id, Peer: None, A: int64(tag), B: int64(id)}
		for _, k := range s.full {
			k.Record(&s.rec)
		}
	}
	s.firingTag = tag // for a Failure: the slot may be re-armed with another tag
	n.node.OnTimer(id, tag)
	s.guard()
}

// reprojectTimers re-queues every armed timer of n after its monotonic rate
// changed, so each still fires when the node's own clock reaches its deadline.
// They are re-queued in their previous queue order, not slot order, so timers
// with equal deadlines still fire in the order they were set.
func (n *nodeState) reprojectTimers() {
	var armed []int32
	for i := range n.timers {
		if n.timers[i].state == timerArmed {
			armed = append(armed, int32(i))
		}
	}
	slices.SortFunc(armed, func(a, b int32) int { return cmp.Compare(n.timers[a].queueSeq, n.timers[b].queueSeq) })
	for _, i := range armed {
		n.queueTimer(i)
	}
}
