package proptest

import (
	"fmt"
	"strings"
	"time"

	"github.com/electsim/electsim/checker"
	"github.com/electsim/electsim/cron"
	"github.com/electsim/electsim/sim"
)

// Overlap is an interval of positive length in which two or more candidates
// acted as leader at once (belief-level split-brain).
type Overlap struct {
	Start, End sim.Time
	// Nodes acted as leader when the overlap began, with their Epochs.
	Nodes  []sim.NodeID
	Epochs []int64
}

// Conflict is an epoch (term) in which two different candidates started
// acting as leader: a violation of election safety.
type Conflict struct {
	Epoch         int64
	First, Second sim.NodeID
	At            sim.Time // when Second started
}

// Watch follows a run for a property: the verdicts (Overlaps, Conflicts)
// come from the streaming checker, the one implementation of election
// safety and split-brain (docs/checkers.md); the Watch itself only keeps a
// short log of what happened (faults, leadership, crashes, restarts,
// pauses and chosen effects) to print beside a counterexample. NewWatch
// subscribes it before the run; call Finish after it.
type Watch struct {
	s        *sim.Sim
	k        *checker.Checker
	isCand   []bool
	leading  []bool
	effects  []string
	log      []sim.Record
	finished bool

	// Leads counts RecLead records of candidates.
	Leads int
	// Overlaps lists every split-brain finding (two candidates acting as
	// leader over the same interval), in time order; set by Finish.
	Overlaps []Overlap
	// Conflicts lists every epoch with two leaders, in time order; set by
	// Finish.
	Conflicts []Conflict
	// DoubleExecutions and StaleWrites are the checker's double_execution
	// and stale_write findings, set by FinishResource.
	DoubleExecutions []checker.Violation
	StaleWrites      []checker.Violation
	// Linearizability is the checker's linearizability check of the
	// resource history (porcupine, the fenced-store model), set by
	// FinishResource.
	Linearizability checker.Check
}

// NewWatch returns a watch over the given candidates of s and subscribes it
// and its checker. Effect records whose Name is in effects are kept in the
// log too.
func NewWatch(s *sim.Sim, candidates []sim.NodeID, effects ...string) *Watch {
	n := s.NumNodes()
	w := &Watch{s: s, isCand: make([]bool, n), leading: make([]bool, n), effects: effects}
	for _, id := range candidates {
		w.isCand[id] = true
	}
	w.k = checker.New(checker.Input{Names: checker.NamesOf(s), Candidates: candidates, MaxViolations: 1 << 30})
	s.AddSink(w.k)
	s.AddSink(w)
	return w
}

// Record implements sim.Sink.
func (w *Watch) Record(r *sim.Record) {
	switch r.Type {
	case sim.RecLead:
		if r.Node < 0 || !w.isCand[r.Node] {
			return
		}
		w.Leads++
		w.leading[r.Node] = true
	case sim.RecStepDown:
		if r.Node < 0 || !w.isCand[r.Node] {
			return
		}
		w.leading[r.Node] = false
	case sim.RecCrash, sim.RecPause, sim.RecResume, sim.RecFault, sim.RecNote:
	case sim.RecStart:
		if !r.Restarted() {
			return // first start
		}
	case sim.RecEffect:
		keep := false
		for _, e := range w.effects {
			keep = keep || e == r.Name
		}
		if !keep {
			return
		}
	default:
		return
	}
	w.log = append(w.log, *r)
}

// Message implements sim.LeanSink: the Watch needs no message records.
func (w *Watch) Message(sim.RecordType, sim.DropReason, sim.MsgKind, sim.NodeID, sim.NodeID, int64, sim.Time, sim.Time) {
}

// Finish judges the run with the checker and fills Overlaps and Conflicts
// from its typed findings. Call it once, after the run's sim.End.
func (w *Watch) Finish() { w.FinishResource(nil, cron.Policy{}) }

