package sim_test

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/sim"
)

// buggy runs a user-style node whose handler misbehaves when act says so:
// each call of act gets the node's env and how many messages it has
// handled, and may panic or break the contract.
type buggy struct {
	env   sim.Env
	peer  sim.NodeID
	start func(env sim.Env)
	act   func(env sim.Env, handled int)
	n     int
}

func (b *buggy) Start(env sim.Env, _ []byte) {
	b.env = env
	if b.start != nil {
		b.start(env)
	}
	if b.peer >= 0 {
		env.Send(sim.Message{Kind: kindPing, To: b.peer})
	}
}

func (b *buggy) OnMessage(m sim.Message) {
	b.n++
	if b.act != nil {
		b.act(b.env, b.n)
	}
	b.env.Send(sim.Message{Kind: kindPing, To: m.From})
}

func (b *buggy) OnTimer(sim.TimerID, int) {}

// panicAtFifth is a node handler that indexes out of range at its 5th
// message (a named function: its stack frame has one name).
func panicAtFifth(_ sim.Env, handled int) {
	if handled == 5 {
		var xs []int
		_ = xs[handled]
	}
}

func buggyPair(cfg sim.Config, act func(sim.Env, int)) *sim.Sim {
	s := sim.New(cfg)
	s.AddNode("a", &buggy{peer: 1})
	s.AddNode("b", &buggy{peer: -1, act: act})
	return s
}

// docs/engine.md, "When a handler fails": a panic in a node's handler
// stops the run at that event with OutcomeCrashed and a Failure naming
// the node, the handler, the panic and the stack; the same seed stops at
// the same event with the same Failure; later calls take nothing more.
func TestHandlerPanicCrashesTheRunDeterministically(t *testing.T) {
	run := func() (*sim.Sim, sim.Outcome) {
		s := buggyPair(sim.Config{Seed: 7}, panicAtFifth)
		return s, s.RunUntil(sim.Time(time.Minute))
	}
	s, o := run()
	require.Equal(t, sim.OutcomeCrashed, o)
	require.Equal(t, "crashed", o.String())
	require.False(t, o.Exhausted())
	f := s.Failure()
	require.NotNil(t, f)
	assert.Equal(t, sim.NodeID(1), f.Node)
	assert.Equal(t, "b", f.NodeName)
	assert.Equal(t, "OnMessage(test.Ping from a)", f.Handler)
	assert.Contains(t, f.Value, "index out of range [5] with length 0")
	assert.False(t, f.Contract)
	assert.Equal(t, ms(9), f.At, "b's 5th message arrives at 9 ms (1 ms links, a starts at 0)")
	assert.Contains(t, f.Stack, "sim_test.panicAtFifth", "the stack starts at the panic")
	assert.Contains(t, f.Stack, "sim.(*Sim).deliver", "and runs down to the engine's call")
	assert.NotContains(t, f.Stack, "runtime.", "without the runtime's frames")
	assert.NotContains(t, f.Stack, "testing.", "nor the driver's below the run loop")
	assert.NotContains(t, f.Stack, "+0x", "nor offsets")
	assert.Equal(t, "b OnMessage(test.Ping from a) panicked: runtime error: index out of range [5] with length 0", f.String())
	events := s.Stats().Events
	require.Equal(t, sim.OutcomeCrashed, s.RunFor(time.Hour), "running again takes nothing more")
	require.Equal(t, events, s.Stats().Events)

	s2, o2 := run()
	require.Equal(t, o, o2)
	require.Equal(t, *f, *s2.Failure(), "same seed, same failure")
	require.Equal(t, s.TraceHash(), s2.TraceHash())
}

