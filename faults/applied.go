package faults

import (
	"slices"

	"github.com/electsim/electsim/sim"
)

// Applied is one injected fault: when, what it resolved to, and when it was
// reverted. Skipped faults (a target that resolved to nothing) are not listed;
// they are trace notes (NoteSkip).
type Applied struct {
	// Seq is the injection's index in Injector.Applied.
	Seq int
	// Source names the fault: its Name, "faults[i]" or "nemesis[i]".
	Source string
	// Kind is the fault's kind (KindPause, …).
	Kind string
	// At is when it was injected.
	At sim.Time
	// Nodes are the nodes it acted on (resolved targets), in ID order; empty
	// for faults of no node (heal, links between every node).
	Nodes []sim.NodeID
	// Detail is the trace note's detail, e.g.
	// "faults[0]: pause n3 (leader, epoch 4) for 8.000s".
	Detail string
	// Reverted reports whether it was reverted, at RevertedAt, and why
	// (RevertedByFor, RevertedByHeal, RevertedBySettle). Instantaneous faults
	// are never reverted.
	Reverted   bool
	RevertedAt sim.Time
	RevertedBy string

	concrete Fault
}

// Explicit returns the fault as a fixed, explicit fault that does the same
// thing: At is when it fired (a trigger becomes a time), targets are the
// concrete nodes, every range is the value drawn, and For is how long it
// lasted — nil when it lasted until a heal or Settle ended it (or is
// instantaneous). A majority/minority split becomes the two groups it drew.
// Replaying explicit faults in a run with the same seed and cluster gives the
// same injections as long as the cluster behaves the same up to each one.
func (a Applied) Explicit() Fault {
	f := concretize(&a.concrete, nil) // fresh kind structs; its ranges are constants, so nothing is drawn
	f.Name = ""
	f.At = Dur(a.At.Duration())
	f.After = nil
	f.For = nil
	if a.Reverted && a.RevertedBy == RevertedByFor {
		f.For = &DurRange{Min: a.RevertedAt.Sub(a.At), Max: a.RevertedAt.Sub(a.At)}
	}
	f.Partition = clonePartition(f.Partition)
	switch {
	case f.Pause != nil:
		f.Pause.Target = cloneTarget(f.Pause.Target)
	case f.Crash != nil:
		f.Crash.Target = cloneTarget(f.Crash.Target)
	case f.Resign != nil:
		f.Resign.Target = cloneTarget(f.Resign.Target)
	case f.Restart != nil:
		f.Restart.Target = cloneTarget(f.Restart.Target)
	case f.Clock != nil:
		f.Clock.Target = cloneTarget(f.Clock.Target)
	case f.Disk != nil:
		f.Disk.Target = cloneTarget(f.Disk.Target)
	case f.Link != nil:
		f.Link.From, f.Link.To = cloneTargetPtr(f.Link.From), cloneTargetPtr(f.Link.To)
		if f.Link.Latency != nil {
			d := *f.Link.Latency
			f.Link.Latency = &d
		}
	}
	return f
}

func cloneTarget(t Target) Target {
	t.Nodes = slices.Clone(t.Nodes)
	return t
}

func cloneTargetPtr(t *Target) *Target {
	if t == nil {
		return nil
	}
	c := cloneTarget(*t)
	return &c
}

func clonePartition(p *Partition) *Partition {
	if p == nil {
		return nil
	}
	c := *p
	c.Groups = nil
	for _, g := range p.Groups {
		var cg []Target
		for _, t := range g {
			cg = append(cg, cloneTarget(t))
		}
		c.Groups = append(c.Groups, cg)
	}
	c.Target, c.To = cloneTargetPtr(p.Target), cloneTargetPtr(p.To)
	return &c
}
