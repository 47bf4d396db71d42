package simrun

import (
	"github.com/electsim/electsim/reports"
	"github.com/electsim/electsim/sim"
)

// spaceTimeLead is how many messages before the first fault the diagram
// keeps when that fault comes after its first reports.MaxSpaceTimeMessages
// messages (about 25 s of a five-node Raft cluster).
const spaceTimeLead = reports.MaxSpaceTimeMessages / 5

// spaceTimeSink collects the featured run's messages and timer firings for
// the report's space-time diagram, keeping at most
// reports.MaxSpaceTimeMessages messages and the timers among them (at most
// reports.MaxSpaceTimeTimers: past them the diagram ends):
//   - the run's first messages, when its first fault comes among them (or
//     it has none);
//   - else the spaceTimeLead messages before the first fault and those
//     after it: a long run's diagram shows its first fault, not its first
//     minutes. Until that fault comes the sink keeps both the first
//     messages and a ring of the latest, in bounded memory.
//
// Once full it unsubscribes (a full sink makes the engine build a Record
// for every event: a long run went about 20% slower); the diagram's Total
// comes from the engine's delivery and drop counters.
type spaceTimeSink struct {
	s  *sim.Sim
	st reports.SpaceTime
	// faults says whether the run has faults to wait for: without any, the
	// sink stops at its first messages.
	faults  bool
	faulted bool // the first fault has come
	full    bool
	lastMs  float64
	// The latest messages and timers while the first messages are kept
	// and no fault has come yet (rings; next is the oldest entry).
	ring       []reports.STMessage
	ringNext   int
	timers     []reports.STTimer
	timersNext int
	// Deliveries seen lately, to tell a duplicate's second copy: two
	// generations of at most spaceTimeLead each (a duplicate arrives within
	// one link latency of the first copy).
	seen, seenOld map[dupKey]bool
}

type dupKey struct {
	from, to sim.NodeID
	kind     sim.MsgKind
	sentAt   sim.Time
}

// newSpaceTimeSink collects s's diagram; faults says whether the run has
// faults, so that a late first fault is worth waiting for.
func newSpaceTimeSink(s *sim.Sim, faults bool) *spaceTimeSink {
	return &spaceTimeSink{s: s, faults: faults, seen: map[dupKey]bool{}}
}

// Record implements sim.Sink.
func (k *spaceTimeSink) Record(r *sim.Record) {
	switch r.Type {
	case sim.RecDeliver, sim.RecDrop:
		if k.full { // the record being handed out as it unsubscribed
			return
		}
		k.message(r)
	case sim.RecTimer:
		if k.full {
			return
		}
		tm := reports.STTimer{Node: int(r.Node), AtMs: msT(r.At), Name: k.s.TimerName(r.Node, r.Timer().Tag)}
		if k.ring == nil {
			if len(k.st.Timers) == reports.MaxSpaceTimeTimers {
				// Timers outnumber messages (a one-node cluster): the
				// diagram ends here, fault or not, or it would keep
				// every firing of the run.
				k.st.TimersCut, k.lastMs = true, k.st.Timers[len(k.st.Timers)-1].AtMs
				k.stop()
				return
			}
			k.st.Timers = append(k.st.Timers, tm)
		} else {
			k.timers, k.timersNext = push(k.timers, k.timersNext, tm)
		}
	case sim.RecCrash, sim.RecPause, sim.RecFault:
		if !k.faulted {
			k.faulted = true
			if k.ring != nil {
				k.moveToFault()
			}
		}
	}
}

