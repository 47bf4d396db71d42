package checker

import (
	"sort"
	"time"

	"github.com/electsim/electsim/cron"
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
	// Jobs is the validated job table lost_slot judges as the records
	// stream by (Input.Jobs may be set only after the run). Default
	// Input.Jobs.
	Jobs cron.Table
	// From is where lost_slot starts judging slots as the records stream
	// by (the end of its window, Input.CronTo, may be known only after the
	// run). Default Input.CronFrom, else Input.WallStart.
	From time.Time
}

// openRun is a worker run of an execution that has started and not yet
// ended (its FactExecCompleted or FactExecFailed, or its node's crash); a
// paused worker's run goes on.
type openRun struct {
	node  sim.NodeID
	run   int64
	job   int
	slot  int64
	start sim.Time
}

// overlapFound is a run b that started while runs of its job ran (a is
// the first of them): the overlap lasts until b ends or every one of them
// has ended, and counts only if that is after b started.
type overlapFound struct {
	a, b     openRun
	partners []runID // the runs still running beside b
	end      sim.Time
	ended    bool
}

type runID struct {
	node sim.NodeID
	run  int64
}

// lateFound is a slot whose first run started past the deadline.
type lateFound struct {
	r    openRun
	late time.Duration
}

// lostSlot is a slot due while a scheduler led, not completed so far.
type lostSlot struct {
	k       slotID
	at      sim.Time
	started bool
}

// execState judges the queue-mode checks as the records stream by, with
// memory bounded by what is in flight and what it finds: open runs, slots
// judged due and not yet completed, facts about slots not yet due (a
// worker whose leader's clock ran ahead), and the findings — plus one
// entry per slot that started, to tell a slot's first start from a retry.
type execState struct {
	in      *Input
	jobs    cron.Table
	leading []bool
	nLead   int
	isCand  map[sim.NodeID]bool
	open    []openRun
	started map[slotID]bool // lookups only: slots some run started
	// lost_slot: next[j] is job j's next slot not yet judged (0: none left
	// in the window); dueLed counts the slots judged due while led.
	next    []int64
	dueLed  int
	pending map[slotID]*lostSlot // lookups only: judged due while led, not completed
	early   map[slotID]bool      // lookups only: slots not yet judged that completed (true) or started (false)

	unfinished unfinishedSlots // lost_slot: started, none completed, whatever the leadership
	workers    workerCounts    // per worker node: taken, heartbeats, acked, …
	overlaps   []overlapFound  // kept only if positive (finish)
	lates      []lateFound
	started1   int // slots whose first start was judged
}

func newExecState(in *Input) *execState {
	x := &execState{in: in, isCand: map[sim.NodeID]bool{}, started: map[slotID]bool{}, pending: map[slotID]*lostSlot{}, early: map[slotID]bool{}}
	for _, id := range in.Candidates {
		x.isCand[id] = true
	}
	from := in.Exec.From
	if from.IsZero() {
		from = in.CronFrom
	}
	if from.IsZero() {
		from = in.WallStart
	}
	x.jobs = in.Exec.Jobs
	if x.jobs == nil {
		x.jobs = in.Jobs
	}
	x.next = make([]int64, len(x.jobs))
	for j := range x.jobs {
		x.next[j] = x.nextSlot(j, from.UnixNano())
	}
	return x
}

