package simrun

import (
	"github.com/electsim/electsim/reports"
	"github.com/electsim/electsim/sim"
)

// spaceTimeSink collects the featured run's messages and timer firings for
// the report's space-time diagram, keeping at most
// reports.MaxSpaceTimeMessages messages (and the timers up to the last kept
// message). Once full it unsubscribes (a full sink makes the engine build a
// Record for every event: a long run went about 20% slower); the diagram's
// Total comes from the engine's delivery and drop counters.
type spaceTimeSink struct {
	s      *sim.Sim
	st     reports.SpaceTime
	sent   map[dupKey]bool // deliveries seen, to tell a duplicate's second copy
	full   bool
	lastMs float64
}

type dupKey struct {
	from, to sim.NodeID
	kind     sim.MsgKind
	sentAt   sim.Time
}

func newSpaceTimeSink(s *sim.Sim) *spaceTimeSink {
	return &spaceTimeSink{s: s, sent: map[dupKey]bool{}}
}

// Record implements sim.Sink.
func (k *spaceTimeSink) Record(r *sim.Record) {
	switch r.Type {
	case sim.RecDeliver, sim.RecDrop:
		if k.full { // the record being handed out as it unsubscribed
			return
		}
		m := reports.STMessage{From: int(r.Peer), To: int(r.Node), SentMs: msT(r.SentAt), AtMs: msT(r.At), Kind: r.Kind.String(), Fate: "delivered"}
		if r.Type == sim.RecDrop {
			m.Fate, m.Why = "dropped", r.Reason.String()
		} else {
			key := dupKey{r.Peer, r.Node, r.Kind, r.SentAt}
			if k.sent[key] {
				m.Fate = "duplicate"
			}
			k.sent[key] = true
		}
		k.st.Messages = append(k.st.Messages, m)
		k.lastMs = m.AtMs
		if len(k.st.Messages) == reports.MaxSpaceTimeMessages {
			k.full = true
			k.sent = nil
			k.s.RemoveSink(k)
		}
	case sim.RecTimer:
		if !k.full {
			k.st.Timers = append(k.st.Timers, reports.STTimer{Node: int(r.Node), AtMs: msT(r.At), Name: k.s.TimerName(r.Node, int(r.A))})
		}
	}
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
	if k.full {
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
