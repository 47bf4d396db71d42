package cron

import "github.com/electsim/electsim/sim"

// ForgetFencingOnRestart plants a resource bug in r: it keeps the highest
// accepted token per fencing scope in memory only, so a restart forgets
// it and the next write, however old its token, sets it afresh. The
// fencing argument (Kleppmann, "How to do distributed locking", 2016;
// DDIA §8 "Fencing tokens") needs the storage to remember the highest
// token it has seen durably, which the real resource does (its state
// survives its own crash). It is a test hook for internal/bugzoo only: no
// scenario key reaches it, and while it is off a restart pays one boolean
// test.
func (r *Resource) ForgetFencingOnRestart() { r.zooAmnesia = true }

// zooForget drops the fencing table (ForgetFencingOnRestart).
func (r *Resource) zooForget() { clear(r.highest) }

// FenceByRow plants a second resource bug in r: the fencing check compares
// a write's token only with the highest token applied to the same slot
// (a conditional update on the slot's own row, UPDATE … WHERE slot = ?
// AND token <= ?), not with the highest the fencing scope has seen, so a
// deposed leader's write to a slot its successor never touched is
// applied. A test hook for internal/bugzoo only: no scenario key reaches
// it, and while it is off a write pays two boolean tests.
func (r *Resource) FenceByRow() {
	r.zooRowFence = true
	if r.zooRowHigh == nil {
		r.zooRowHigh = map[slotKey]int64{}
	}
}

// IdempotencyPerClient plants a third resource bug in r: the idempotency
// key names the writing node as well as (job, fire time, step) — a
// client-generated request ID, unique per client — so the same step
// written by two leaders is applied twice. A test hook for
// internal/bugzoo only: no scenario key reaches it, and while it is off
// an idempotency check pays one boolean test.
func (r *Resource) IdempotencyPerClient() {
	r.zooIdemByNode = true
	if r.zooApplied == nil {
		r.zooApplied = map[zooNodeStep]bool{}
	}
}

// zooNodeStep is IdempotencyPerClient's key: a step and its writer.
type zooNodeStep struct {
	stepKey
	node sim.NodeID
}

// duplicate reports whether the idempotency rule rejects a write of k
// from node: k was applied before (from node alone, with the planted
// IdempotencyPerClient bug).
func (r *Resource) duplicate(k stepKey, node sim.NodeID) bool {
	if r.zooIdemByNode {
		return r.zooApplied[zooNodeStep{k, node}]
	}
	return r.applied[k]
}

// LoseOneSlotIn plants a fourth resource bug in r: of every n slots it
// receives writes for, in the order it first hears of them, it
// acknowledges every write of the n-th as applied and keeps none of them
// (a write-behind store that drops one batch in n), so the slot is missed
// with no fault at all. A test hook for internal/bugzoo only: no scenario
// key reaches it, and while it is off a write pays one integer test.
func (r *Resource) LoseOneSlotIn(n int) {
	r.zooLoseEvery = n
	if r.zooLost == nil {
		r.zooLost = map[slotKey]bool{}
	}
}

// zooLose reports whether LoseOneSlotIn drops slot's writes.
func (r *Resource) zooLose(slot slotKey) bool {
	if lost, ok := r.zooLost[slot]; ok {
		return lost
	}
	r.zooSlots++
	lost := r.zooSlots%r.zooLoseEvery == 0
	r.zooLost[slot] = lost
	return lost
}
