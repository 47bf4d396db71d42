package sim_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/sim"
)

// crashRig: n1 is a sender, n2 a probe that persists "gen<starts>" at every
// start, counts handlers in its volatile state and arms a 20 ms timer tagged
// with its start count. Latency is a constant 10 ms.
func crashRig(plan []sendPlan, opts ...sim.NodeOption) (*sim.Sim, *probeLog, *sim.Recorder, sim.NodeID) {
	s := sim.New(sim.Config{Link: sim.LinkConfig{Latency: sim.Constant(10 * time.Millisecond)}})
	rec := &sim.Recorder{}
	s.AddSink(rec)
	s.AddNode("n1", sender(&probeLog{s: s}, plan))
	l := &probeLog{s: s}
	p := newProbe(l)
	p.onStart = func(p *probe, _ []byte) {
		p.env.Persist([]byte{'g', 'e', 'n', byte('0' + l.starts - 1)})
		p.set(20*time.Millisecond, l.starts-1)
	}
	id := s.AddNode("n2", p, opts...)
	return s, l, rec, id
}

// docs/engine.md, "Crash and restart": the restarted node's Start gets what was
// durably persisted and a rebuilt struct (no volatile state survives), the
// dead incarnation's timers never fire, and messages in flight to the old
// incarnation are dropped as DropDestDown even though the node is up again
// when they arrive; a message sent to the new incarnation is delivered.
func TestCrashRestartRebuildsVolatileKeepsDurable(t *testing.T) {
	plan := []sendPlan{
		{1 * time.Millisecond, 1, 1},  // arrives 11 ms: delivered to incarnation 0
		{5 * time.Millisecond, 1, 2},  // in flight across crash (12 ms) and restart (14 ms): dropped at 15 ms
		{13 * time.Millisecond, 1, 3}, // sent while down, arrives 23 ms after the restart: delivered
		{30 * time.Millisecond, 1, 4}, // arrives 40 ms: delivered
	}
	s, l, rec, id := crashRig(plan)
	var volatileBefore int
	s.At(ms(12), func() {
		volatileBefore = s.Node(id).(*probe).Volatile
		s.Crash(id)
		require.False(t, s.IsUp(id))
	})
	s.At(ms(14), func() {
		s.Restart(id, true)
		require.True(t, s.IsUp(id))
		require.Zero(t, s.Node(id).(*probe).Volatile, "Start rebuilt the node")
	})
	require.Equal(t, sim.OutcomeQuiescent, s.Run())
	require.Equal(t, 1, volatileBefore)

	starts := l.of("start")
	require.Len(t, starts, 2)
	require.Equal(t, "", starts[0].Restore)
	require.Equal(t, "gen0", starts[1].Restore, "the restart sees the durable state")
	require.Equal(t, []byte("gen1"), s.Durable(id))

	var got []int64
	for _, m := range l.of("msg") {
		got = append(got, m.A)
	}
	require.Equal(t, []int64{1, 3, 4}, got)

	// Timer tag 0 (due 20 ms) died with the crash; tag 1 fires at 14+20 ms.
	timers := l.of("timer")
	require.Len(t, timers, 1)
	require.Equal(t, 1, timers[0].Tag)
	require.Equal(t, ms(34), timers[0].At)

	drops := records(rec, sim.RecDrop, id)
	require.Len(t, drops, 1)
	require.Equal(t, sim.DropDestDown, drops[0].Reason)
	require.Equal(t, ms(15), drops[0].At)
	require.Equal(t, ms(5), drops[0].SentAt)

	starts2 := records(rec, sim.RecStart, id)
	require.Len(t, starts2, 2)
	require.Equal(t, int64(1), starts2[1].A, "restart flag")
	require.Equal(t, "restored", starts2[1].Detail)
	require.Len(t, records(rec, sim.RecCrash, id), 1)
}

