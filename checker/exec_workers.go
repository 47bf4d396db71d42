package checker

import (
	"fmt"
	"sort"
	"strings"

	"github.com/electsim/electsim/sim"
)

// MaxWorkersReported bounds Report.Workers: the first this many nodes
// that did queue work, by node ID; Report.WorkersOmitted counts the rest.
// The counters themselves are one small entry per node (bounded by the
// scenario's node limit), never per execution or per second.
const MaxWorkersReported = 64

// recentExecs is how many of a worker's latest executions a redelivery
// is matched against: a worker holds one message at a time, so the
// message the queue delivers again is its current one, or, if it crashed
// and took others since restarting, one of its last few.
const recentExecs = 4

// WorkerExecs counts what one node did as a queue-mode worker, from the
// typed execution facts of the run: messages taken (FactExecStarted),
// heartbeats sent (FactExecHeartbeat), acknowledgements sent
// (FactExecAcked), messages it held that the queue delivered again after
// their visibility timeout (FactExecRedelivered, matched to the worker
// whose latest executions include it), and runs completed and failed.
// A reviewer reads from them why a slot ran twice: a worker that took a
// message, stopped heartbeating and acknowledging, and lost it to the
// visibility timeout, beside the worker that took it next.
type WorkerExecs struct {
	Node                                                     sim.NodeID
	Name                                                     string
	Taken, Heartbeats, Acked, Redelivered, Completed, Failed int
}

// String renders the counts: "w1: taken 2, heartbeats 5, acked 1,
// redelivered 1, completed 2, failed 0".
func (w WorkerExecs) String() string {
	return fmt.Sprintf("%s: taken %d, heartbeats %d, acked %d, redelivered %d, completed %d, failed %d",
		w.Name, w.Taken, w.Heartbeats, w.Acked, w.Redelivered, w.Completed, w.Failed)
}

// workerTally is one node's counters and its latest executions.
type workerTally struct {
	WorkerExecs
	recent [recentExecs]heldExec // newest at recent[(next-1)%recentExecs]
	next   int
}

// heldExec is an execution a worker began heartbeating, and when (the
// order of first heartbeats over every worker).
type heldExec struct {
	exec, order int64
}

// workerCounts follows the execution facts per worker node.
type workerCounts struct {
	byNode map[sim.NodeID]*workerTally // lookups only; output is sorted
	order  int64                       // first heartbeats seen so far
	redel  []Redelivery                // the first MaxRedeliveriesReported
	nRedel int
}

// MaxRedeliveriesReported bounds Report.Redeliveries: a message past its
// visibility timeout on every delivery comes back forever.
const MaxRedeliveriesReported = 1000

// Redelivery is a message the queue delivered again after its visibility
// timeout (FactExecRedelivered), with the worker that held it (sim.None
// if none is known) and the slot of its execution.
type Redelivery struct {
	At     sim.Time
	Holder sim.NodeID
	Exec   int64
	Job    int
	Slot   int64
}

func (wc *workerCounts) of(n sim.NodeID) *workerTally {
	if wc.byNode == nil {
		wc.byNode = map[sim.NodeID]*workerTally{}
	}
	t := wc.byNode[n]
	if t == nil {
		t = &workerTally{WorkerExecs: WorkerExecs{Node: n}}
		wc.byNode[n] = t
	}
	return t
}

// observe counts one effect record with an execution fact.
func (wc *workerCounts) observe(r *sim.Record) {
	switch r.Fact {
	case sim.FactExecStarted:
		wc.of(r.Node).Taken++
	case sim.FactExecHeartbeat:
		t := wc.of(r.Node)
		t.Heartbeats++
		if exec := r.Exec().Exec; t.next == 0 || t.recent[(t.next-1)%recentExecs].exec != exec {
			wc.order++
			t.recent[t.next%recentExecs] = heldExec{exec: exec, order: wc.order}
			t.next++
		}
	case sim.FactExecAcked:
		wc.of(r.Node).Acked++
	case sim.FactExecCompleted:
		wc.of(r.Node).Completed++
	case sim.FactExecFailed:
		wc.of(r.Node).Failed++
	case sim.FactExecRedelivered:
		x := r.Exec()
		rd := Redelivery{At: r.At, Holder: sim.None, Exec: x.Exec, Job: x.Job, Slot: x.Slot}
		if t := wc.holder(x.Exec); t != nil {
			t.Redelivered++
			rd.Holder = t.Node
		}
		wc.nRedel++
		if len(wc.redel) < MaxRedeliveriesReported {
			wc.redel = append(wc.redel, rd)
		}
	}
}

