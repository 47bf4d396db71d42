package checker

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/electsim/electsim/cron"
	"github.com/electsim/electsim/sim"
)

// --- leadership as a lock ---

// lockOp is what a leadership operation does.
type lockOp uint8

const (
	// lockAcquire: the node started acting as leader (takes the lock).
	lockAcquire lockOp = iota + 1
	// lockRelease: the node stopped acting as leader (releases it).
	lockRelease
	// lockHold is a whole tenure as one operation (acquire and release at
	// once). It exists to show why the checker does not use it: porcupine
	// may place it anywhere in [start, end], so overlapping tenures
	// linearize and split-brain is hidden.
	lockHold
)

// lockInput is the input of a leadership operation.
type lockInput struct {
	op           lockOp
	node         sim.NodeID
	name         string
	epoch, token int64
}

// lockModel is a mutual-exclusion lock: its state is the holder (sim.None
// when free). Acquire needs it free, release needs the caller to hold it.
func lockModel(names func(sim.NodeID) string) porcupine.Model {
	return porcupine.Model{
		Init: func() interface{} { return sim.None },
		Step: func(state, input, _ interface{}) (bool, interface{}) {
			holder := state.(sim.NodeID)
			in := input.(lockInput)
			switch in.op {
			case lockAcquire:
				return holder == sim.None, in.node
			case lockRelease:
				return holder == in.node, sim.None
			case lockHold:
				return holder == sim.None, sim.None
			}
			return false, state
		},
		DescribeOperation: func(input, _ interface{}) string {
			in := input.(lockInput)
			switch in.op {
			case lockAcquire:
				return fmt.Sprintf("%s acquire (epoch %d, token %d)", in.name, in.epoch, in.token)
			case lockRelease:
				return fmt.Sprintf("%s release (epoch %d)", in.name, in.epoch)
			default:
				return fmt.Sprintf("%s tenure (epoch %d) as one operation", in.name, in.epoch)
			}
		},
		DescribeState: func(state interface{}) string {
			h := state.(sim.NodeID)
			if h == sim.None {
				return "free"
			}
			return "held by " + names(h)
		},
	}
}

// leadershipOps turns tenures into lock operations: each tenure is an
// acquire at its start and, unless it lasted to the end, a release at its
// end — two instantaneous operations, so overlapping tenures cannot be
// linearized.
func leadershipOps(tl *timeline, name func(sim.NodeID) string) []porcupine.Operation {
	var ops []porcupine.Operation
	for i := range tl.tenures {
		t := &tl.tenures[i]
		in := lockInput{op: lockAcquire, node: t.node, name: name(t.node), epoch: t.epoch, token: t.token}
		ops = append(ops, porcupine.Operation{ClientId: clientOf(t.node), Input: in, Call: int64(t.start), Return: int64(t.start)})
		if !t.open() {
			in.op = lockRelease
			ops = append(ops, porcupine.Operation{ClientId: clientOf(t.node), Input: in, Call: int64(t.end), Return: int64(t.end)})
		}
	}
	return ops
}

// --- the resource as a fenced store ---

// writeInput is a write the resource received; the output is whether it
// applied it.
type writeInput struct {
	idx   int // log index
	job   int
	slot  int64
	step  int
	token int64
	node  sim.NodeID
	run   int64
	desc  string // "n2 run 5 daily-report@… step 0 token 6"
	why   string // the resource's reason
}

// slotOwner records which run a slot was applied from.
type slotOwner struct {
	job  int
	slot int64
	node sim.NodeID
	run  int64
}

// storeState is the fenced store's state in one partition. It is never
// mutated: Step returns a new value, sharing what did not change.
type storeState struct {
	has     bool
	highest int64
	owners  owners
}

// fencedStoreModel is the safety specification of the resource: it applies
// a slot's writes from at most one run, and never applies a token lower than
// one it applied before in the partition (the fencing scope, or the slot).
// Rejecting is always allowed: the model judges what was applied.
func fencedStoreModel(names func(sim.NodeID) string, partition func([]porcupine.Operation) [][]porcupine.Operation) porcupine.Model {
	return fencedStoreModelFrom(names, partition, storeState{})
}

// fencedStoreModelFrom is fencedStoreModel starting from init: the state a
// partition has reached before the segment of its history being checked.
func fencedStoreModelFrom(names func(sim.NodeID) string, partition func([]porcupine.Operation) [][]porcupine.Operation, init storeState) porcupine.Model {
	return porcupine.Model{
		Partition: partition,
		Init:      func() interface{} { return init },
		Step: func(state, input, output interface{}) (bool, interface{}) {
			s := state.(storeState)
			in := input.(writeInput)
			if !output.(bool) {
				return true, s
			}
			if s.has && in.token < s.highest {
				return false, s
			}
			o, found := s.owners.find(in.job, in.slot)
			if found && (o.node != in.node || o.run != in.run) {
				return false, s
			}
			return true, s.applyFound(in, found)
		},
		Equal: func(a, b interface{}) bool {
			x, y := a.(storeState), b.(storeState)
			return x.has == y.has && x.highest == y.highest && x.owners.equal(y.owners)
		},
		DescribeOperation: func(input, output interface{}) string {
			in := input.(writeInput)
			if output.(bool) {
				return in.desc + " → applied"
			}
			return in.desc + " → rejected (" + in.why + ")"
		},
		DescribeState: func(state interface{}) string {
			s := state.(storeState)
			if !s.has {
				return "nothing applied"
			}
			var b strings.Builder
			fmt.Fprintf(&b, "highest token %d", s.highest)
			i := 0
			s.owners.each(func(o slotOwner) bool {
				if i == 4 {
					fmt.Fprintf(&b, "; … %d more slots", s.owners.size-4)
					return false
				}
				i++
				fmt.Fprintf(&b, "; slot %d@%d by %s run@%v", o.job, o.slot, names(o.node), time.Duration(o.run))
				return true
			})
			return b.String()
		},
	}
}