// message keeps a delivery or loss.
func (k *spaceTimeSink) message(r *sim.Record) {
	m := reports.STMessage{From: int(r.Peer), To: int(r.Node), SentMs: msT(r.SentAt), AtMs: msT(r.At), Kind: r.Kind.String(), Fate: "delivered"}
	if r.Type == sim.RecDrop {
		m.Fate, m.Why = "dropped", r.Reason.String()
	} else {
		key := dupKey{r.Peer, r.Node, r.Kind, r.SentAt}
		if k.seen[key] || k.seenOld[key] {
			m.Fate = "duplicate"
		}
		if len(k.seen) == spaceTimeLead {
			k.seenOld, k.seen = k.seen, make(map[dupKey]bool, spaceTimeLead)
		}
		k.seen[key] = true
	}
	if k.ring != nil {
		k.ring, k.ringNext = push(k.ring, k.ringNext, m)
		return
	}
	k.st.Messages = append(k.st.Messages, m)
	k.lastMs = m.AtMs
	if len(k.st.Messages) < reports.MaxSpaceTimeMessages {
		return
	}
	if k.faulted || !k.faults {
		k.stop()
		return
	}
	// Full with no fault yet: keep the first messages (the diagram, if
	// none comes) and the latest ones (its lead-up, if one does).
	k.ring = make([]reports.STMessage, 0, spaceTimeLead)
	k.timers = make([]reports.STTimer, 0, spaceTimeLead)
}

// moveToFault makes the lead-up to the first fault, which just came, the
// start of the diagram: the ring of latest messages, topped up from the end
// of the first messages when the fault came before the ring filled, and
// the timers among them.
func (k *spaceTimeSink) moveToFault() {
	ring := append(k.ring[k.ringNext:len(k.ring):len(k.ring)], k.ring[:k.ringNext]...)
	head := k.st.Messages[len(k.st.Messages)-(spaceTimeLead-len(ring)):]
	msgs := append(make([]reports.STMessage, 0, reports.MaxSpaceTimeMessages), head...)
	msgs = append(msgs, ring...)
	timers := append(k.st.Timers, k.timers[k.timersNext:]...)
	timers = append(timers, k.timers[:k.timersNext]...)
	k.ring, k.timers = nil, nil
	k.st.StartMs = msgs[0].SentMs
	for _, m := range msgs[1:] {
		k.st.StartMs = min(k.st.StartMs, m.SentMs)
	}
	k.lastMs = msgs[len(msgs)-1].AtMs
	k.st.Messages, k.st.Timers = msgs, nil
	for _, tm := range timers {
		if tm.AtMs >= k.st.StartMs {
			k.st.Timers = append(k.st.Timers, tm)
		}
	}
}

// stop unsubscribes the sink: the diagram is complete.
func (k *spaceTimeSink) stop() {
	k.full = true
	k.seen, k.seenOld, k.ring, k.timers = nil, nil, nil, nil
	k.s.RemoveSink(k)
}

// push adds v to the ring r (capacity fixed at creation), overwriting its
// oldest entry once full; next is the oldest entry's index.
func push[T any](r []T, next int, v T) ([]T, int) {
	if len(r) < cap(r) {
		return append(r, v), 0
	}
	r[next] = v
	return r, (next + 1) % len(r)
}

// diagram is the collected diagram with the run's lanes, tenures and
// faults (from its timeline). A truncated diagram ends at its last kept
// message.
func (k *spaceTimeSink) diagram(tl *reports.Timeline) *reports.SpaceTime {
	st := k.st
	for id := 0; id < k.s.NumNodes(); id++ {
		st.Nodes = append(st.Nodes, k.s.NodeName(sim.NodeID(id)))
	}
	st.EndMs = tl.EndMs
	if k.full || k.ring != nil {
		st.EndMs = k.lastMs
	}
	st.Total = int(messagesSoFar(k.s)) // every delivery and drop is one record
	st.Tenures, st.Faults = tl.Tenures, tl.Faults
	return &st
}

// messagesSoFar is how many deliveries and drops the engine has recorded.
func messagesSoFar(s *sim.Sim) uint64 {
	st := s.Stats()
	var n uint64
	for k := range st.Delivered {
		n += st.Delivered[k] + st.Dropped[k]
	}
	return n
}