// holder is the worker that most recently began heartbeating execution
// exec (among each worker's last recentExecs executions), or nil: after a
// redelivery the message's holder is whoever took it last.
func (wc *workerCounts) holder(exec int64) *workerTally {
	var best *workerTally
	var bestOrder int64
	for _, t := range wc.byNode { // the maximum of distinct orders: order cannot leak
		for i := 0; i < recentExecs && i < t.next; i++ {
			if h := t.recent[i]; h.exec == exec && h.order > bestOrder {
				best, bestOrder = t, h.order
			}
		}
	}
	return best
}

// report lists the counters by node ID, at most MaxWorkersReported, and
// how many nodes it left out.
func (wc *workerCounts) report(name func(sim.NodeID) string) ([]WorkerExecs, int) {
	out := make([]WorkerExecs, 0, len(wc.byNode))
	for _, t := range wc.byNode { // collected then sorted: order cannot leak
		w := t.WorkerExecs
		w.Name = name(w.Node)
		out = append(out, w)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Node < out[j].Node })
	if len(out) > MaxWorkersReported {
		return out[:MaxWorkersReported], len(out) - MaxWorkersReported
	}
	return out, 0
}

// workersText renders the counters of nodes, each once, in the order
// first given.
func (c *checker) workersText(nodes []sim.NodeID) string {
	if c.exec == nil {
		return ""
	}
	var parts []string
	var told []sim.NodeID
	for _, n := range nodes {
		if involved(told, n) {
			continue
		}
		told = append(told, n)
		if t := c.exec.workers.byNode[n]; t != nil {
			w := t.WorkerExecs
			w.Name = c.in.name(n)
			parts = append(parts, w.String())
		}
	}
	return strings.Join(parts, "; ")
}

// execText renders queue mode's execution facts about the given slots
// for a story: the queue delivering a message again, the store declaring
// an execution dead, and a worker's acknowledgement and completion (the
// starts are told as cron runs, FactRunStarted).
func (c *checker) execText(r *sim.Record, nodes []sim.NodeID, slots []slotID) string {
	switch r.Fact {
	case sim.FactExecRedelivered, sim.FactExecDead, sim.FactExecAcked, sim.FactExecCompleted, sim.FactExecFailed:
	default:
		return ""
	}
	x := r.Exec()
	mine := false
	for _, s := range slots {
		mine = mine || s == slotID{x.Job, x.Slot}
	}
	if !mine {
		return ""
	}
	name := c.slotName(x.Job, x.Slot)
	switch r.Fact {
	case sim.FactExecRedelivered:
		return fmt.Sprintf("the queue delivered the message of execution %d of %s again: unacknowledged past its visibility timeout", x.Exec, name)
	case sim.FactExecDead:
		return fmt.Sprintf("the execution store declared execution %d of %s dead", x.Exec, name)
	case sim.FactExecAcked:
		if !involved(nodes, r.Node) {
			return ""
		}
		return fmt.Sprintf("%s acknowledged execution %d of %s", c.in.name(r.Node), x.Exec, name)
	}
	if !involved(nodes, r.Node) {
		return ""
	}
	if r.Fact == sim.FactExecFailed {
		return fmt.Sprintf("%s's run of %s failed and stopped", c.in.name(r.Node), name)
	}
	return fmt.Sprintf("%s completed its execution of %s", c.in.name(r.Node), name)
}
