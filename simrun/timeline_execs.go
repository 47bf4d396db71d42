package simrun

import (
	"github.com/electsim/electsim/reports"
	"github.com/electsim/electsim/scenario"
	"github.com/electsim/electsim/sim"
)

// MaxTimelineExecs bounds the worker runs the featured run's timeline
// draws (queue mode): the first this many, whatever the run's length.
const MaxTimelineExecs = 5000

// execSpans gathers queue mode's worker runs from the featured run's
// story for the timeline: each from its FactExecStarted to its
// FactExecCompleted or FactExecFailed (or its worker's crash, or the end).
type execSpans struct {
	r     *scenario.Run
	spans []reports.Span
	slots []execSlot // per span
	open  map[execKey]int
}

type execKey struct {
	node sim.NodeID
	run  int64
}

type execSlot struct {
	node sim.NodeID
	job  int
	slot int64
}

func newExecSpans(r *scenario.Run) *execSpans {
	return &execSpans{r: r, open: map[execKey]int{}}
}

// observe follows one story record.
func (x *execSpans) observe(rec *sim.Record) {
	at := msT(rec.At)
	switch {
	case rec.Type == sim.RecCrash:
		for k, i := range x.open { // closing each: order cannot leak
			if k.node == rec.Node {
				x.spans[i].ToMs = at
				delete(x.open, k)
			}
		}
	case rec.Type != sim.RecEffect:
	case rec.Fact == sim.FactExecStarted && len(x.spans) < MaxTimelineExecs:
		ex, label := rec.Exec(), ""
		if cfg := x.r.CronConfig; cfg != nil && ex.Job >= 0 && ex.Job < len(cfg.Jobs) {
			label = cfg.Jobs[ex.Job].Name
		}
		x.open[execKey{rec.Node, ex.Exec}] = len(x.spans)
		x.spans = append(x.spans, reports.Span{Node: x.r.Sim.NodeName(rec.Node), FromMs: at, ToMs: -1, Label: label})
		x.slots = append(x.slots, execSlot{node: rec.Node, job: ex.Job, slot: ex.Slot})
	case rec.Fact == sim.FactExecCompleted, rec.Fact == sim.FactExecFailed:
		k := execKey{rec.Node, rec.Exec().Exec}
		if i, ok := x.open[k]; ok {
			x.spans[i].ToMs = at
			delete(x.open, k)
		}
	}
}

// finish closes the runs still open at end and marks the runs whose
// message the queue delivered again while they ran (the checker's
// Report.Redeliveries name the worker that held it).
func (x *execSpans) finish(end float64) []reports.Span {
	for _, i := range x.open {
		x.spans[i].ToMs = end
	}
	for _, rd := range x.r.Report.Redeliveries {
		at := msT(rd.At)
		for i, s := range x.slots {
			if s.node == rd.Holder && s.job == rd.Job && s.slot == rd.Slot && x.spans[i].FromMs <= at && at <= x.spans[i].ToMs {
				x.spans[i].Kind = "redelivered"
			}
		}
	}
	return x.spans
}
