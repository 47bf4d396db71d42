package sim_test

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/sim"
)

// scriptTimers runs one probe whose Start calls start and whose timers (other
// than tag 0, which the script uses as its own trigger) are logged.
func scriptTimers(t *testing.T, start func(p *probe), onTimer func(p *probe, id sim.TimerID, tag int), setup ...func(s *sim.Sim, id sim.NodeID)) (*sim.Sim, *probeLog) {
	t.Helper()
	s := sim.New(sim.Config{})
	l := &probeLog{s: s}
	p := newProbe(l)
	p.onStart = func(p *probe, _ []byte) { start(p) }
	p.onTimer = onTimer
	id := s.AddNode("n1", p)
	for _, f := range setup {
		f(s, id)
	}
	if o := s.Run(); o != sim.OutcomeTimeBudget { // time: a "never" timer is pending
		require.Equal(t, sim.OutcomeQuiescent, o)
	}
	return s, l
}

func firedTags(l *probeLog) (tags []int, at []sim.Time) {
	for _, e := range l.of("timer") {
		tags = append(tags, e.Tag)
		at = append(at, e.At)
	}
	return tags, at
}

// Env.ResetTimer (node.go) re-arms d from now and keeps the ID: extending a
// 10 ms timer at 5 ms by 10 ms fires it once at 15 ms; shortening a 100 ms
// timer at 5 ms to 10 ms fires it once at 15 ms (the old 100 ms entry is
// stale); resetting repeatedly keeps only the last deadline.
func TestTimerResetExtendAndShorten(t *testing.T) {
	for _, tc := range []struct {
		name    string
		initial time.Duration
		resets  []time.Duration // applied at 5 ms, 6 ms, ...
		want    sim.Time
	}{
		{"extend", 10 * time.Millisecond, []time.Duration{10 * time.Millisecond}, ms(15)},
		{"shorten", 100 * time.Millisecond, []time.Duration{10 * time.Millisecond}, ms(15)},
		{"shorten then extend", 100 * time.Millisecond, []time.Duration{10 * time.Millisecond, 200 * time.Millisecond}, ms(206)},
		{"extend then shorten", 10 * time.Millisecond, []time.Duration{200 * time.Millisecond, time.Millisecond}, ms(7)},
		{"to zero", 100 * time.Millisecond, []time.Duration{0}, ms(5)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var target sim.TimerID
			var oks []bool
			s, l := scriptTimers(t, func(p *probe) {
				target = p.env.SetTimer(tc.initial, 1)
				for i := range tc.resets {
					p.env.SetTimer(time.Duration(5+i)*time.Millisecond, 100+i)
				}
			}, func(p *probe, id sim.TimerID, tag int) {
				if tag >= 100 {
					oks = append(oks, p.env.ResetTimer(target, tc.resets[tag-100]))
				}
			})
			var fired []seen
			for _, e := range l.of("timer") {
				if e.Tag == 1 {
					fired = append(fired, e)
				}
			}
			require.Len(t, fired, 1)
			require.Equal(t, tc.want, fired[0].At)
			require.Equal(t, target, fired[0].ID, "a reset timer keeps its ID")
			for _, ok := range oks {
				require.True(t, ok)
			}
			require.Equal(t, uint64(1+len(tc.resets)), s.Stats().TimersFired)
		})
	}
}

// Cancelling or resetting a fired or cancelled timer returns false and does
// nothing; in particular it does not touch a new timer that reuses the slot
// (node.go TimerID: "never reused while they could be confused").
func TestTimerStaleIDsAfterSlotReuse(t *testing.T) {
	type result struct{ cancelFired, resetFired, cancelTwice, resetCancelled, cancelOld, resetOld bool }
	var r result
	var a, b, c sim.TimerID
	_, l := scriptTimers(t, func(p *probe) {
		a = p.env.SetTimer(time.Millisecond, 1) // fires at 1 ms
		p.env.SetTimer(2*time.Millisecond, 0)   // the script, at 2 ms
	}, func(p *probe, id sim.TimerID, tag int) {
		if tag != 0 {
			return
		}
		r.cancelFired = p.env.CancelTimer(a)
		r.resetFired = p.env.ResetTimer(a, time.Millisecond)
		b = p.env.SetTimer(10*time.Millisecond, 2) // reuses a's slot
		require.True(t, p.env.CancelTimer(b))
		r.cancelTwice = p.env.CancelTimer(b)
		r.resetCancelled = p.env.ResetTimer(b, time.Millisecond)
		c = p.env.SetTimer(10*time.Millisecond, 3) // reuses it again
		r.cancelOld = p.env.CancelTimer(a) || p.env.CancelTimer(b)
		r.resetOld = p.env.ResetTimer(a, time.Millisecond) || p.env.ResetTimer(b, time.Millisecond)
	})
	require.Equal(t, result{}, r)
	require.NotEqual(t, a, b)
	require.NotEqual(t, b, c)
	require.NotEqual(t, a, c)
	require.NotZero(t, a, "TimerID 0 is never issued, so nodes can use it as 'no timer'")
	tags, at := firedTags(l)
	require.Equal(t, []int{1, 0, 3}, tags)
	require.Equal(t, []sim.Time{ms(1), ms(2), ms(12)}, at)
	require.Equal(t, c, l.of("timer")[2].ID)
}

