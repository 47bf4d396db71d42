package sim_test

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/sim"
)

// A one-way cut A->B (an asymmetric partition, docs/engine.md, "Reachability faults") drops A's
// messages to B at send time and still delivers B's messages to A.
func TestNetworkOneWayCut(t *testing.T) {
	s := sim.New(sim.Config{})
	rec := &sim.Recorder{}
	s.AddSink(rec)
	la, lb := &probeLog{s: s}, &probeLog{s: s}
	a := s.AddNode("a", sender(la, []sendPlan{{5 * time.Millisecond, 1, 1}}))
	b := s.AddNode("b", sender(lb, []sendPlan{{5 * time.Millisecond, 0, 2}}))
	s.Cut(a, b)
	require.False(t, s.Reachable(a, b))
	require.True(t, s.Reachable(b, a))
	require.Equal(t, sim.OutcomeQuiescent, s.Run())
	require.Empty(t, lb.of("msg"))
	got := la.of("msg")
	require.Len(t, got, 1)
	require.Equal(t, int64(2), got[0].A)
	drops := records(rec, sim.RecDrop, sim.None)
	require.Len(t, drops, 1)
	require.Equal(t, sim.DropPartitionAtSend, drops[0].Reason)
	require.Equal(t, a, drops[0].Peer)
	require.Equal(t, b, drops[0].Node)
	require.Equal(t, ms(5), drops[0].At)
}

// A message whose link is cut while it is in flight is lost at its delivery
// time (DropPartitionInFlight); if the link is healed before it arrives it is
// delivered, because only reachability at delivery time counts.
func TestNetworkCutInFlight(t *testing.T) {
	for _, heal := range []bool{false, true} {
		s := sim.New(sim.Config{Link: sim.LinkConfig{Latency: sim.Constant(10 * time.Millisecond)}})
		rec := &sim.Recorder{}
		s.AddSink(rec)
		l := &probeLog{s: s}
		a := s.AddNode("a", sender(&probeLog{s: s}, []sendPlan{{0, 1, 1}}))
		b := s.AddNode("b", newProbe(l))
		s.At(ms(3), func() { s.Cut(a, b) })
		if heal {
			s.At(ms(6), func() { s.Connect(a, b) })
		}
		require.Equal(t, sim.OutcomeQuiescent, s.Run())
		drops := records(rec, sim.RecDrop, b)
		if heal {
			require.Empty(t, drops)
			require.Len(t, l.of("msg"), 1)
			continue
		}
		require.Empty(t, l.of("msg"))
		require.Len(t, drops, 1)
		require.Equal(t, sim.DropPartitionInFlight, drops[0].Reason)
		require.Equal(t, ms(10), drops[0].At)
		require.Equal(t, sim.Time(0), drops[0].SentAt)
		require.Equal(t, uint64(1), s.Stats().DropReasons[sim.DropPartitionInFlight])
	}
}

