package sim_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/sim"
)

// streamRun sends n messages a→b over a link with the given loss and
// duplication, b marked Streams or not, and returns what b received (by
// A, with arrival times) and the run's stats.
func streamRun(t *testing.T, drop, dup float64, stream bool, n int) ([]seen, sim.Stats) {
	t.Helper()
	s := sim.New(sim.Config{Seed: 7, Link: sim.LinkConfig{Latency: sim.Constant(time.Millisecond), Drop: drop, Duplicate: dup}})
	var plan []sendPlan
	for i := range n {
		plan = append(plan, sendPlan{After: time.Duration(i) * time.Millisecond, To: 1, A: int64(i)})
	}
	s.AddNode("a", sender(&probeLog{s: s}, plan))
	l := &probeLog{s: s}
	var opts []sim.NodeOption
	if stream {
		opts = append(opts, sim.Streams())
	}
	s.AddNode("b", newProbe(l), opts...)
	require.Equal(t, sim.OutcomeQuiescent, s.Run())
	return l.of("msg"), *s.Stats()
}

// A node reached over TCP (sim.Streams) never gets a message twice however
// the link duplicates (TCP delivers one copy to the application), where a
// datagram node gets copies.
func TestStreamNeverDuplicates(t *testing.T) {
	got, st := streamRun(t, 0, 1, true, 50)
	require.Len(t, got, 50)
	assert.Zero(t, st.Duplicated[kindData])
	got, st = streamRun(t, 0, 1, false, 50)
	assert.Len(t, got, 100, "must-refute: a datagram link duplicates every message")
	assert.Equal(t, uint64(50), st.Duplicated[kindData])
}

// A lost segment on a stream is retransmitted after TCP's timeout (200 ms,
// doubled after each further loss), so every message arrives, late; on a
// datagram link the same loss drops it. A link that loses everything
// drops a stream's message too, after tcp_retries2 retransmissions.
func TestStreamLossIsDelay(t *testing.T) {
	got, st := streamRun(t, 0.5, 0, true, 200)
	require.Len(t, got, 200)
	assert.Zero(t, st.DropReasons[sim.DropLoss])
	late := 0
	for _, e := range got {
		sent := time.Duration(e.A) * time.Millisecond
		delay := time.Duration(e.At) - sent
		if delay > time.Millisecond {
			late++
			// k retransmissions wait 200 ms · (2^k − 1).
			whole := false
			for k := 1; k <= 15; k++ {
				whole = whole || delay == time.Millisecond+time.Duration(1<<k-1)*200*time.Millisecond
			}
			assert.True(t, whole, "message %d arrived %v after it was sent: not a whole number of retransmissions", e.A, delay)
		}
	}
	assert.InDelta(t, 100, late, 30, "about half are lost once at 50 %% loss")
	dgram, st := streamRun(t, 0.5, 0, false, 200)
	assert.Less(t, len(dgram), 150, "must-refute: a datagram link drops them")
	assert.Positive(t, st.DropReasons[sim.DropLoss])
	none, st := streamRun(t, 1, 0, true, 5)
	assert.Empty(t, none)
	assert.Equal(t, uint64(5), st.DropReasons[sim.DropLoss])
}

// Marking a node Streams changes nothing on a link that neither loses nor
// duplicates: the network draws the same numbers, so the trace is the
// same bit for bit.
func TestStreamOnACleanLinkChangesNothing(t *testing.T) {
	hash := func(stream bool) uint64 {
		s := sim.New(sim.Config{Seed: 3, Link: sim.LinkConfig{Latency: sim.Uniform(time.Millisecond, 9*time.Millisecond)}})
		s.AddNode("a", sender(&probeLog{s: s}, []sendPlan{{0, 1, 1}, {time.Millisecond, 1, 2}, {2 * time.Millisecond, 1, 3}}))
		var opts []sim.NodeOption
		if stream {
			opts = append(opts, sim.Streams())
		}
		s.AddNode("b", newProbe(&probeLog{s: s}), opts...)
		s.Run()
		return s.TraceHash()
	}
	assert.Equal(t, hash(false), hash(true))
}

// cutRun sends one message a→b at t=0 over a 10 ms link cut at cutAt and
// healed at healAt (never if 0), b a stream node or not, and a crashed at
// crashAt (never if 0); it returns when b got it (-1: never) and the drop
// reasons.
func cutRun(t *testing.T, stream bool, cutAt, healAt, crashAt time.Duration) (sim.Time, [8]uint64) {
	t.Helper()
	s := sim.New(sim.Config{Seed: 1, Link: sim.LinkConfig{Latency: sim.Constant(10 * time.Millisecond)}})
	a := s.AddNode("a", sender(&probeLog{s: s}, []sendPlan{{0, 1, 7}}))
	l := &probeLog{s: s}
	var opts []sim.NodeOption
	if stream {
		opts = append(opts, sim.Streams())
	}
	b := s.AddNode("b", newProbe(l), opts...)
	s.At(sim.Time(cutAt), func() { s.Cut(a, b) })
	if healAt > 0 {
		s.At(sim.Time(healAt), func() { s.Connect(a, b) })
	}
	if crashAt > 0 {
		s.At(sim.Time(crashAt), func() { s.Crash(a) })
	}
	s.RunFor(time.Hour)
	got := l.of("msg")
	if len(got) == 0 {
		return -1, s.Stats().DropReasons
	}
	require.Len(t, got, 1)
	return got[0].At, s.Stats().DropReasons
}

// A stream's message meets a cut as TCP's segment does: cut in flight or
// at send, it is sent again at each retransmission timeout (200 ms, 400 ms,
// … after the last try) and arrives after the heal; a datagram is lost.
// A sender that crashes takes its connection with it, and a cut that never
// heals loses the message after tcp_retries2 retransmissions.
func TestStreamCutIsRetransmitted(t *testing.T) {
	// Cut in flight at 5 ms, healed at 300 ms: lost at 10 ms, resent at
	// 210 ms (cut), 610 ms (up): delivered at 620 ms.
	at, drops := cutRun(t, true, 5*time.Millisecond, 300*time.Millisecond, 0)
	assert.Equal(t, sim.Time(620*time.Millisecond), at)
	assert.Zero(t, drops[sim.DropPartitionInFlight])
	at, drops = cutRun(t, false, 5*time.Millisecond, 300*time.Millisecond, 0)
	assert.Equal(t, sim.Time(-1), at, "must-refute: a datagram cut in flight is lost")
	assert.Equal(t, uint64(1), drops[sim.DropPartitionInFlight])
	// The sender crashes while its message waits for the link.
	at, drops = cutRun(t, true, 5*time.Millisecond, 300*time.Millisecond, 100*time.Millisecond)
	assert.Equal(t, sim.Time(-1), at)
	assert.Equal(t, uint64(1), drops[sim.DropSenderCrashed])
	// A cut that never heals: dropped after the 15th retransmission.
	at, drops = cutRun(t, true, 5*time.Millisecond, 0, 0)
	assert.Equal(t, sim.Time(-1), at)
	assert.Equal(t, uint64(1), drops[sim.DropPartitionAtSend])
}
