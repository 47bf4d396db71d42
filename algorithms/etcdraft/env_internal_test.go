package etcdraft

import (
	"time"

	"github.com/electsim/electsim/sim"
)

// fakeEnv is a hand-driven sim.Env: the test fires the tick timer itself and
// inspects what the node sent and persisted.
type fakeEnv struct {
	id        sim.NodeID
	rng       *sim.Rand
	nextTimer sim.TimerID
	sent      []sim.Message
	persisted [][]byte
	leads     []int64
}

func (e *fakeEnv) ID() sim.NodeID     { return e.id }
func (e *fakeEnv) Name() string       { return "fake" }
func (e *fakeEnv) Now() time.Duration { return 0 }
func (e *fakeEnv) Wall() time.Time    { return sim.DefaultWallStart }
func (e *fakeEnv) WallNanos() int64   { return sim.DefaultWallStart.UnixNano() }
func (e *fakeEnv) Send(m sim.Message) { e.sent = append(e.sent, m) }
func (e *fakeEnv) Persist(data []byte) {
	e.persisted = append(e.persisted, append([]byte(nil), data...))
}
func (e *fakeEnv) Rand() *sim.Rand                 { return e.rng }
func (e *fakeEnv) StopLeading(string)              {}
func (e *fakeEnv) Effect(sim.Effect)               {}
func (e *fakeEnv) ActAsLeader(ep, _ int64)         { e.leads = append(e.leads, ep) }
func (e *fakeEnv) BelieveLeader(sim.NodeID, int64) {}
func (e *fakeEnv) CancelTimer(sim.TimerID) bool    { return true }
func (e *fakeEnv) ResetTimer(sim.TimerID, time.Duration) bool {
	return true
}
func (e *fakeEnv) SetTimer(time.Duration, int) sim.TimerID {
	e.nextTimer++
	return e.nextTimer
}

// tick fires the node's tick timer once.
func (e *fakeEnv) tick(n *Node) { n.OnTimer(n.tick, tagTick) }
