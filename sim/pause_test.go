package sim_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/sim"
)

// pauseRig: n1 sends Data 1..6 to n2 at 10, 20, 30, 40, 60 and 120 ms (1 ms
// latency); n2 arms timers of 50 ms (tag 50) and 150 ms (tag 150) and is
// paused from 5 ms to 100 ms (unless resume is false: then the caller
// resumes it).
func pauseRig(t *testing.T, resume ...bool) (*sim.Sim, *probeLog, *sim.Recorder, sim.NodeID) {
	t.Helper()
	s := sim.New(sim.Config{})
	rec := &sim.Recorder{}
	s.AddSink(rec)
	senderLog := &probeLog{s: s}
	l := &probeLog{s: s}
	plan := []sendPlan{{10 * time.Millisecond, 1, 1}, {20 * time.Millisecond, 1, 2}, {30 * time.Millisecond, 1, 3},
		{40 * time.Millisecond, 1, 4}, {60 * time.Millisecond, 1, 5}, {120 * time.Millisecond, 1, 6}}
	s.AddNode("n1", sender(senderLog, plan))
	p := newProbe(l)
	p.onStart = func(p *probe, _ []byte) {
		p.set(50*time.Millisecond, 50)
		p.set(150*time.Millisecond, 150)
	}
	id := s.AddNode("n2", p)
	s.At(ms(5), func() { s.Pause(id) })
	if len(resume) == 0 || resume[0] {
		s.At(ms(100), func() { s.Resume(id) })
	}
	return s, l, rec, id
}

// docs/engine.md, "Process pauses": no handler runs while paused; messages that
// arrived and timers that expired are handed over on resume in the order they
// came due, all at the resume instant and before anything later; the clocks
// kept running; a timer that did not expire during the pause fires on time.
func TestPauseBuffersAndReplaysInArrivalOrder(t *testing.T) {
	s, l, rec, id := pauseRig(t)
	require.Equal(t, sim.OutcomeQuiescent, s.Run())

	type got struct {
		What string
		At   sim.Time
		Mono time.Duration
		A    int64
		Tag  int
	}
	var log []got
	for _, e := range l.events {
		if e.What == "start" {
			continue
		}
		log = append(log, got{e.What, e.At, e.Mono, e.A, e.Tag})
	}
	r := ms(100)
	require.Equal(t, []got{
		{"msg", r, 100 * time.Millisecond, 1, 0},    // arrived 11 ms
		{"msg", r, 100 * time.Millisecond, 2, 0},    // 21 ms
		{"msg", r, 100 * time.Millisecond, 3, 0},    // 31 ms
		{"msg", r, 100 * time.Millisecond, 4, 0},    // 41 ms
		{"timer", r, 100 * time.Millisecond, 0, 50}, // expired 50 ms
		{"msg", r, 100 * time.Millisecond, 5, 0},    // 61 ms
		{"msg", ms(121), 121 * time.Millisecond, 6, 0},
		{"timer", ms(150), 150 * time.Millisecond, 0, 150},
	}, log)

	// Both clocks ran through the pause: 95 ms passed on each.
	first := l.of("msg")[0]
	require.Equal(t, sim.DefaultWallStart.Add(100*time.Millisecond), first.Wall)

	resumes := records(rec, sim.RecResume, id)
	require.Len(t, resumes, 1)
	require.Equal(t, int64(6), resumes[0].A, "five messages and one timer were buffered")
	require.Equal(t, 100*time.Millisecond, resumes[0].Mono)
	pauses := records(rec, sim.RecPause, id)
	require.Len(t, pauses, 1)
	require.Equal(t, 5*time.Millisecond, pauses[0].Mono)

	// Deliveries are recorded when handed over, with their original send time.
	var delivered []sim.Record
	for _, d := range records(rec, sim.RecDeliver, id) {
		delivered = append(delivered, sim.Record{At: d.At, SentAt: d.SentAt})
	}
	require.Equal(t, []sim.Record{{At: r, SentAt: ms(10)}, {At: r, SentAt: ms(20)}, {At: r, SentAt: ms(30)},
		{At: r, SentAt: ms(40)}, {At: r, SentAt: ms(60)}, {At: ms(121), SentAt: ms(120)}}, delivered)
	require.Zero(t, s.Stats().Dropped[kindData])
}

// Back-to-back pauses. Resume and Pause in one callback (a zero-length
// resume) hand nothing over: the buffered messages and the expired timer wait
// for the next resume, still in arrival order. Regression: a timer already
// handed over by the first resume used to fire while the node was paused
// again. With the re-pause as a separate fault at the same instant, the
// resumed node first works through its backlog (it comes before anything
// else due then), and only then pauses.
func TestPauseResumeRepauseSameInstant(t *testing.T) {
	for _, tc := range []struct {
		name    string
		setup   func(s *sim.Sim, id sim.NodeID)
		handout sim.Time
	}{
		{"one callback", func(s *sim.Sim, id sim.NodeID) {
			s.At(ms(100), func() {
				s.Resume(id)
				s.Pause(id)
			})
		}, ms(110)},
		{"two faults", func(s *sim.Sim, id sim.NodeID) {
			s.At(ms(100), func() { s.Resume(id) })
			s.At(ms(100), func() { s.Pause(id) })
		}, ms(100)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, l, rec, id := pauseRig(t, false)
			tc.setup(s, id)
			s.At(ms(110), func() { s.Resume(id) })
			require.Equal(t, sim.OutcomeQuiescent, s.Run())
			var order []int64
			for _, e := range l.events {
				switch e.What {
				case "msg":
					order = append(order, e.A)
				case "timer":
					order = append(order, int64(-e.Tag))
				default:
					continue
				}
				if e.At < ms(121) {
					require.Equal(t, tc.handout, e.At, "%+v ran while paused", e)
				}
			}
			require.Equal(t, []int64{1, 2, 3, 4, -50, 5, 6, -150}, order)
			require.Len(t, records(rec, sim.RecResume, id), 2)
		})
	}
}