// matrix renders s.Reachable over n nodes, one row per sender ("1" = reaches).
func matrix(s *sim.Sim, n int) string {
	var b strings.Builder
	for f := 0; f < n; f++ {
		for to := 0; to < n; to++ {
			if s.Reachable(sim.NodeID(f), sim.NodeID(to)) {
				b.WriteByte('1')
			} else {
				b.WriteByte('.')
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// The partition shapes of control.go give exactly these directed reachability
// matrices over five nodes (row = sender, column = receiver).
func TestNetworkPartitionShapes(t *testing.T) {
	ids := []sim.NodeID{0, 1, 2, 3, 4}
	for _, tc := range []struct {
		name  string
		apply func(s *sim.Sim)
		want  string
	}{
		{"none", func(*sim.Sim) {}, "11111\n11111\n11111\n11111\n11111\n"},
		{"partition 01|234", func(s *sim.Sim) { s.Partition(ids[:2], ids[2:]) },
			"11...\n11...\n..111\n..111\n..111\n"},
		{"partition 0|1 leaves the others", func(s *sim.Sim) { s.Partition(ids[:1], ids[1:2]) },
			"1.111\n.1111\n11111\n11111\n11111\n"},
		{"partition 0|12|34", func(s *sim.Sim) { s.Partition(ids[:1], ids[1:3], ids[3:]) },
			"1....\n.11..\n.11..\n...11\n...11\n"},
		{"isolate 2", func(s *sim.Sim) { s.Isolate(2) },
			"11.11\n11.11\n..1..\n11.11\n11.11\n"},
		{"one-way 0 -/-> 1,2", func(s *sim.Sim) { s.OneWay(ids[:1], ids[1:3]) },
			"1..11\n11111\n11111\n11111\n11111\n"},
		{"cut 3->4", func(s *sim.Sim) { s.Cut(3, 4) },
			"11111\n11111\n11111\n1111.\n11111\n"},
		{"bridge 01|34 via 2", func(s *sim.Sim) { s.Bridge(ids[:3], ids[2:], 2) },
			"111..\n111..\n11111\n..111\n..111\n"},
		{"partition then heal", func(s *sim.Sim) { s.Partition(ids[:2], ids[2:]); s.Isolate(4); s.Heal() },
			"11111\n11111\n11111\n11111\n11111\n"},
		{"isolate then connect 2->0", func(s *sim.Sim) { s.Isolate(2); s.Connect(2, 0) },
			"11.11\n11.11\n1.1..\n11.11\n11.11\n"},
	} {
		s := sim.New(sim.Config{})
		for i := range ids {
			s.AddNode(fmt.Sprint("n", i+1), idle{})
		}
		tc.apply(s)
		require.Equal(t, tc.want, matrix(s, len(ids)), tc.name)
	}
}

// SplitMinority draws a minority of (n-1)/2 from the given stream and
// partitions it from the majority; the same stream gives the same split.
func TestNetworkSplitMinority(t *testing.T) {
	ids := []sim.NodeID{0, 1, 2, 3, 4}
	var first []sim.NodeID
	for i := 0; i < 2; i++ {
		s := sim.New(sim.Config{Seed: 9})
		for i := range ids {
			s.AddNode(fmt.Sprint("n", i+1), idle{})
		}
		min, maj := s.SplitMinority(ids, s.Stream("faults"))
		require.Len(t, min, 2)
		require.Len(t, maj, 3)
		all := append(append([]sim.NodeID(nil), min...), maj...)
		sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
		require.Equal(t, ids, all)
		for _, a := range ids {
			for _, b := range ids {
				same := contains(min, a) == contains(min, b)
				require.Equal(t, same, s.Reachable(a, b), "%d->%d", a, b)
			}
		}
		if i == 0 {
			first = min
		} else {
			require.Equal(t, first, min)
		}
	}
}

func contains(ids []sim.NodeID, id sim.NodeID) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

// burst returns a probe that sends n messages (A = 0..n-1) to `to`, k at a
// time every millisecond.
func burst(l *probeLog, to sim.NodeID, n, k int) *probe {
	p := newProbe(l)
	sent := 0
	p.onStart = func(p *probe, _ []byte) { p.env.SetTimer(0, 0) }
	p.onTimer = func(p *probe, _ sim.TimerID, _ int) {
		for i := 0; i < k && sent < n; i++ {
			p.env.Send(sim.Message{Kind: kindData, To: to, A: int64(sent)})
			sent++
		}
		if sent < n {
			p.env.SetTimer(time.Millisecond, 0)
		}
	}
	return p
}

// A FIFO link never reorders, even with latency uniform over 1–50 ms; the
// same link without FIFO does reorder (so the check can fail).
func TestNetworkFIFONeverReorders(t *testing.T) {
	for _, fifo := range []bool{true, false} {
		s := sim.New(sim.Config{Seed: 3, Link: sim.LinkConfig{Latency: sim.Uniform(time.Millisecond, 50*time.Millisecond), FIFO: fifo}})
		l := &probeLog{s: s}
		s.AddNode("a", burst(&probeLog{s: s}, 1, 2000, 3))
		s.AddNode("b", newProbe(l))
		require.Equal(t, sim.OutcomeQuiescent, s.Run())
		msgs := l.of("msg")
		require.Len(t, msgs, 2000)
		inversions := 0
		for i := 1; i < len(msgs); i++ {
			if msgs[i].A < msgs[i-1].A {
				inversions++
			}
		}
		if fifo {
			require.Zero(t, inversions)
		} else {
			require.Greater(t, inversions, 100)
		}
	}
}

// A per-link latency override applies to that directed link only.
func TestNetworkPerLinkLatency(t *testing.T) {
	s := sim.New(sim.Config{Link: sim.LinkConfig{Latency: sim.Constant(time.Millisecond)}})
	rec := &sim.Recorder{}
	s.AddSink(rec)
	s.AddNode("a", sender(&probeLog{s: s}, []sendPlan{{0, 1, 1}, {0, 2, 2}}))
	s.AddNode("b", sender(&probeLog{s: s}, []sendPlan{{0, 0, 3}, {0, 2, 4}}))
	s.AddNode("c", newProbe(&probeLog{s: s}))
	slow := sim.LinkConfig{Latency: sim.Constant(50 * time.Millisecond)}
	s.SetLink(0, 1, slow)
	require.Equal(t, slow, s.Link(0, 1))
	require.Equal(t, sim.Constant(time.Millisecond), s.Link(1, 0).Latency)
	require.Equal(t, sim.OutcomeQuiescent, s.Run())
	lat := map[string]time.Duration{}
	for _, d := range records(rec, sim.RecDeliver, sim.None) {
		lat[fmt.Sprintf("%d->%d", d.Peer, d.Node)] = d.At.Sub(d.SentAt)
	}
	require.Equal(t, map[string]time.Duration{
		"0->1": 50 * time.Millisecond,
		"0->2": time.Millisecond,
		"1->0": time.Millisecond,
		"1->2": time.Millisecond,
	}, lat)
}

// Stats count every message exactly once: Sent = Delivered + Dropped -
// Duplicated under loss, duplication, a partition, a pause, crashes and
// slow disks.
func TestNetworkStatsBalance(t *testing.T) {
	s, ids := newVoteCluster(5, 5)
	s.SetAllLinks(sim.LinkConfig{Latency: sim.Uniform(time.Millisecond, 20*time.Millisecond), Drop: 0.05, Duplicate: 0.05})
	for _, id := range ids {
		s.SetFsync(id, sim.Uniform(time.Millisecond, 5*time.Millisecond))
	}
	newCrashDriver(s, ids, 2)
	s.At(sim.Time(10*time.Second), func() { s.Partition(ids[:2], ids[2:]) })
	s.At(sim.Time(20*time.Second), func() { s.Heal() })
	s.At(sim.Time(25*time.Second), func() { s.Pause(ids[0]) })
	s.At(sim.Time(27*time.Second), func() { s.Resume(ids[0]) })
	s.RunUntil(sim.Time(40 * time.Second))
	// Cut every link, then drain: whatever is in flight or held behind a
	// disk write (max 20 ms + 5 ms) is dropped, and every later send too.
	for _, id := range ids {
		s.Isolate(id)
	}
	s.RunFor(time.Second)
	st := s.Stats()
	for _, k := range []sim.MsgKind{kindVote, kindVoteResp, kindBeat} {
		require.NotZero(t, st.Sent[k], k.String())
		require.Equal(t, st.Sent[k], st.Delivered[k]+st.Dropped[k]-st.Duplicated[k], k.String())
	}
	var reasons uint64
	for _, n := range st.DropReasons {
		reasons += n
	}
	require.Equal(t, st.Dropped[kindVote]+st.Dropped[kindVoteResp]+st.Dropped[kindBeat], reasons)
	for _, r := range []sim.DropReason{sim.DropLoss, sim.DropPartitionAtSend, sim.DropDestDown} {
		require.NotZero(t, st.DropReasons[r], r.String())
	}
}