// FinishResource is Finish for a run with a fenced resource: the checker
// also judges the resource's log under its policy, and DoubleExecutions
// and StaleWrites are set.
func (w *Watch) FinishResource(log []cron.LogEntry, p cron.Policy) {
	if w.finished {
		return
	}
	w.finished = true
	if log != nil {
		w.k.Input().Policy = p
	}
	rep := w.k.Finish(log)
	for _, c := range rep.Checks {
		if c.Name == checker.CheckLinearizability {
			w.Linearizability = c
		}
		for _, v := range c.Violations {
			switch c.Name {
			case checker.CheckSplitBrain:
				w.Overlaps = append(w.Overlaps, Overlap{Start: v.At, End: v.End, Nodes: v.NodeIDs, Epochs: v.Epochs})
			case checker.CheckElectionSafety:
				w.Conflicts = append(w.Conflicts, Conflict{Epoch: v.Epochs[1], First: v.NodeIDs[0], Second: v.NodeIDs[1], At: v.At})
			case checker.CheckDoubleExecution:
				w.DoubleExecutions = append(w.DoubleExecutions, v)
			case checker.CheckStaleWrite:
				w.StaleWrites = append(w.StaleWrites, v)
			}
		}
	}
}

// Leading returns the candidates acting as leader now, by the trace.
func (w *Watch) Leading() []sim.NodeID {
	var out []sim.NodeID
	for id, l := range w.leading {
		if l {
			out = append(out, sim.NodeID(id))
		}
	}
	return out
}

// String describes an overlap, e.g. "n2 (epoch 3) and n4 (epoch 5) both led from 1.200s to 4.000s (2.800s)".
func (o Overlap) String(s *sim.Sim) string {
	parts := make([]string, len(o.Nodes))
	for i, id := range o.Nodes {
		parts[i] = fmt.Sprintf("%s (epoch %d)", s.NodeName(id), o.Epochs[i])
	}
	return fmt.Sprintf("%s all acted as leader from %v to %v (%v)", strings.Join(parts, " and "), o.Start, o.End, time.Duration(o.End-o.Start))
}

// String describes a conflict, e.g. "n1 and n3 both led term 4 (n3 from 2.100s)".
func (c Conflict) String(s *sim.Sim) string {
	return fmt.Sprintf("%s and %s both led epoch %d (%s from %v)", s.NodeName(c.First), s.NodeName(c.Second), c.Epoch, s.NodeName(c.Second), c.At)
}

// Timeline renders the kept records (faults, leadership, crashes, restarts,
// pauses and the chosen effects) one per line, at most max lines (0: all).
func (w *Watch) Timeline(max int) string { return w.Window(0, sim.Never, max) }

// Window is Timeline restricted to the records from true time from to to
// (inclusive), keeping the last max lines (0: all) since the end of a window
// is usually where the violation is.
func (w *Watch) Window(from, to sim.Time, max int) string {
	var recs []sim.Record
	for _, r := range w.log {
		if r.At >= from && r.At <= to {
			recs = append(recs, r)
		}
	}
	var b strings.Builder
	if max > 0 && len(recs) > max {
		fmt.Fprintf(&b, "... %d earlier\n", len(recs)-max)
		recs = recs[len(recs)-max:]
	}
	for _, r := range recs {
		name := w.s.NodeName(r.Node)
		fmt.Fprintf(&b, "%v ", r.At)
		switch r.Type {
		case sim.RecLead:
			fmt.Fprintf(&b, "%s leads epoch %d (token %d)", name, r.Epoch, r.Token)
		case sim.RecStepDown:
			fmt.Fprintf(&b, "%s steps down from epoch %d: %s", name, r.Epoch, r.Detail)
		case sim.RecFault, sim.RecNote:
			fmt.Fprintf(&b, "%s %s", r.Name, r.Detail)
		case sim.RecEffect:
			fmt.Fprintf(&b, "%s %s %s", name, r.Name, r.Detail)
		case sim.RecStart:
			fmt.Fprintf(&b, "%s restarts (%s)", name, startDetail(r.Detail))
		default:
			fmt.Fprintf(&b, "%s %v", name, r.Type)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func startDetail(d string) string {
	if d == "" {
		return "empty disk"
	}
	return d + " disk"
}
