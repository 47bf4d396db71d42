package sim_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/sim"
)

// timerProbe returns a sim with one probe that arms a timer of d (tag 1) at
// Start.
func timerProbe(d time.Duration) (*sim.Sim, *probeLog, sim.NodeID) {
	s := sim.New(sim.Config{})
	l := &probeLog{s: s}
	p := newProbe(l)
	p.onStart = func(p *probe, _ []byte) { p.set(d, 1) }
	id := s.AddNode("n1", p)
	return s, l, id
}

// A monotonic clock running at 1.5x reaches a 10 s deadline after
// ceil(10e9/1.5) ns of true time (clock.go segment.trueAt), whether the rate is
// set before the run starts or by a fault at t=0.
func TestClockFastMonoFiresTimerEarly(t *testing.T) {
	const want = sim.Time(6_666_666_667) // ceil(10e9 / 1.5)
	for _, tc := range []struct {
		name string
		set  func(s *sim.Sim, id sim.NodeID)
	}{
		{"SetMonoRate before start", func(s *sim.Sim, id sim.NodeID) { s.SetMonoRate(id, sim.Rate(1.5)) }},
		{"SetRate at t=0", func(s *sim.Sim, id sim.NodeID) { s.At(0, func() { s.SetRate(id, sim.Rate(1.5)) }) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, l, id := timerProbe(10 * time.Second)
			tc.set(s, id)
			require.Equal(t, sim.OutcomeQuiescent, s.Run())
			fired := l.of("timer")
			require.Len(t, fired, 1)
			require.Equal(t, want, fired[0].At)
			// floor(6_666_666_667 * 1.5) = 10_000_000_000: exactly the deadline.
			require.Equal(t, 10*time.Second, fired[0].Mono)
		})
	}
}

// A rate change while a timer is pending re-projects it (docs/engine.md,
// "Node clocks"): 10 s timer, at 2 s true the rate doubles, so the
// remaining 8 s of local time take 4 s: it fires at 6 s. Slowing to 0.5x
// instead makes the remaining 8 s take 16 s.
func TestClockRateChangeReprojectsTimer(t *testing.T) {
	for _, tc := range []struct {
		rate float64
		want sim.Time
	}{
		{2.0, sim.Time(6 * time.Second)},
		{0.5, sim.Time(18 * time.Second)},
	} {
		s, l, id := timerProbe(10 * time.Second)
		s.At(sim.Time(2*time.Second), func() { s.SetMonoRate(id, sim.Rate(tc.rate)) })
		require.Equal(t, sim.OutcomeQuiescent, s.Run())
		fired := l.of("timer")
		require.Len(t, fired, 1, "rate %v", tc.rate)
		require.Equal(t, tc.want, fired[0].At, "rate %v", tc.rate)
		require.Equal(t, 10*time.Second, fired[0].Mono, "rate %v", tc.rate)
		require.Equal(t, uint64(1), s.Stats().TimersFired)
	}
}

// An NTP step backwards is visible on the wall clock only: the monotonic
// clock and the timers it drives are unaffected (control.go StepWall).
func TestClockWallStepBackwards(t *testing.T) {
	s, l, id := timerProbe(10 * time.Second)
	var wallAfterStep time.Time
	s.At(sim.Time(3*time.Second), func() {
		s.StepWall(id, -5*time.Second)
		wallAfterStep = s.Clock(id).Wall
	})
	require.Equal(t, sim.OutcomeQuiescent, s.Run())
	require.Equal(t, sim.DefaultWallStart.Add(-2*time.Second), wallAfterStep)

	fired := l.of("timer")
	require.Len(t, fired, 1)
	require.Equal(t, sim.Time(10*time.Second), fired[0].At)
	require.Equal(t, 10*time.Second, fired[0].Mono)
	require.Equal(t, sim.DefaultWallStart.Add(5*time.Second), fired[0].Wall, "env.Wall sees the step")
	require.Equal(t, 10*time.Second, s.Clock(id).Mono)
}