// A message that arrives while its destination is down is dropped as
// DropDestDown; a node added with StartDown is down until Restart.
func TestCrashMessagesToDownNodeDropped(t *testing.T) {
	plan := []sendPlan{{1 * time.Millisecond, 1, 1}, {30 * time.Millisecond, 1, 2}, {50 * time.Millisecond, 1, 3}}
	s, l, rec, id := crashRig(plan, sim.StartDown())
	s.At(ms(55), func() { s.Restart(id, true) })
	require.Equal(t, sim.OutcomeQuiescent, s.Run())
	drops := records(rec, sim.RecDrop, id)
	require.Len(t, drops, 2)
	for _, d := range drops {
		require.Equal(t, sim.DropDestDown, d.Reason)
		require.Equal(t, kindData, d.Kind)
		require.Equal(t, sim.NodeID(0), d.Peer)
	}
	require.Equal(t, []sim.Time{ms(11), ms(40)}, []sim.Time{drops[0].At, drops[1].At})
	msgs := l.of("msg")
	require.Len(t, msgs, 1)
	require.Equal(t, int64(3), msgs[0].A)
	require.Equal(t, ms(60), msgs[0].At)
	st := s.Stats()
	require.Equal(t, uint64(3), st.Sent[kindData])
	require.Equal(t, uint64(1), st.Delivered[kindData])
	require.Equal(t, uint64(2), st.Dropped[kindData])
	require.Equal(t, uint64(2), st.DropReasons[sim.DropDestDown])
}

// Restart with keepDisk=false is a replaced disk: Start gets nil and the
// durable state is gone.
func TestCrashRestartWithoutDiskWipesDurable(t *testing.T) {
	s, l, _, id := crashRig(nil)
	s.At(ms(5), func() {
		require.Equal(t, []byte("gen0"), s.Durable(id))
		s.Crash(id)
		s.Restart(id, false)
	})
	s.At(ms(6), func() {
		s.Crash(id)
		s.Restart(id, true)
	})
	require.Equal(t, sim.OutcomeQuiescent, s.Run())
	starts := l.of("start")
	require.Len(t, starts, 3)
	require.Equal(t, []string{"", "", "gen1"}, []string{starts[0].Restore, starts[1].Restore, starts[2].Restore})
	require.Equal(t, []byte("gen2"), s.Durable(id))
}

// Crashing a down node and restarting an up node are no-ops.
func TestCrashAndRestartIdempotent(t *testing.T) {
	s, l, rec, id := crashRig(nil)
	s.At(ms(5), func() {
		s.Restart(id, false)
		s.Crash(id)
		s.Crash(id)
	})
	require.Equal(t, sim.OutcomeQuiescent, s.Run())
	require.Len(t, l.of("start"), 1)
	require.Len(t, records(rec, sim.RecCrash, id), 1)
	require.Equal(t, []byte("gen0"), s.Durable(id))
}

// forgetful keeps a field Start does not reset: the bug AddFreshNode rules
// out.
type forgetful struct {
	starts int
	env    sim.Env
}

func (f *forgetful) Start(env sim.Env, _ []byte) { f.env = env; f.starts++ }
func (f *forgetful) OnMessage(sim.Message)       {}
func (f *forgetful) OnTimer(sim.TimerID, int)    {}

// A node added with AddFreshNode is a new value on every boot: what Start
// does not reset is lost on a crash anyway. With AddNode the same value is
// restarted and keeps it.
func TestFreshNodeOnEveryBoot(t *testing.T) {
	s := sim.New(sim.Config{})
	reused := s.AddNode("reused", &forgetful{})
	fresh := s.AddFreshNode("fresh", func() sim.Node { return &forgetful{} })
	s.RunUntil(sim.Time(time.Millisecond))
	for _, id := range []sim.NodeID{reused, fresh} {
		s.Crash(id)
		s.Restart(id, true)
	}
	require.Equal(t, 2, s.Node(reused).(*forgetful).starts, "the same value, started twice")
	require.Equal(t, 1, s.Node(fresh).(*forgetful).starts, "a new value, started once")
}