// Timers with equal deadlines fire in the order they were set (queue ties
// break by sequence number, docs/engine.md, "True time and event ordering"), including when slots
// are freed and reused in between (cancel-and-re-set must not let the new
// timer jump ahead through the cancelled timer's queue entry) and when a
// clock-rate change re-projects them (they must not come back in slot order).
func TestTimerEqualDeadlinesFireInSetOrder(t *testing.T) {
	const n = 200
	for _, tc := range []struct {
		name   string
		setup  func(s *sim.Sim, id sim.NodeID)
		wantAt sim.Time
	}{
		{"plain", func(*sim.Sim, sim.NodeID) {}, ms(10)},
		// At 5 ms the clock doubles: the last 5 ms of local time take 2.5 ms.
		{"re-projected", func(s *sim.Sim, id sim.NodeID) {
			s.At(ms(5), func() { s.SetMonoRate(id, sim.Rate(2)) })
		}, ms(10) - ms(5)/2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var want []int
			_, l := scriptTimers(t, func(p *probe) {
				var ids []sim.TimerID
				for i := 0; i < n; i++ {
					ids = append(ids, p.env.SetTimer(10*time.Millisecond, i))
					want = append(want, i)
					if i%3 == 2 {
						// Cancel an earlier one and set a replacement with the
						// same deadline; the replacement reuses the freed slot.
						require.True(t, p.env.CancelTimer(ids[i-1]))
						want = remove(want, i-1)
						p.env.SetTimer(10*time.Millisecond, 1000+i)
						want = append(want, 1000+i)
					}
				}
			}, nil, tc.setup)
			tags, at := firedTags(l)
			require.Equal(t, want, tags)
			for _, a := range at {
				require.Equal(t, tc.wantAt, a)
			}
		})
	}
}

func remove(xs []int, v int) []int {
	for i, x := range xs {
		if x == v {
			return append(xs[:i:i], xs[i+1:]...)
		}
	}
	return xs
}

// A crash frees every timer; IDs from the dead incarnation stay invalid even
// though the restarted node reuses the slots.
func TestTimerIDsDieWithCrash(t *testing.T) {
	s := sim.New(sim.Config{})
	l := &probeLog{s: s}
	p := newProbe(l)
	var first sim.TimerID
	var cancelOld bool
	p.onStart = func(p *probe, _ []byte) {
		if l.starts == 1 {
			first = p.set(10*time.Millisecond, 1)
			return
		}
		p.set(10*time.Millisecond, 2)
		cancelOld = p.env.CancelTimer(first)
	}
	id := s.AddNode("n1", p)
	s.At(ms(3), func() { s.Crash(id) })
	s.At(ms(4), func() { s.Restart(id, true) })
	require.Equal(t, sim.OutcomeQuiescent, s.Run())
	require.False(t, cancelOld)
	tags, at := firedTags(l)
	require.Equal(t, []int{2}, tags)
	require.Equal(t, []sim.Time{ms(14)}, at)
}

// A timer of math.MaxInt64 ("never") never fires: its deadline saturates
// instead of wrapping into the past, also on a rate-1 clock that ran slow
// earlier (so its true time is ahead of its reading) and through ResetTimer.
// A negative duration fires at once.
func TestTimerHugeDurationNeverFires(t *testing.T) {
	for _, slowFirst := range []bool{false, true} {
		s, l := scriptTimers(t, func(p *probe) {
			p.env.SetTimer(10*time.Millisecond, 0)
		}, func(p *probe, id sim.TimerID, tag int) {
			if tag != 0 {
				return
			}
			p.env.SetTimer(math.MaxInt64, 1)
			p.env.SetTimer(math.MaxInt64-time.Duration(p.env.Now())+1, 2)
			p.env.ResetTimer(p.env.SetTimer(time.Millisecond, 3), math.MaxInt64)
			p.env.SetTimer(-time.Second, 4)
		}, func(s *sim.Sim, id sim.NodeID) {
			if slowFirst {
				s.SetMonoRate(id, sim.Rate(0.5))
				s.At(ms(10), func() { s.SetMonoRate(id, sim.RateOne) })
			}
		})
		tags, at := firedTags(l)
		require.Equal(t, []int{0, 4}, tags, "slowFirst=%v", slowFirst)
		require.Equal(t, at[0], at[1])
		require.Equal(t, sim.OutcomeTimeBudget, s.Outcome(), "the never-timers are still pending")
		require.Equal(t, sim.Time(24*time.Hour), s.Now())
	}
}