// A panic in Start, and in a driver callback, are attributed to them.
func TestStartAndControlPanicsAreAttributed(t *testing.T) {
	s := sim.New(sim.Config{})
	s.AddNode("a", &buggy{peer: -1, start: func(sim.Env) { panic("no config") }})
	require.Equal(t, sim.OutcomeCrashed, s.Run())
	assert.Equal(t, "Start", s.Failure().Handler)
	assert.Equal(t, "no config", s.Failure().Value)

	s = sim.New(sim.Config{})
	s.AddNode("a", idle{})
	s.At(ms(3), func() { panic(fmt.Errorf("nemesis bug")) })
	require.Equal(t, sim.OutcomeCrashed, s.Run())
	assert.Equal(t, sim.None, s.Failure().Node)
	assert.Equal(t, "control", s.Failure().Handler)
	assert.Equal(t, ms(3), s.Failure().At)
}

// Calls that break the engine's contract stop the run at the call, as a
// Failure marked Contract: a send to an unknown node, of an unregistered
// kind, and a Persist above MaxPersist.
func TestContractViolationsCrashTheRun(t *testing.T) {
	for name, tc := range map[string]struct {
		act  func(sim.Env, int)
		want string
	}{
		"unknown node":      {func(env sim.Env, _ int) { env.Send(sim.Message{Kind: kindPing, To: 9}) }, "b sent test.Ping to unknown node 9"},
		"unregistered kind": {func(env sim.Env, _ int) { env.Send(sim.Message{Kind: 250, To: 0}) }, "b sent unregistered message kind 250"},
		"zero kind":         {func(env sim.Env, _ int) { env.Send(sim.Message{To: 0}) }, "b sent unregistered message kind 0"},
		"huge persist":      {func(env sim.Env, _ int) { env.Persist(make([]byte, 1025)) }, "b persisted 1025 bytes, more than the 1024"},
	} {
		t.Run(name, func(t *testing.T) {
			s := buggyPair(sim.Config{MaxPersist: 1024}, tc.act)
			require.Equal(t, sim.OutcomeCrashed, s.RunUntil(sim.Time(time.Second)))
			f := s.Failure()
			assert.True(t, f.Contract)
			assert.Contains(t, f.Value, tc.want)
			assert.Equal(t, ms(1), f.At, "at b's first message")
			assert.Equal(t, uint64(1), s.Stats().Sent[kindPing], "a's first message and nothing after the refused call")
		})
	}
	s := buggyPair(sim.Config{MaxPersist: 1024}, func(env sim.Env, _ int) { env.Persist(make([]byte, 1024)) })
	require.Equal(t, sim.OutcomeHorizon, s.RunUntil(sim.Time(time.Second)), "MaxPersist bytes are accepted")
}

// The in-flight and timer bounds are checked at the call that exceeds
// them, not between events: one handler sending (or arming timers) in a
// loop stops there with its budget outcome, memory bounded.
func TestBoundsCheckedAtTheCall(t *testing.T) {
	const limit = 1000
	sends := 0
	s := buggyPair(sim.Config{MaxInFlight: limit}, func(env sim.Env, _ int) {
		for i := 0; i < 10_000_000; i++ {
			env.Send(sim.Message{Kind: kindPing, To: 0})
			sends++
		}
	})
	require.Equal(t, sim.OutcomeInFlight, s.RunUntil(sim.Time(time.Second)))
	assert.Equal(t, limit-1, sends, "a's first message holds one slot until delivered... stopped at the call")
	assert.LessOrEqual(t, sim.InFlight(s), limit)

	timers := 0
	s = buggyPair(sim.Config{MaxTimers: limit}, func(env sim.Env, _ int) {
		for i := 0; i < 10_000_000; i++ {
			env.SetTimer(time.Hour, i)
			timers++
		}
	})
	require.Equal(t, sim.OutcomeTimers, s.RunUntil(sim.Time(time.Second)))
	assert.Equal(t, "budget_exhausted:timers", s.Outcome().String())
	assert.True(t, s.Outcome().Exhausted())
	assert.Equal(t, limit, timers, "stopped at the call that would exceed the bound")
	assert.Equal(t, sim.OutcomeTimers, s.RunFor(time.Hour), "running again takes nothing more")

	// A handler that swallows the panic gets no room either, and the run
	// stops after its event.
	s = buggyPair(sim.Config{MaxInFlight: limit}, func(env sim.Env, _ int) {
		for i := 0; i < 3*limit; i++ {
			func() {
				defer func() { _ = recover() }()
				env.Send(sim.Message{Kind: kindPing, To: 0})
			}()
		}
	})
	require.Equal(t, sim.OutcomeInFlight, s.RunUntil(sim.Time(time.Second)))
	assert.LessOrEqual(t, sim.InFlight(s), limit)
}

