package sim_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/sim"
)

// pingPongSim returns two nodes bouncing a message forever over 1 ms links.
func pingPongSim(cfg sim.Config) *sim.Sim {
	s := sim.New(cfg)
	s.AddNode("a", &pingPong{peer: 1, initiator: true})
	s.AddNode("b", &pingPong{peer: 0})
	return s
}

// docs/engine.md, "Running, budgets and outcomes": a run that never ends stops at MaxEvents with a clear
// "budget exhausted" outcome instead of hanging. Each of the 1000 events is
// one delivery, 1 ms apart.
func TestBudgetEventsStopsPingPongForever(t *testing.T) {
	s := pingPongSim(sim.Config{MaxEvents: 1000})
	o := s.Run()
	require.Equal(t, sim.OutcomeEventBudget, o)
	require.True(t, o.Exhausted())
	require.Equal(t, "budget_exhausted:events", o.String())
	require.Equal(t, sim.Time(time.Second), s.Now())
	st := s.Stats()
	require.Equal(t, uint64(1000), st.Delivered[kindPing])
	require.Equal(t, uint64(1001), st.Sent[kindPing], "the 1000th delivery sent one more")
	require.Equal(t, uint64(1002), st.Events, "1000 deliveries and 2 starts")
	// Running again does not process more.
	require.Equal(t, sim.OutcomeEventBudget, s.RunFor(time.Hour))
	require.Equal(t, uint64(1000), s.Stats().Delivered[kindPing])
	require.Equal(t, sim.OutcomeEventBudget, s.Outcome())
}

// Run with a perpetual timer stops at MaxTime (events due exactly at MaxTime
// still run) with OutcomeTimeBudget.
func TestBudgetTimeStopsPerpetualTimer(t *testing.T) {
	s := sim.New(sim.Config{MaxTime: 10 * time.Second})
	tk := &ticker{period: time.Second}
	s.AddNode("n1", tk)
	o := s.Run()
	require.Equal(t, sim.OutcomeTimeBudget, o)
	require.True(t, o.Exhausted())
	require.Equal(t, "budget_exhausted:time", o.String())
	require.Equal(t, sim.Time(10*time.Second), s.Now())
	require.Equal(t, 10, s.Node(0).(*ticker).fired)
	require.Equal(t, uint64(10), s.Stats().TimersFired)
}

// RunUntil past MaxTime stops at MaxTime with OutcomeTimeBudget.
func TestBudgetRunUntilBeyondMaxTime(t *testing.T) {
	s := sim.New(sim.Config{MaxTime: 10 * time.Second})
	s.AddNode("n1", &ticker{period: time.Second})
	require.Equal(t, sim.OutcomeTimeBudget, s.RunUntil(sim.Time(time.Minute)))
	require.Equal(t, sim.Time(10*time.Second), s.Now())
	require.Equal(t, 10, s.Node(0).(*ticker).fired)
}

// Run with nothing to do is quiescent at once, and stays at time 0.
func TestBudgetQuiescent(t *testing.T) {
	s := sim.New(sim.Config{})
	s.AddNode("n1", idle{})
	o := s.Run()
	require.Equal(t, sim.OutcomeQuiescent, o)
	require.False(t, o.Exhausted())
	require.Equal(t, "quiescent", o.String())
	require.Equal(t, sim.Time(0), s.Now())
	require.Equal(t, sim.Outcome(0), sim.New(sim.Config{}).Outcome())
}