// Pausing a paused node or resuming a running one changes nothing.
func TestPauseIdempotent(t *testing.T) {
	s, l, rec, id := pauseRig(t)
	s.At(ms(7), func() { s.Pause(id) })
	s.At(ms(3), func() { s.Resume(id) })
	require.Equal(t, sim.OutcomeQuiescent, s.Run())
	require.Len(t, records(rec, sim.RecPause, id), 1)
	require.Len(t, records(rec, sim.RecResume, id), 1)
	require.Len(t, l.of("msg"), 6)
}

// A timer that expired during the pause but has not been handed over yet is,
// to the node, still armed: a message handed over before it may re-arm it
// with ResetTimer (true, as Go's time.Timer.Reset since Go 1.23 guarantees no
// stale expiry), and then it fires only at its new deadline. Cancelling it the
// same way works too.
func TestPauseResetOfExpiredUndeliveredTimer(t *testing.T) {
	for _, cancel := range []bool{false, true} {
		s := sim.New(sim.Config{})
		senderLog := &probeLog{s: s}
		s.AddNode("n1", sender(senderLog, []sendPlan{{10 * time.Millisecond, 1, 1}}))
		l := &probeLog{s: s}
		p := newProbe(l)
		var resetOK bool
		p.onStart = func(p *probe, _ []byte) { p.set(50*time.Millisecond, 7) }
		p.onMsg = func(p *probe, _ sim.Message) {
			// A heartbeat arrived (at 11 ms, handed over at 100 ms): push the
			// election timer back.
			if cancel {
				resetOK = p.env.CancelTimer(p.Timers[7])
			} else {
				resetOK = p.env.ResetTimer(p.Timers[7], 30*time.Millisecond)
			}
		}
		id := s.AddNode("n2", p)
		s.At(ms(5), func() { s.Pause(id) })
		s.At(ms(100), func() { s.Resume(id) })
		require.Equal(t, sim.OutcomeQuiescent, s.Run())
		require.True(t, resetOK, "cancel=%v", cancel)
		fired := l.of("timer")
		if cancel {
			require.Empty(t, fired)
			continue
		}
		require.Len(t, fired, 1)
		require.Equal(t, ms(130), fired[0].At)
		require.Equal(t, p.Timers[7], fired[0].ID)
	}
}

// A crash during a pause loses everything the pause buffered: the buffered
// messages are dropped as DropDestDown and the expired timer never fires,
// even after a restart.
func TestPauseThenCrashLosesBuffer(t *testing.T) {
	s, l, rec, id := pauseRig(t)
	s.At(ms(70), func() { s.Crash(id) })
	s.At(ms(80), func() { s.Restart(id, true) })
	require.Equal(t, sim.OutcomeQuiescent, s.Run())
	var tags []int
	for _, e := range l.of("timer") {
		tags = append(tags, e.Tag)
	}
	// Only the second incarnation's timers fire: 80+50 and 80+150 ms.
	require.Equal(t, []int{50, 150}, tags)
	require.Equal(t, ms(130), l.of("timer")[0].At)
	msgs := l.of("msg")
	require.Len(t, msgs, 1)
	require.Equal(t, int64(6), msgs[0].A)
	drops := records(rec, sim.RecDrop, id)
	require.Len(t, drops, 5)
	for _, d := range drops {
		require.Equal(t, sim.DropDestDown, d.Reason)
	}
	st := s.Stats()
	require.Equal(t, st.Sent[kindData], st.Delivered[kindData]+st.Dropped[kindData])
}

// A message that arrives at the very instant its node resumes is handed over
// after the ones that arrived during the pause: arrival order holds even for
// ties with the resume (constant latencies and whole-millisecond fault times
// make such ties common in scenarios).
func TestPauseArrivalAtResumeInstantComesLast(t *testing.T) {
	s := sim.New(sim.Config{Link: sim.LinkConfig{Latency: sim.Constant(time.Millisecond)}})
	s.AddNode("n1", sender(&probeLog{s: s}, []sendPlan{{10 * time.Millisecond, 1, 1}, {99 * time.Millisecond, 1, 2}, {30 * time.Millisecond, 1, 3}}))
	l := &probeLog{s: s}
	id := s.AddNode("n2", newProbe(l))
	s.At(ms(5), func() { s.Pause(id) })
	s.At(ms(100), func() { s.Resume(id) })
	require.Equal(t, sim.OutcomeQuiescent, s.Run())
	var got []int64
	for _, m := range l.of("msg") {
		require.Equal(t, ms(100), m.At)
		got = append(got, m.A)
	}
	require.Equal(t, []int64{1, 3, 2}, got)
}