func (x *execState) nextSlot(j int, after int64) int64 {
	t := x.jobs[j].Sched().Next(time.Unix(0, after).UTC())
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// judgeUntil judges every slot of the window due before true time at (by
// an exact clock) with the leadership state as it is: no record between
// the last one and at changed it.
func (x *execState) judgeUntil(at sim.Time, inclusive bool) {
	limit := x.in.WallStart.UnixNano() + int64(at)
	for j := range x.next {
		for x.next[j] != 0 && (x.next[j] < limit || inclusive && x.next[j] == limit) {
			s := x.next[j]
			k := slotID{j, s}
			done, seen := x.early[k]
			delete(x.early, k)
			if x.nLead > 0 {
				x.dueLed++
				if !done {
					x.pending[k] = &lostSlot{k: k, at: x.in.trueTimeOf(s), started: seen}
				}
			}
			x.next[j] = x.nextSlot(j, s)
		}
	}
}

// observe takes one record.
func (x *execState) observe(r *sim.Record) {
	x.judgeUntil(r.At, false)
	switch r.Type {
	case sim.RecLead:
		x.setLeading(r.Node, true)
	case sim.RecStepDown:
		x.setLeading(r.Node, false)
	case sim.RecCrash:
		for i := 0; i < len(x.open); {
			if x.open[i].node == r.Node {
				x.end(i, r.At)
				continue
			}
			i++
		}
	case sim.RecEffect:
		x.effect(r)
	}
}

func (x *execState) setLeading(n sim.NodeID, on bool) {
	if !x.isCand[n] {
		return
	}
	for int(n) >= len(x.leading) {
		x.leading = append(x.leading, false)
	}
	if x.leading[n] != on {
		x.leading[n] = on
		if on {
			x.nLead++
		} else {
			x.nLead--
		}
	}
}

// judged reports whether slot k's due time has been judged for lost_slot.
func (x *execState) judged(k slotID) bool {
	return k.job >= len(x.next) || k.slot <= x.cursorOf(k.job)
}

// cursorOf is the last judged instant of job j: before its next slot.
func (x *execState) cursorOf(j int) int64 {
	if x.next[j] == 0 {
		return 1<<63 - 1
	}
	return x.next[j] - 1
}

func (x *execState) effect(r *sim.Record) {
	x.workers.observe(r)
	ex := r.Exec()
	k := slotID{ex.Job, ex.Slot}
	x.unfinished.observe(r, k, !x.started[k])
	switch r.Fact {
	case sim.FactExecStarted:
		ru := openRun{node: r.Node, run: ex.Exec, job: k.job, slot: k.slot, start: r.At}
		var f *overlapFound
		for _, o := range x.open {
			if o.job == ru.job {
				if f == nil {
					x.overlaps = append(x.overlaps, overlapFound{a: o, b: ru})
					f = &x.overlaps[len(x.overlaps)-1]
				}
				f.partners = append(f.partners, runID{o.node, o.run})
			}
		}
		x.open = append(x.open, ru)
		if !x.started[k] {
			x.started[k] = true
			x.started1++
			if late := r.At.Sub(x.in.trueTimeOf(k.slot)); late > x.in.Exec.StartDeadline {
				x.lates = append(x.lates, lateFound{r: ru, late: late})
			}
		}
		if p := x.pending[k]; p != nil {
			p.started = true
		} else if _, seen := x.early[k]; !seen && !x.judged(k) {
			x.early[k] = false
		}
	case sim.FactExecCompleted, sim.FactExecFailed:
		if r.Fact == sim.FactExecCompleted {
			if x.pending[k] != nil {
				delete(x.pending, k)
			} else if !x.judged(k) {
				x.early[k] = true
			}
		}
		for i := range x.open {
			if x.open[i].node == r.Node && x.open[i].run == ex.Exec {
				x.end(i, r.At)
				break
			}
		}
	}
}

// end closes open run i at at, and the overlaps it ends: its own, and
// those whose last partner it was.
func (x *execState) end(i int, at sim.Time) {
	o := x.open[i]
	id := runID{o.node, o.run}
	for k := range x.overlaps {
		f := &x.overlaps[k]
		if f.ended {
			continue
		}
		if f.b.node == o.node && f.b.run == o.run {
			f.end, f.ended = at, true
			continue
		}
		for p, q := range f.partners {
			if q == id {
				f.partners = append(f.partners[:p], f.partners[p+1:]...)
				if len(f.partners) == 0 {
					f.end, f.ended = at, true
				}
				break
			}
		}
	}
	x.open = append(x.open[:i], x.open[i+1:]...)
}

// finish judges the rest of the window and closes what is still open at
// the end of the trace.
func (x *execState) finish(end sim.Time) {
	x.judgeUntil(end, true)
	if to := x.in.CronTo; !to.IsZero() && x.in.trueTimeOf(to.UnixNano()) > end { // slots due after the trace's last record, up to CronTo
		x.judgeUntil(x.in.trueTimeOf(to.UnixNano()), true)
	}
	kept := x.overlaps[:0]
	for _, f := range x.overlaps {
		if !f.ended {
			f.end, f.ended = end, true
		}
		if f.end > f.b.start { // a positive stretch of time together
			f.partners = nil
			kept = append(kept, f)
		}
	}
	x.overlaps = kept
}

// lost lists the slots of the window (Input.CronFrom, Input.CronTo]
// judged due while a scheduler led that no run completed, by due time then
// job.
func (x *execState) lost() []*lostSlot {
	out := make([]*lostSlot, 0, len(x.pending))
	from, to := x.in.CronFrom.UnixNano(), x.in.CronTo.UnixNano()
	for _, p := range x.pending { // collected then sorted: order cannot leak
		if p.k.slot > from && p.k.slot <= to {
			out = append(out, p)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].k.slot != out[j].k.slot {
			return out[i].k.slot < out[j].k.slot
		}
		return out[i].k.job < out[j].k.job
	})
	return out
}
