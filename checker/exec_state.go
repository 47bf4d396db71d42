package checker

import (
	"time"

	"github.com/electsim/electsim/sim"
)

// Check names of queue-mode cron (Input.Exec); a run without queue mode
// reports none of them.
const (
	CheckLostSlot           = "lost_slot"           // a slot due while a scheduler led was never completed
	CheckDuplicateExecution = "duplicate_execution" // two executions of one slot made writes
	CheckOverlap            = "overlap"             // two executions of one job ran at once (concurrency forbid)
	CheckLateStart          = "late_start"          // a slot's first execution started past its deadline
)

// QueueCheckNames lists the queue-mode checks in report order, after CheckNames.
var QueueCheckNames = []string{CheckLostSlot, CheckDuplicateExecution, CheckOverlap, CheckLateStart}

// ExecInput is what the checker needs to judge queue-mode cron's
// executions; nil Input.Exec: no queue mode, none of its checks run.
type ExecInput struct {
	// StartDeadline is how long after its slot a slot's first execution
	// may start (late_start).
	StartDeadline time.Duration
	// ForbidOverlap makes an overlap of two executions of one job a
	// violation (concurrency: forbid); otherwise overlaps are counted in
	// the summary only.
	ForbidOverlap bool
}

// execRun is one worker's run of an execution, from its FactExecStarted
// to its FactExecCompleted or FactExecFailed, or its node's crash; a
// paused worker's run goes on.
type execRun struct {
	node       sim.NodeID
	run        int64
	job        int
	slot       int64
	start, end sim.Time
	ended      bool
}

// leadSpan is a stretch of true time during which at least one candidate
// acted as leader.
type leadSpan struct {
	from, to sim.Time
	open     bool
}

// execState gathers, as the records stream by, what the queue-mode checks
// judge: worker runs, slot completions, and when some scheduler led. Its
// memory grows with executions and tenures, not with records.
type execState struct {
	leading []bool
	nLead   int
	spans   []leadSpan
	runs    []execRun
	open    map[runID]int   // lookups only: an open run's index in runs
	done    map[slotID]bool // lookups only: slots some run completed
	first   map[slotID]int  // lookups only: the index of a slot's first run
	isCand  map[sim.NodeID]bool
}

type runID struct {
	node sim.NodeID
	run  int64
}

func newExecState(cands []sim.NodeID) *execState {
	x := &execState{open: map[runID]int{}, done: map[slotID]bool{}, first: map[slotID]int{}, isCand: map[sim.NodeID]bool{}}
	for _, id := range cands {
		x.isCand[id] = true
	}
	return x
}

// observe takes one record.
func (x *execState) observe(r *sim.Record) {
	switch r.Type {
	case sim.RecLead:
		x.setLeading(r.Node, true, r.At)
	case sim.RecStepDown:
		x.setLeading(r.Node, false, r.At)
	case sim.RecCrash:
		for k := range x.runs {
			if ru := &x.runs[k]; !ru.ended && ru.node == r.Node {
				x.end(k, r.At)
			}
		}
	case sim.RecEffect:
		x.effect(r)
	}
}

func (x *execState) setLeading(n sim.NodeID, on bool, at sim.Time) {
	if !x.isCand[n] {
		return
	}
	for int(n) >= len(x.leading) {
		x.leading = append(x.leading, false)
	}
	if x.leading[n] == on {
		return
	}
	x.leading[n] = on
	if on {
		x.nLead++
		if x.nLead == 1 {
			x.spans = append(x.spans, leadSpan{from: at, open: true})
		}
		return
	}
	x.nLead--
	if x.nLead == 0 {
		s := &x.spans[len(x.spans)-1]
		s.to, s.open = at, false
	}
}

func (x *execState) effect(r *sim.Record) {
	k := slotID{int(r.C), r.B}
	id := runID{r.Node, r.A}
	switch r.Fact {
	case sim.FactExecStarted:
		x.open[id] = len(x.runs)
		if _, seen := x.first[k]; !seen {
			x.first[k] = len(x.runs)
		}
		x.runs = append(x.runs, execRun{node: r.Node, run: r.A, job: k.job, slot: k.slot, start: r.At})
	case sim.FactExecCompleted:
		x.done[k] = true
		if i, ok := x.open[id]; ok {
			x.end(i, r.At)
		}
	case sim.FactExecFailed:
		if i, ok := x.open[id]; ok {
			x.end(i, r.At)
		}
	}
}

func (x *execState) end(i int, at sim.Time) {
	ru := &x.runs[i]
	ru.end, ru.ended = at, true
	delete(x.open, runID{ru.node, ru.run})
}

// finish closes what is still open at the end of the trace.
func (x *execState) finish(end sim.Time) {
	for k := range x.runs {
		if !x.runs[k].ended {
			x.runs[k].end = end
		}
	}
	if n := len(x.spans); n > 0 && x.spans[n-1].open {
		x.spans[n-1].to = end
	}
}

// ledAt reports whether some candidate acted as leader at t.
func (x *execState) ledAt(t sim.Time) bool {
	lo, hi := 0, len(x.spans)
	for lo < hi { // the first span ending after t
		m := (lo + hi) / 2
		if x.spans[m].to <= t && !x.spans[m].open {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo < len(x.spans) && x.spans[lo].from <= t
}
