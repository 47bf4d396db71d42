package checker_test

// The oracle's linearizability checks: a brute-force search for an order of
// the operations that respects real time (an operation that returned
// strictly before another was called comes first; operations that touch are
// concurrent, as in porcupine) and that the model accepts step by step. For
// both models the state after a legal prefix depends only on which
// operations it holds, not on their order, so the legality of the next
// operation is a function of that set and a set that led nowhere need not
// be tried twice.

import (
	"fmt"

	"github.com/electsim/electsim/cron"
	"github.com/electsim/electsim/sim"
)

// oOp is an operation's real-time interval.
type oOp struct{ call, ret sim.Time }

// linearizable searches for a legal order of ops; legal(done, i) says
// whether op i may come next after the set done. Ops of one class (the
// same interval and the same effect on the model) are interchangeable, so
// only the first of a class still to do is tried.
func linearizable(ops []oOp, class []string, legal func(done []bool, i int) bool) bool {
	done := make([]bool, len(ops))
	failed := map[string]bool{}
	key := func() string {
		b := make([]byte, len(done))
		for i, d := range done {
			if d {
				b[i] = 1
			}
		}
		return string(b)
	}
	var search func(left int) bool
	search = func(left int) bool {
		if left == 0 {
			return true
		}
		k := key()
		if failed[k] {
			return false
		}
		for i := range ops {
			if done[i] {
				continue
			}
			twin := false
			for j := 0; j < i; j++ {
				twin = twin || (!done[j] && class[j] == class[i])
			}
			if twin {
				continue
			}
			eligible := true // nothing left returned before i was called
			for j := range ops {
				if !done[j] && j != i && ops[j].ret < ops[i].call {
					eligible = false
				}
			}
			if !eligible || !legal(done, i) {
				continue
			}
			done[i] = true
			ok := search(left - 1)
			done[i] = false
			if ok {
				return true
			}
		}
		failed[k] = true
		return false
	}
	return search(len(ops))
}

// oracleLeaderLinearizable decides whether the tenures form a lock history:
// each tenure acquires at its start and, unless it lasted to the end,
// releases at its end. Acquire needs the lock free; release needs the
// caller to hold it. After a legal prefix the lock is held by the node that
// acquired more often than it released, if any.
func oracleLeaderLinearizable(ts []oTenure) bool {
	type lockOp struct {
		node    sim.NodeID
		acquire bool
	}
	var ops []oOp
	var what []lockOp
	var class []string
	for _, t := range ts {
		ops = append(ops, oOp{t.start, t.start})
		what = append(what, lockOp{t.node, true})
		class = append(class, fmt.Sprint(t.start, t.node, true))
		if !t.open {
			ops = append(ops, oOp{t.end, t.end})
			what = append(what, lockOp{t.node, false})
			class = append(class, fmt.Sprint(t.end, t.node, false))
		}
	}
	holds := func(done []bool, node sim.NodeID) bool {
		n := 0
		for i, d := range done {
			if d && what[i].node == node {
				if what[i].acquire {
					n++
				} else {
					n--
				}
			}
		}
		return n > 0
	}
	return linearizable(ops, class, func(done []bool, i int) bool {
		if !what[i].acquire {
			return holds(done, what[i].node)
		}
		for _, w := range what {
			if holds(done, w.node) {
				return false
			}
		}
		return true
	})
}

// oracleResourceIllegal counts the partitions of the resource history that
// are not linearizable as a fenced store: a store that applies a slot's
// writes from one run only and never applies a token lower than one it
// applied before in the partition; rejecting is always legal. Partitions
// are the fencing scopes when the policy fences, else the slots. A write
// runs from when it was sent (sent[i]) to the resource's decision.
func oracleResourceIllegal(log []cron.LogEntry, sent []sim.Time, p cron.Policy) int {
	type part struct {
		job  int
		slot int64
	}
	partOf := func(e cron.LogEntry) part {
		switch {
		case p.Fencing && p.FencingScope == "global":
			return part{job: -1}
		case p.Fencing:
			return part{job: e.JobIndex}
		}
		return part{job: e.JobIndex, slot: e.Slot}
	}
	var parts []part
	for _, e := range log {
		k, seen := partOf(e), false
		for _, q := range parts {
			seen = seen || q == k
		}
		if !seen {
			parts = append(parts, k)
		}
	}
	illegal := 0
	for _, q := range parts {
		var ops []oOp
		var ws []cron.LogEntry
		var class []string
		for i, e := range log {
			if partOf(e) == q {
				ops = append(ops, oOp{sent[i], e.At})
				ws = append(ws, e)
				class = append(class, fmt.Sprint(sent[i], e.At, e.Accepted, e.JobIndex, e.Slot, e.Node, e.Run, e.Token))
			}
		}
		ok := linearizable(ops, class, func(done []bool, i int) bool {
			w := ws[i]
			if !w.Accepted {
				return true
			}
			for j, d := range done {
				v := ws[j]
				if !d || !v.Accepted {
					continue
				}
				if v.Token > w.Token {
					return false
				}
				if v.JobIndex == w.JobIndex && v.Slot == w.Slot && (v.Node != w.Node || v.Run != w.Run) {
					return false
				}
			}
			return true
		})
		if !ok {
			illegal++
		}
	}
	return illegal
}