// Wall offset and drift are exact integer arithmetic: +250 ms offset and
// +50 ppm drift read exactly 250 ms + 180 ms ahead after one hour; -100 ppm
// reads exactly 360 ms behind. SetRate moves both clocks.
func TestClockWallOffsetAndDriftExact(t *testing.T) {
	s := sim.New(sim.Config{})
	l := &probeLog{s: s}
	fast, slow, both := newProbe(l), newProbe(l), newProbe(l)
	var wallNanos []int64
	for _, p := range []*probe{fast, slow, both} {
		p.onStart = func(p *probe, _ []byte) { p.set(time.Hour, 0) }
		p.onTimer = func(p *probe, _ sim.TimerID, _ int) { wallNanos = append(wallNanos, p.env.WallNanos()) }
	}
	a := s.AddNode("fast", fast)
	b := s.AddNode("slow", slow)
	c := s.AddNode("both", both)
	s.StepWall(a, 250*time.Millisecond)
	s.SetWallRate(a, sim.DriftPPM(50))
	s.SetWallRate(b, sim.DriftPPM(-100))
	s.SetRate(c, sim.Rate(1.25))
	require.Equal(t, int64(1_000_050_000), sim.DriftPPM(50))
	require.Equal(t, int64(999_900_000), sim.DriftPPM(-100))

	require.Equal(t, sim.OutcomeHorizon, s.RunUntil(sim.Time(time.Hour)))
	ca, cb, cc := s.Clock(a), s.Clock(b), s.Clock(c)
	require.Equal(t, sim.DefaultWallStart.Add(time.Hour+430*time.Millisecond), ca.Wall)
	require.Equal(t, time.Hour, ca.Mono, "wall drift leaves the monotonic clock alone")
	require.Equal(t, sim.RateOne, ca.MonoRatePPB)
	require.Equal(t, int64(1_000_050_000), ca.WallRatePPB)
	require.Equal(t, sim.DefaultWallStart.Add(time.Hour-360*time.Millisecond), cb.Wall)
	require.Equal(t, time.Hour+15*time.Minute, cc.Mono)
	require.Equal(t, sim.DefaultWallStart.Add(time.Hour+15*time.Minute), cc.Wall)

	// The timers fired in true time order: "both" (1.25x) at 48 min, then
	// "fast" and "slow" at 1 h (monotonic rate 1; RunUntil includes the horizon).
	fired := l.of("timer")
	require.Len(t, fired, 3)
	require.Equal(t, []sim.Time{sim.Time(48 * time.Minute), sim.Time(time.Hour), sim.Time(time.Hour)},
		[]sim.Time{fired[0].At, fired[1].At, fired[2].At})
	require.Equal(t, []int64{
		sim.DefaultWallStart.Add(time.Hour).UnixNano(),
		sim.DefaultWallStart.Add(time.Hour + 430*time.Millisecond).UnixNano(),
		sim.DefaultWallStart.Add(time.Hour - 360*time.Millisecond).UnixNano(),
	}, wallNanos)
}

// Config.WallStart sets every wall clock's reading at true time 0.
func TestClockWallStart(t *testing.T) {
	start := time.Date(2024, 2, 29, 1, 59, 58, 0, time.UTC)
	s := sim.New(sim.Config{WallStart: start})
	id := s.AddNode("n1", idle{})
	s.RunUntil(sim.Time(3 * time.Second))
	require.Equal(t, start.Add(3*time.Second), s.Clock(id).Wall)
}

// Rate rejects stopped or backwards clocks.
func TestClockRateRejectsNonPositive(t *testing.T) {
	require.Panics(t, func() { sim.Rate(0) })
	require.Panics(t, func() { sim.Rate(-1) })
	require.Equal(t, sim.RateOne, sim.Rate(1))
}