// RunUntil with work pending beyond the horizon returns OutcomeHorizon with
// Now() == horizon exactly; events due at the horizon run; a later RunFor
// continues from there.
func TestBudgetRunUntilHorizon(t *testing.T) {
	s := sim.New(sim.Config{})
	s.AddNode("n1", &ticker{period: time.Second})
	horizon := sim.Time(3500 * time.Millisecond)
	o := s.RunUntil(horizon)
	require.Equal(t, sim.OutcomeHorizon, o)
	require.Equal(t, "horizon", o.String())
	require.Equal(t, horizon, s.Now())
	require.Equal(t, 3, s.Node(0).(*ticker).fired)
	require.Equal(t, sim.OutcomeHorizon, s.RunFor(500*time.Millisecond))
	require.Equal(t, sim.Time(4*time.Second), s.Now())
	require.Equal(t, 4, s.Node(0).(*ticker).fired, "the event at the horizon ran")
	// An idle sim also advances to the horizon.
	q := sim.New(sim.Config{})
	q.AddNode("n1", idle{})
	require.Equal(t, sim.OutcomeHorizon, q.RunUntil(horizon))
	require.Equal(t, horizon, q.Now())
}

// End records the outcome in the trace.
func TestBudgetEndRecordsOutcome(t *testing.T) {
	s := pingPongSim(sim.Config{MaxEvents: 10})
	rec := &sim.Recorder{}
	s.AddSink(rec)
	s.Run()
	s.End()
	last := rec.Records[len(rec.Records)-1]
	require.Equal(t, sim.RecEnd, last.Type)
	require.Equal(t, "budget_exhausted:events", last.Detail)
	require.Equal(t, int64(12), last.A)
}

// The event budget guards against runaways per simulated second, not
// against length: a 1 ns timer (a billion events per simulated second)
// stops at the default rate guard within one window, with its own outcome.
func TestBudgetEventRateStopsRunawayTimer(t *testing.T) {
	s := sim.New(sim.Config{MaxTime: time.Hour})
	s.AddNode("n1", &ticker{period: time.Nanosecond})
	o := s.Run()
	require.Equal(t, sim.OutcomeEventRate, o)
	require.True(t, o.Exhausted())
	require.Equal(t, "budget_exhausted:event_rate", o.String())
	perWindow := uint64(sim.DefaultMaxEventRate) * uint64(sim.DefaultRateWindow) / uint64(time.Second)
	require.Equal(t, perWindow, sim.Popped(s), "one window takes exactly the rate's worth of events")
	require.Less(t, s.Now(), sim.Time(sim.DefaultRateWindow))
	require.Equal(t, sim.OutcomeEventRate, s.RunFor(time.Second), "running again takes nothing more")
	require.Equal(t, perWindow, sim.Popped(s))
}

// A long, healthy run passes the guard with the defaults: a 1 s ticker for
// 30 simulated days (2.6 million events, more than many absolute caps).
func TestBudgetEventRateLetsLongRunsThrough(t *testing.T) {
	s := sim.New(sim.Config{MaxTime: 31 * 24 * time.Hour})
	s.AddNode("n1", &ticker{period: time.Second})
	require.Equal(t, sim.OutcomeHorizon, s.RunUntil(sim.Time(30*24*time.Hour)))
	require.Equal(t, 30*24*3600, s.Node(0).(*ticker).fired)
}

// The rate is judged per window: at exactly the rate a ticker runs on, at
// twice the rate it stops in its first window; a quiet stretch does not bank
// events for a later burst.
func TestBudgetEventRateWindows(t *testing.T) {
	at := sim.New(sim.Config{MaxEventRate: 1000, RateWindow: time.Second, MaxTime: time.Minute})
	at.AddNode("n1", &ticker{period: time.Millisecond})
	require.Equal(t, sim.OutcomeHorizon, at.RunUntil(sim.Time(10*time.Second)))

	over := sim.New(sim.Config{MaxEventRate: 1000, RateWindow: time.Second, MaxTime: time.Minute})
	over.AddNode("n1", &ticker{period: time.Millisecond / 2})
	require.Equal(t, sim.OutcomeEventRate, over.RunUntil(sim.Time(10*time.Second)))
	require.Less(t, over.Now(), sim.Time(time.Second))

	win := sim.New(sim.Config{MaxEventRate: 100, RateWindow: 10 * time.Second, MaxTime: time.Hour})
	win.AddNode("n1", &ticker{period: 5 * time.Millisecond}) // 200 per simulated second
	require.Equal(t, sim.OutcomeEventRate, win.RunUntil(sim.Time(time.Minute)))
	require.Equal(t, uint64(1000), sim.Popped(win), "a 10 s window at 100/s takes 1,000 events")
}