// writeDesc describes a write for porcupine's visualization and for
// violations.
func writeDesc(e *cron.LogEntry, name func(sim.NodeID) string) string {
	// A run's ID is its node's monotonic reading when it started: shown as
	// that time, not as nanoseconds.
	return fmt.Sprintf("%s run@%v %s step %d token %d", name(e.Node), time.Duration(e.Run), cron.SlotName(e.Job, e.Slot), e.Step, e.Token)
}

// clientOf is node's client number in porcupine's histories: its ID + 1,
// so porcupine's client 1 is n1 (scenarios name candidates n1…nN for IDs
// 0…N−1) rather than client 0.
func clientOf(node sim.NodeID) int { return int(node) + 1 }

// advance applies a segment's applied writes to s in the order the
// resource decided them, without judging them. After a linearizable segment
// the result is the only state any linearization reaches: the highest
// token is a maximum and the owners a union with one run per slot, whatever
// the order; after an illegal one it is the resource's own view.
func (s storeState) advance(seg []porcupine.Operation) storeState {
	order := make([]int, len(seg))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return seg[order[a]].Return < seg[order[b]].Return })
	for _, k := range order {
		if !seg[k].Output.(bool) {
			continue
		}
		s = s.apply(seg[k].Input.(writeInput))
	}
	return s
}

// apply is the state after the resource applied the write, legal or not:
// the highest token is a maximum, and the slot's first run owns it.
func (s storeState) apply(in writeInput) storeState {
	_, found := s.owners.find(in.job, in.slot)
	return s.applyFound(in, found)
}

// applyFound is apply when the caller already looked up whether the slot
// has an owner (porcupine's Step, which judges by it).
func (s storeState) applyFound(in writeInput, found bool) storeState {
	if !s.has || in.token > s.highest {
		s.highest = in.token
	}
	s.has = true
	if !found {
		s.owners = s.owners.with(slotOwner{job: in.job, slot: in.slot, node: in.node, run: in.run})
	}
	return s
}

// resourceOps turns the resource log into write operations, each from the
// moment its message was sent (sentAt; -1 if unknown: the write's own time)
// to the moment the resource decided.
func resourceOps(log []cron.LogEntry, sentAt []sim.Time, name func(sim.NodeID) string) []porcupine.Operation {
	ops := make([]porcupine.Operation, 0, len(log))
	for i := range log {
		e := &log[i]
		call := e.At
		if i < len(sentAt) && sentAt[i] >= 0 && sentAt[i] <= e.At {
			call = sentAt[i]
		}
		in := writeInput{idx: i, job: e.JobIndex, slot: e.Slot, step: e.Step, token: e.Token, node: e.Node, run: e.Run, why: e.Reason,
			desc: writeDesc(e, name)}
		ops = append(ops, porcupine.Operation{ClientId: clientOf(e.Node), Input: in, Call: int64(call), Output: e.Accepted, Return: int64(e.At)})
	}
	return ops
}

// resourcePartition partitions writes by fencing scope when the policy
// fences (per job, or one partition for a global scope), else by slot. It
// returns the partitions in order of first appearance, and their names.
func resourcePartition(log []cron.LogEntry, p cron.Policy) (func([]porcupine.Operation) [][]porcupine.Operation, func([]porcupine.Operation) []string) {
	type key struct {
		job  int
		slot int64
	}
	keyOf := func(in writeInput) key {
		if p.Fencing {
			return key{job: scopeOf(p, in.job)}
		}
		return key{job: in.job, slot: in.slot}
	}
	split := func(ops []porcupine.Operation) ([][]porcupine.Operation, []string) {
		var parts [][]porcupine.Operation
		var names []string
		index := map[key]int{} // lookups only; order follows parts
		for _, op := range ops {
			in := op.Input.(writeInput)
			k := keyOf(in)
			i, ok := index[k]
			if !ok {
				i = len(parts)
				index[k] = i
				parts = append(parts, nil)
				e := &log[in.idx]
				switch {
				case !p.Fencing:
					names = append(names, cron.SlotName(e.Job, e.Slot))
				case k.job < 0:
					names = append(names, "all jobs (global fencing scope)")
				default:
					names = append(names, "job "+e.Job)
				}
			}
			parts[i] = append(parts[i], op)
		}
		return parts, names
	}
	return func(ops []porcupine.Operation) [][]porcupine.Operation { parts, _ := split(ops); return parts },
		func(ops []porcupine.Operation) []string { _, names := split(ops); return names }
}
