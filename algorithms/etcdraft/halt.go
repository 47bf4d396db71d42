package etcdraft

import (
	"go.etcd.io/raft/v3"

	"github.com/electsim/electsim/sim"
)

// EffectPanic is the effect a node records when the library panics on a
// broken invariant and the node halts; Detail is the library's message.
const EffectPanic = "etcdraft.panic"

// recoverLib is deferred by every handler. A library panic raised through the
// logger (libPanic) halts the node, as the panic would end an etcd process:
// this is how losing durable state shows up (with Persist off, or after a
// restart with a wiped disk, the leader's heartbeat commits past the
// follower's log: "tocommit(…) is out of range"). Other panics are bugs and
// propagate.
func (n *Node) recoverLib() {
	v := recover()
	if v == nil {
		return
	}
	p, ok := v.(libPanic)
	if !ok {
		panic(v)
	}
	n.halt(string(p))
}

// halt stops the node for good (until the engine restarts it after a crash):
// no more ticks, messages are ignored.
func (n *Node) halt(why string) {
	n.halted = why
	n.rn = nil
	n.state = raft.StateFollower
	n.env.CancelTimer(n.tick)
	if n.leading {
		n.leading = false
		n.env.StopLeading("raft panic")
	}
	n.env.Effect(sim.Effect{Name: EffectPanic, Detail: why, A: int64(n.term)})
	if n.belief != sim.None {
		n.belief, n.lead = sim.None, 0
		n.env.BelieveLeader(sim.None, int64(n.term))
	}
}

// Halted returns the library's panic message if the node halted, else "".
func (n *Node) Halted() string { return n.halted }
