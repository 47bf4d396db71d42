package checker

import (
	"time"

	"github.com/electsim/electsim/cron"
	"github.com/electsim/electsim/sim"
)

// at writes true times in milliseconds: at(1500) is t=1.500s.
func at(milli int64) sim.Time { return sim.Time(milli * int64(time.Millisecond)) }

// trace builds a hand-made trace. Records must be added in time order, as
// the engine emits them.
type trace struct {
	recs []sim.Record
}

func (b *trace) add(r sim.Record) *trace {
	if r.Peer == 0 && r.Type != sim.RecBelieve && r.Type != sim.RecDeliver && r.Type != sim.RecDrop {
		r.Peer = sim.None
	}
	b.recs = append(b.recs, r)
	return b
}

func (b *trace) lead(t int64, n sim.NodeID, epoch, token int64) *trace {
	return b.add(sim.Record{At: at(t), Type: sim.RecLead, Node: n, Epoch: epoch, Token: token})
}

func (b *trace) down(t int64, n sim.NodeID, why string) *trace {
	return b.add(sim.Record{At: at(t), Type: sim.RecStepDown, Node: n, Detail: why})
}

// crashDown is the step-down the engine records when a leader crashes.
func (b *trace) crashDown(t int64, n sim.NodeID) *trace {
	return b.add(sim.Record{At: at(t), Type: sim.RecStepDown, Node: n, Detail: "crash", Fact: sim.FactCrashed})
}

func (b *trace) believe(t int64, n, leader sim.NodeID, epoch int64) *trace {
	return b.add(sim.Record{At: at(t), Type: sim.RecBelieve, Node: n, Peer: leader, Epoch: epoch})
}

func (b *trace) pause(t int64, n sim.NodeID) *trace {
	return b.add(sim.Record{At: at(t), Type: sim.RecPause, Node: n})
}

func (b *trace) resume(t int64, n sim.NodeID) *trace {
	return b.add(sim.Record{At: at(t), Type: sim.RecResume, Node: n})
}

// crash records what the engine records for a crash: the step-down of a
// leading node (if leading) and the crash.
func (b *trace) crash(t int64, n sim.NodeID, leading bool) *trace {
	if leading {
		b.crashDown(t, n)
	}
	return b.add(sim.Record{At: at(t), Type: sim.RecCrash, Node: n})
}

func (b *trace) restart(t int64, n sim.NodeID) *trace {
	return b.add(sim.Record{At: at(t), Type: sim.RecStart, Node: n, A: 1})
}

func (b *trace) fault(t int64, name, detail string, n sim.NodeID) *trace {
	return b.add(sim.Record{At: at(t), Type: sim.RecFault, Node: n, Name: name, Detail: detail})
}

// net records a network fault that cut (or restored) exactly links, as the
// engine's primitives do; the Detail is for people and never read.
func (b *trace) net(t int64, cut bool, links ...sim.Link) *trace {
	f := sim.FactLinksRestored
	if cut {
		f = sim.FactLinksCut
	}
	return b.add(sim.Record{At: at(t), Type: sim.RecFault, Node: sim.None, Name: "net", Detail: "(links)", Fact: f, Links: links})
}

// effect records a node effect with its typed fact.
func (b *trace) effect(t int64, n sim.NodeID, f sim.Fact, a, bb, c int64) *trace {
	return b.add(sim.Record{At: at(t), Type: sim.RecEffect, Node: n, Name: f.String(), Fact: f, A: a, B: bb, C: c})
}

func (b *trace) deliver(t int64, to, from sim.NodeID, kind sim.MsgKind, sent int64, term int64) *trace {
	return b.add(sim.Record{At: at(t), Type: sim.RecDeliver, Node: to, Peer: from, Kind: kind, SentAt: at(sent), Epoch: term})
}

func (b *trace) drop(t int64, to, from sim.NodeID, kind sim.MsgKind, sent int64) *trace {
	return b.add(sim.Record{At: at(t), Type: sim.RecDrop, Reason: sim.DropPartitionAtSend, Node: to, Peer: from, Kind: kind, SentAt: at(sent)})
}

func (b *trace) end(t int64) *trace {
	return b.add(sim.Record{At: at(t), Type: sim.RecEnd, Node: sim.None, Detail: "horizon"})
}

// three is the usual hand-built cluster: candidates n1, n2, n3 (IDs 0–2).
var (
	three     = []sim.NodeID{0, 1, 2}
	threeName = []string{"n1", "n2", "n3", "store", "resource"}
)

func input(b *trace) Input {
	return Input{Records: b.recs, Names: threeName, Candidates: three}
}

// job is a validated one-job table.
func job(schedule string) cron.Table {
	t := cron.Table{{Name: "report", Schedule: schedule}}
	if err := t.Validate(); err != nil {
		panic(err)
	}
	return t
}

// slot0 is 02:00:00 on the default calendar day.
var slot0 = time.Date(2026, 1, 1, 2, 0, 0, 0, time.UTC).UnixNano()

// write is a resource log entry for job 0.
func write(t int64, node sim.NodeID, run int64, slot int64, step int, token int64, accepted bool, reason string) cron.LogEntry {
	if reason == "" {
		reason = cron.ReasonAccepted
	}
	return cron.LogEntry{At: at(t), Job: "report", JobIndex: 0, Slot: slot, Step: step, Token: token, Node: node, Run: run, Accepted: accepted, Reason: reason}
}

// mustCheck returns the named check of r.
func mustCheck(r Report, name string) Check {
	c, ok := r.Check(name)
	if !ok {
		panic("no check " + name)
	}
	return c
}