// Config.Beat shows a watchdog the loop's progress: inside a handler it
// holds the entries processed when the loop last checked its budgets, and
// -1 once Run returns.
func TestBeatShowsProgressAndIdle(t *testing.T) {
	var beat atomic.Int64
	var inside []int64
	s := buggyPair(sim.Config{Beat: &beat}, func(_ sim.Env, _ int) { inside = append(inside, beat.Load()) })
	require.Equal(t, sim.OutcomeHorizon, s.RunUntil(sim.Time(time.Second)))
	assert.Equal(t, int64(-1), beat.Load(), "out of the loop")
	require.Len(t, inside, 500)
	assert.GreaterOrEqual(t, inside[0], int64(0))
	assert.Greater(t, inside[len(inside)-1], inside[0], "it moves with the run (one 100 ms window at a time)")
}

// testGuard is a sim.Guard whose Check errs at its at-th call (never when
// at is 0) and which records what it was told.
type testGuard struct {
	at, calls int
	crashed   *sim.Failure
	ended     int
}

func (g *testGuard) Check() error {
	g.calls++
	if g.calls == g.at {
		return fmt.Errorf("check %d failed", g.calls)
	}
	return nil
}

func (g *testGuard) Crashed(f *sim.Failure) { g.crashed = f }
func (g *testGuard) Ended()                 { g.ended++ }

// docs/engine.md, "When a handler fails": Config.Guard's Check is asked
// after every handler returns (Start included), and its error stops the
// run at that handler, crashed, with a contract Failure naming it; Crashed
// is told that Failure before Run returns, and End calls Ended once. A
// guard that never errs changes nothing: the trace hash is the unguarded
// run's.
func TestGuardStopsTheRunAtTheHandlerItBlames(t *testing.T) {
	plain := buggyPair(sim.Config{Seed: 3}, nil)
	require.Equal(t, sim.OutcomeHorizon, plain.RunUntil(sim.Time(time.Second)))
	plain.End()

	quietG := &testGuard{}
	quiet := buggyPair(sim.Config{Seed: 3, Guard: quietG}, nil)
	require.Equal(t, sim.OutcomeHorizon, quiet.RunUntil(sim.Time(time.Second)))
	assert.Equal(t, 0, quietG.ended, "not before End")
	quiet.End()
	assert.Equal(t, 1, quietG.ended)
	assert.Equal(t, plain.TraceHashHex(), quiet.TraceHashHex())
	assert.Equal(t, int(quiet.Stats().Events), quietG.calls, "one check per handler call")
	assert.Nil(t, quietG.crashed)

	for _, tc := range []struct {
		at      int
		handler string
	}{
		{1, "Start"}, // a's Start
		{7, "OnMessage(test.Ping from a)"},
		{8, "OnMessage(test.Ping from b)"},
	} {
		g := &testGuard{at: tc.at}
		s := buggyPair(sim.Config{Seed: 3, Guard: g}, nil)
		require.Equal(t, sim.OutcomeCrashed, s.RunUntil(sim.Time(time.Second)), "check %d", tc.at)
		f := s.Failure()
		require.NotNil(t, f)
		assert.Same(t, f, g.crashed, "Crashed is told the run's Failure")
		assert.True(t, f.Contract)
		assert.Equal(t, tc.handler, f.Handler, "check %d", tc.at)
		assert.Equal(t, fmt.Sprintf("check %d failed", tc.at), f.Value)
		assert.Equal(t, tc.at, g.calls, "the run stops at the failing check")
	}
}
