package contracttest

import (
	"time"

	"github.com/electsim/electsim/registry"
	"github.com/electsim/electsim/sim"
)

// tagLate is the planted bug's own timer tag (no wrapped algorithm uses it).
const tagLate = 1 << 20

// lateNode plants a bug into a correct algorithm: every time the node stops
// leading it keeps acting as leader for another extra of its monotonic
// time (as a leader that serves one more CheckQuorum period before it
// notices it lost its quorum would), then reports the step-down.
type lateNode struct {
	sim.Node
	extra time.Duration
	env   *lateEnv
}

// lateEnv delays StopLeading by extra.
type lateEnv struct {
	sim.Env
	extra   time.Duration
	pending sim.TimerID
	why     string
}

func (e *lateEnv) StopLeading(why string) {
	e.CancelTimer(e.pending)
	e.why = why
	e.pending = e.SetTimer(e.extra, tagLate)
}

func (e *lateEnv) ActAsLeader(epoch, token int64) {
	e.flush()
	e.Env.ActAsLeader(epoch, token)
}

// flush reports a delayed step-down now.
func (e *lateEnv) flush() {
	if e.CancelTimer(e.pending) {
		e.Env.StopLeading(e.why)
	}
}

func (n *lateNode) Start(env sim.Env, restored []byte) {
	n.env = &lateEnv{Env: env, extra: n.extra}
	n.Node.Start(n.env, restored)
}

func (n *lateNode) OnTimer(id sim.TimerID, tag int) {
	if tag == tagLate {
		if id == n.env.pending {
			n.env.pending = 0
			n.env.Env.StopLeading(n.env.why)
		}
		return
	}
	n.Node.OnTimer(id, tag)
}

// late returns base renamed name, whose nodes step down extra late, with
// base's contract: the bug is in the implementation, not in what it claims.
func late(base registry.Algorithm, name string, extra time.Duration) registry.Algorithm {
	a := base
	a.Name, a.Doc = name, "planted bug: "+base.Doc+" stepping down late"
	a.Build = func(v registry.Values, n int, r *sim.Rand) (registry.Factory, error) {
		f, err := base.Build(v, n, r)
		if err != nil {
			return nil, err
		}
		return func(p []sim.NodeID, svc registry.Services) sim.Node {
			return &lateNode{Node: f(p, svc), extra: extra}
		}, nil
	}
	return a
}
