package sim_test

import (
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

// design.md "Budgets": a run that never ends stops at MaxEvents with a clear
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