// stopAt is a sink that stops the run at its n-th record.
type stopAt struct {
	s *sim.Sim
	n int
}

func (k *stopAt) Record(*sim.Record) {
	k.n--
	if k.n == 0 {
		k.s.Stop()
	}
}

// Stop ends a run after the event being processed, for good: the checker
// calls it at a violation under simrun -fail-fast.
func TestStopEndsTheRun(t *testing.T) {
	s := sim.New(sim.Config{MaxTime: time.Hour})
	s.AddNode("n1", &ticker{period: time.Second})
	s.AddSink(&stopAt{s: s, n: 11}) // the start record, then 10 timers
	require.Equal(t, sim.OutcomeStopped, s.RunUntil(sim.Time(time.Minute)))
	require.Equal(t, "stopped", s.Outcome().String())
	require.False(t, s.Outcome().Exhausted())
	require.Equal(t, sim.Time(10*time.Second), s.Now())
	require.Equal(t, sim.OutcomeStopped, s.RunFor(time.Minute))
	require.Equal(t, 10, s.Node(0).(*ticker).fired)
}

// broadcaster sends one message to every other node on each tick of its
// timer: with a 1 ns period, a runaway whose messages outnumber its events
// by the fan-out.
type broadcaster struct {
	env    sim.Env
	peers  int
	period time.Duration
}

func (n *broadcaster) Start(env sim.Env, _ []byte) {
	n.env = env
	env.SetTimer(n.period, 0)
}

func (n *broadcaster) OnMessage(sim.Message) {}

func (n *broadcaster) OnTimer(sim.TimerID, int) {
	for p := 0; p < n.peers; p++ {
		if sim.NodeID(p) != n.env.ID() {
			n.env.Send(sim.Message{Kind: kindPing, To: sim.NodeID(p)})
		}
	}
	n.env.SetTimer(n.period, 0)
}

// The event-rate guard bounds events, but one event can send to every
// node: the in-flight bound stops a runaway broadcast by the messages it
// leaves in flight, at the send that would cross it, with its own outcome;
// the rate guard alone would let it hold 63 times its events in messages.
func TestBudgetInFlightStopsRunawayBroadcast(t *testing.T) {
	const nodes, limit = 64, 10_000
	s := sim.New(sim.Config{MaxTime: time.Hour, MaxInFlight: limit, Link: sim.LinkConfig{Latency: sim.Constant(10 * time.Millisecond)}})
	for i := 0; i < nodes; i++ {
		s.AddNode(fmt.Sprintf("n%d", i+1), &broadcaster{peers: nodes, period: time.Nanosecond})
	}
	o := s.Run()
	require.Equal(t, sim.OutcomeInFlight, o)
	require.True(t, o.Exhausted())
	require.Equal(t, "budget_exhausted:in_flight", o.String())
	inFlight := sim.InFlight(s)
	require.Equal(t, limit, inFlight, "stopped at the send that would cross the bound")
	require.Equal(t, sim.OutcomeInFlight, s.RunFor(time.Second), "running again takes nothing more")

	// The default bound is far above a healthy load: all 64 nodes
	// broadcasting every 10 ms over 10 ms links (about 8,000 in flight, and
	// 400,000 events per simulated second, within the rate guard) run on.
	ok := sim.New(sim.Config{MaxTime: time.Hour, Link: sim.LinkConfig{Latency: sim.Constant(10 * time.Millisecond)}})
	for i := 0; i < nodes; i++ {
		ok.AddNode(fmt.Sprintf("n%d", i+1), &broadcaster{peers: nodes, period: 10 * time.Millisecond})
	}
	require.Equal(t, sim.OutcomeHorizon, ok.RunUntil(sim.Time(100*time.Millisecond)))
}
