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
	idx int // log index
	*cron.LogEntry
}

// owner is the run that owns the write's slot once it is applied.
func (in *writeInput) owner() slotOwner {
	return slotOwner{job: in.JobIndex, slot: in.Slot, node: in.Node, run: in.Run}
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
	// base, when not nil, holds the owners the earlier segments of the
	// partition applied (checkResourceSegments without a story): it is
	// shared by every state of one segment's search and grows only between
	// segments, so owners then holds just what the segment itself added.
	// States of one search compare equal on owners alone.
	base ownerBase
}

// ownerBase is a partition's owners from its earlier segments, mutated in
// place between segments (lookups only; nothing iterates it).
type ownerBase map[slotID]slotOwner

// find returns the owner of (job, slot) in s, if any.
func (s storeState) find(job int, slot int64) (slotOwner, bool) {
	if o, ok := s.owners.find(job, slot); ok {
		return o, true
	}
	if s.base != nil {
		o, ok := s.base[slotID{job: job, slot: slot}]
		return o, ok
	}
	return slotOwner{}, false
}

// legal reports whether the fenced store may decide in as out from s: a
// rejection always, an application unless its token is below the highest
// applied or its slot was applied from another run. It also returns
// whether the slot already has an owner.
func (s storeState) legal(in *writeInput, applied bool) (ok, found bool) {
	if !applied {
		return true, false
	}
	if s.has && in.Token < s.highest {
		return false, false
	}
	o, found := s.find(in.JobIndex, in.Slot)
	if found && (o.node != in.Node || o.run != in.Run) {
		return false, true
	}
	return true, found
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
			in := input.(*writeInput)
			applied := output.(bool)
			ok, found := s.legal(in, applied)
			if !ok || !applied {
				return ok, s
			}
			return true, s.applyFound(in, found)
		},
		Equal: func(a, b interface{}) bool {
			x, y := a.(storeState), b.(storeState)
			return x.has == y.has && x.highest == y.highest && x.owners.equal(y.owners)
		},
		DescribeOperation: func(input, output interface{}) string {
			in := input.(*writeInput)
			if output.(bool) {
				return writeDesc(in.LogEntry, names) + " → applied"
			}
			return writeDesc(in.LogEntry, names) + " → rejected (" + in.Reason + ")"
		},
		DescribeState: func(state interface{}) string {
			s := state.(storeState)
			if !s.has {
				return "nothing applied"
			}
			var b strings.Builder
			fmt.Fprintf(&b, "highest token %d", s.highest)
			if len(s.base) > 0 {
				fmt.Fprintf(&b, "; %d slots applied before", len(s.base))
			}
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
// the order; after an illegal one it is the resource's own view. With a
// base the owners go into it in place (commit).
func (s storeState) advance(seg []porcupine.Operation) storeState {
	if len(seg) == 1 {
		if seg[0].Output.(bool) {
			s = s.commit(seg[0].Input.(*writeInput))
		}
		return s
	}
	order := make([]int, len(seg))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return seg[order[a]].Return < seg[order[b]].Return })
	for _, k := range order {
		if !seg[k].Output.(bool) {
			continue
		}
		s = s.commit(seg[k].Input.(*writeInput))
	}
	return s
}

// apply is the state after the resource applied the write, legal or not:
// the highest token is a maximum, and the slot's first run owns it.
func (s storeState) apply(in *writeInput) storeState {
	_, found := s.find(in.JobIndex, in.Slot)
	return s.applyFound(in, found)
}

// commit is apply for the state between segments when it has a base: the
// owner goes into the base in place (no copy), and s must not be shared
// with a state that is still in use.
func (s storeState) commit(in *writeInput) storeState {
	if s.base == nil {
		return s.apply(in)
	}
	k := slotID{job: in.JobIndex, slot: in.Slot}
	if _, found := s.base[k]; !found {
		s.base[k] = in.owner()
	}
	return s.raised(in.Token)
}

// applyFound is apply when the caller already looked up whether the slot
// has an owner (porcupine's Step, which judges by it).
func (s storeState) applyFound(in *writeInput, found bool) storeState {
	if !found {
		s.owners = s.owners.with(in.owner())
	}
	return s.raised(in.Token)
}

// raised is s after applying a write with token: the highest applied
// token is a maximum.
func (s storeState) raised(token int64) storeState {
	if !s.has || token > s.highest {
		s.highest = token
	}
	s.has = true
	return s
}

// resourceOps turns the resource log into write operations, each from the
// moment its message was sent (sentAt; -1 if unknown: the write's own time)
// to the moment the resource decided.
func resourceOps(log []cron.LogEntry, sentAt []sim.Time) []porcupine.Operation {
	ops := make([]porcupine.Operation, len(log))
	ins := make([]writeInput, len(log)) // one array: an Input points into it, boxing nothing
	for i := range log {
		e := &log[i]
		call := e.At
		if i < len(sentAt) && sentAt[i] >= 0 && sentAt[i] <= e.At {
			call = sentAt[i]
		}
		ins[i] = writeInput{idx: i, LogEntry: e}
		ops[i] = porcupine.Operation{ClientId: clientOf(e.Node), Input: &ins[i], Call: int64(call), Output: e.Accepted, Return: int64(e.At)}
	}
	return ops
}

// resourcePartition partitions writes by fencing scope when the policy
// fences (per job, or one partition for a global scope), else by slot. It
// returns the partitions in order of first appearance, and a function
// naming partition p of a split by its first operation.
func resourcePartition(p cron.Policy) (func([]porcupine.Operation) [][]porcupine.Operation, func(first porcupine.Operation) string) {
	keyOf := func(in *writeInput) slotID {
		if p.Fencing {
			return slotID{job: scopeOf(p, in.JobIndex)}
		}
		return slotID{job: in.JobIndex, slot: in.Slot}
	}
	split := func(ops []porcupine.Operation) [][]porcupine.Operation {
		// Two passes, so the partitions share one exactly sized array: a
		// month of writes split by appending cost several times its size.
		index := map[slotID]int{} // lookups only; order follows first appearance
		of := make([]int32, len(ops))
		var sizes []int
		for i, op := range ops {
			k := keyOf(op.Input.(*writeInput))
			j, ok := index[k]
			if !ok {
				j = len(sizes)
				index[k] = j
				sizes = append(sizes, 0)
			}
			of[i] = int32(j)
			sizes[j]++
		}
		all := make([]porcupine.Operation, len(ops))
		parts := make([][]porcupine.Operation, len(sizes))
		at := 0
		for j, n := range sizes {
			parts[j] = all[at : at : at+n]
			at += n
		}
		for i, op := range ops {
			parts[of[i]] = append(parts[of[i]], op)
		}
		return parts
	}
	name := func(first porcupine.Operation) string {
		e := first.Input.(*writeInput)
		switch {
		case !p.Fencing:
			return cron.SlotName(e.Job, e.Slot)
		case scopeOf(p, e.JobIndex) < 0:
			return "all jobs (global fencing scope)"
		default:
			return "job " + e.Job
		}
	}
	return split, name
}
