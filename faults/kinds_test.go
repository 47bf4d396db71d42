package faults_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/algorithms/lease"
	"github.com/electsim/electsim/faults"
	"github.com/electsim/electsim/sim"
)

func frp(v float64) *faults.FloatRange {
	r := faults.Float(v)
	return &r
}

// wallSkew is the node's wall clock minus true calendar time.
func wallSkew(s *sim.Sim, id sim.NodeID) time.Duration {
	return s.Clock(id).Wall.Sub(sim.DefaultWallStart) - s.Now().Duration()
}

// The clock example: offset +2s and rate 1.3 on node n0 for 10s.
// While it lasts the wall clock is 2s ahead plus 30% drift; reverting steps
// the offset back and restores rate 1 but keeps the 3s the fast clock gained
// (docs/faults.md, "clock").
func TestClockOffsetAndRateRevert(t *testing.T) {
	h := newHarness(t, opts{seed: 1}, nil, nil)
	h.inject([]faults.Fault{{At: faults.Dur(sec(10)), For: durp(10 * time.Second),
		Clock: &faults.Clock{Target: faults.Nodes(0), Offset: durp(2 * time.Second), Rate: frp(1.3)}}})
	h.s.RunUntil(at(15))
	c := h.s.Clock(0)
	assert.Equal(t, sim.Rate(1.3), c.MonoRatePPB)
	assert.Equal(t, sim.Rate(1.3), c.WallRatePPB)
	assert.Equal(t, sec(3.5), wallSkew(h.s, 0)) // +2s offset, +1.5s drift over 5s
	assert.Equal(t, sec(16.5), c.Mono)
	h.s.RunUntil(at(25))
	c = h.s.Clock(0)
	assert.Equal(t, sim.RateOne, c.MonoRatePPB)
	assert.Equal(t, sim.RateOne, c.WallRatePPB)
	assert.Equal(t, sec(3), wallSkew(h.s, 0))
	assert.Equal(t, sec(28), c.Mono)
	assert.Equal(t, time.Duration(0), wallSkew(h.s, 1))
	assert.Equal(t, []string{
		"10.000s fault.clock faults[0]: clock n0: offset +2.000s, rate 1.3 for 10.000s",
		"20.000s fault.revert faults[0]: clock n0: offset -2.000s back, rates restored",
	}, h.notes("fault."))
}

// Overlapping clock faults layer: A sets both rates to 1.5 from 1s to 10s,
// B the monotonic rate to 0.8 from 5s to 15s. When A ends first, the wall
// clock goes back to 1 but the monotonic clock keeps B's 0.8.
func TestClockLayersOverlap(t *testing.T) {
	h := newHarness(t, opts{seed: 1}, nil)
	h.inject([]faults.Fault{
		{At: faults.Dur(sec(1)), For: durp(9 * time.Second), Clock: &faults.Clock{Target: faults.Nodes(0), Rate: frp(1.5)}},
		{At: faults.Dur(sec(5)), For: durp(10 * time.Second), Clock: &faults.Clock{Target: faults.Nodes(0), MonoRate: frp(0.8)}},
		{At: faults.Dur(sec(20)), Clock: &faults.Clock{Target: faults.Nodes(0), Step: durp(-time.Second)}},
	})
	rates := func() [2]float64 {
		c := h.s.Clock(0)
		return [2]float64{float64(c.MonoRatePPB) / 1e9, float64(c.WallRatePPB) / 1e9}
	}
	h.s.RunUntil(at(3))
	assert.Equal(t, [2]float64{1.5, 1.5}, rates())
	h.s.RunUntil(at(7))
	assert.Equal(t, [2]float64{0.8, 1.5}, rates())
	h.s.RunUntil(at(12))
	assert.Equal(t, [2]float64{0.8, 1}, rates())
	h.s.RunUntil(at(16))
	assert.Equal(t, [2]float64{1, 1}, rates())
	skew := wallSkew(h.s, 0) // 9s at 1.5 gained 4.5s
	assert.Equal(t, sec(4.5), skew)
	h.s.RunUntil(at(30))
	assert.Equal(t, sec(3.5), wallSkew(h.s, 0), "a step is never reverted")
	var clk []string
	for _, r := range h.records(sim.RecFault, 0) {
		clk = append(clk, r.At.String()+" "+r.Name)
	}
	assert.Equal(t, []string{"1.000s clock.rate", "1.000s fault.clock", "5.000s clock.mono_rate", "5.000s fault.clock",
		"10.000s clock.wall_rate", "10.000s fault.revert", "15.000s clock.mono_rate", "15.000s fault.revert",
		"20.000s clock.step", "20.000s fault.clock"}, clk)
}

// A link fault changes only its links and restores them; a fault over every
// link is one engine record. Overlapping link faults layer per field.
func TestLinkFaults(t *testing.T) {
	h := newHarness(t, opts{seed: 1}, nil, nil, nil)
	base := h.s.Link(0, 1)
	lat := sim.Constant(50 * time.Millisecond)
	h.inject([]faults.Fault{
		{At: faults.Dur(sec(1)), For: durp(time.Second), Link: &faults.Link{Latency: &lat}},
		{At: faults.Dur(sec(1.5)), For: durp(sec(2.5)), Link: &faults.Link{From: tgt(faults.Nodes(0)), BothWays: true, Drop: frp(0.5)}},
		{At: faults.Dur(sec(5)), For: durp(time.Second), Link: &faults.Link{From: tgt(faults.Nodes(1)), To: tgt(faults.Nodes(2)), Duplicate: frp(0.25)}},
	})
	h.s.RunUntil(at(1.2))
	for a := sim.NodeID(0); a < 3; a++ {
		for b := sim.NodeID(0); b < 3; b++ {
			assert.Equal(t, lat, h.s.Link(a, b).Latency)
		}
	}
	h.s.RunUntil(at(1.7))
	assert.Equal(t, sim.LinkConfig{Latency: lat, Drop: 0.5}, h.s.Link(0, 1))
	assert.Equal(t, sim.LinkConfig{Latency: lat, Drop: 0.5}, h.s.Link(2, 0))
	assert.Equal(t, sim.LinkConfig{Latency: lat}, h.s.Link(1, 2))
	h.s.RunUntil(at(2.5))
	assert.Equal(t, sim.LinkConfig{Latency: base.Latency, Drop: 0.5}, h.s.Link(0, 1))
	assert.Equal(t, base, h.s.Link(1, 2))
	h.s.RunUntil(at(5.5))
	assert.Equal(t, base, h.s.Link(0, 1))
	assert.Equal(t, sim.LinkConfig{Latency: base.Latency, Duplicate: 0.25}, h.s.Link(1, 2))
	assert.Equal(t, base, h.s.Link(2, 1))
	h.s.RunUntil(at(7))
	assert.Equal(t, base, h.s.Link(1, 2))
	count := map[string]int{}
	for _, r := range h.records(sim.RecFault, sim.None) {
		count[fmt.Sprintf("%v %s", r.At, r.Name)]++
	}
	assert.Equal(t, map[string]int{
		"1.000s net.links": 1, "1.000s fault.link": 1,
		"1.500s net.link": 4, "1.500s fault.link": 1, // n0<->n1, n0<->n2
		"2.000s net.link": 9, "2.000s fault.revert": 1, // every link back to 1ms; n0's keep drop 0.5
		"4.000s net.link": 4, "4.000s fault.revert": 1,
		"5.000s net.link": 1, "5.000s fault.link": 1,
		"6.000s net.link": 1, "6.000s fault.revert": 1,
	}, count)
	assert.Equal(t, []string{
		"1.000s fault.link faults[0]: link all -> all: latency constant(50ms) for 1.000s",
		"1.500s fault.link faults[1]: link n0 <-> all: drop 0.5 for 2.500s",
		"2.000s fault.revert faults[0]: link all -> all restored (9 links)",
		"4.000s fault.revert faults[1]: link n0 <-> all restored (4 links)",
		"5.000s fault.link faults[2]: link n1 -> n2: duplicate 0.25 for 1.000s",
		"6.000s fault.revert faults[2]: link n1 -> n2 restored (1 links)",
	}, h.notes("fault."))
}

// A slow disk sets the node's fsync latency and restores it.
func TestDiskFault(t *testing.T) {
	h := newHarness(t, opts{seed: 1}, nil, nil)
	h.inject([]faults.Fault{{At: faults.Dur(sec(1)), For: durp(time.Second),
		Disk: &faults.Disk{Target: faults.Nodes(1), Fsync: sim.Uniform(100*time.Millisecond, 900*time.Millisecond)}}})
	h.s.RunUntil(at(1.5))
	assert.Equal(t, sim.Uniform(100*time.Millisecond, 900*time.Millisecond), h.s.FsyncLatency(1))
	assert.Equal(t, sim.Constant(0), h.s.FsyncLatency(0))
	h.s.RunUntil(at(3))
	assert.Equal(t, sim.Constant(0), h.s.FsyncLatency(1))
	assert.Equal(t, []string{
		"1.000s fault.disk faults[0]: disk n1: fsync uniform(100ms..900ms) for 1.000s",
		"2.000s fault.revert faults[0]: disk n1: fsync restored",
	}, h.notes("fault."))
}

// Crash reverts to a restart with the disk (or wiped, with WipeDisk); Restart
// is instantaneous, with or without the persisted state.
func TestCrashAndRestart(t *testing.T) {
	h := newHarness(t, opts{seed: 1}, nil, nil, nil)
	for i := 0; i < 3; i++ {
		h.s.Node(sim.NodeID(i)).(*scripted).persist = true
	}
	h.inject([]faults.Fault{
		{At: faults.Dur(sec(1)), For: durp(time.Second), Crash: &faults.Crash{Target: faults.Nodes(0)}},
		{At: faults.Dur(sec(3)), Restart: &faults.Restart{Target: faults.Nodes(1), WipeDisk: true}},
		{At: faults.Dur(sec(4)), Restart: &faults.Restart{Target: faults.Nodes(2)}},
		{At: faults.Dur(sec(5)), For: durp(time.Second), Crash: &faults.Crash{Target: faults.Nodes(2), WipeDisk: true}},
	})
	h.s.RunUntil(at(1.5))
	assert.False(t, h.s.IsUp(0))
	h.s.RunUntil(at(7))
	var starts []string
	for _, r := range h.records(sim.RecStart, sim.None) {
		if r.At > 0 {
			starts = append(starts, fmt.Sprintf("%v %s %q", r.At, h.s.NodeName(r.Node), r.Detail))
		}
	}
	assert.Equal(t, []string{`2.000s n0 "restored"`, `3.000s n1 ""`, `4.000s n2 "restored"`, `6.000s n2 ""`}, starts)
	assert.Equal(t, []string{
		"1.000s fault.crash faults[0]: crash n0 for 1.000s",
		"2.000s fault.revert faults[0]: restart n0, disk kept",
		"3.000s fault.restart faults[1]: restart n1, disk wiped",
		"4.000s fault.restart faults[2]: restart n2, disk kept",
		"5.000s fault.crash faults[3]: crash n2 for 1.000s",
		"6.000s fault.revert faults[3]: restart n2, disk wiped",
	}, h.notes("fault."))
}

// leaseCluster is k ttl-flavour lease candidates (algorithms/lease) and the
// store, for faults that need a real lease history.
func leaseCluster(t *testing.T, seed uint64, k int) *harness {
	t.Helper()
	h := &harness{t: t, rec: &sim.Recorder{}, res: sim.None}
	h.s = sim.New(sim.Config{Seed: seed, MaxTime: time.Hour, Link: sim.LinkConfig{Latency: sim.Uniform(time.Millisecond, 10*time.Millisecond)}})
	h.s.AddSink(h.rec)
	for i := 0; i < k; i++ {
		h.cands = append(h.cands, sim.NodeID(i))
	}
	cfg := lease.DefaultConfig()
	cfg.Flavor = lease.FlavorTTL
	for i := 0; i < k; i++ {
		h.s.AddNode(fmt.Sprintf("n%d", i), lease.MustNew(cfg, h.cands, sim.NodeID(k)))
	}
	h.st = lease.NewStore(lease.StoreConfig{})
	h.store = h.s.AddNode("store", h.st, sim.Service())
	return h
}

// effects returns the store's effects named name, as "time A" lines.
func (h *harness) effects(name string) []string {
	var out []string
	for _, r := range h.records(sim.RecEffect, h.store) {
		if r.Name == name {
			out = append(out, fmt.Sprintf("%v %d", r.At, r.A))
		}
	}
	return out
}

// Store unavailability makes the store ignore requests and then serve again;
// a failover reverts the most recent writes (lease/store.go FailoverLoseLast),
// at once alone, or when the unavailability ends with both.
func TestStoreFaults(t *testing.T) {
	h := leaseCluster(t, 1, 3)
	lose2, lose1 := faults.Int(2), faults.Int(1)
	h.inject([]faults.Fault{
		{At: faults.Dur(sec(5)), For: durp(3 * time.Second), Store: &faults.Store{Unavailable: true}},
		{At: faults.Dur(sec(20)), Store: &faults.Store{LoseLastWrites: &lose2}},
		{At: faults.Dur(sec(30)), For: durp(2 * time.Second), Store: &faults.Store{Unavailable: true, LoseLastWrites: &lose1}},
	})
	h.s.RunUntil(at(6))
	assert.True(t, h.st.Unavailable())
	h.s.RunUntil(at(40))
	assert.False(t, h.st.Unavailable())
	assert.Positive(t, h.st.Ignored())
	assert.Equal(t, []string{"5.000s -1", "30.000s -1"}, h.effects(lease.EffectUnavailable))
	assert.Equal(t, []string{"8.000s -1", "32.000s -1"}, h.effects(lease.EffectAvailable))
	assert.Equal(t, []string{"20.000s 2", "32.000s 1"}, h.effects(lease.EffectFailover))
	assert.Equal(t, []string{
		"5.000s fault.store faults[0]: store unavailable for 3.000s",
		"8.000s fault.revert faults[0]: store available",
		"20.000s fault.store faults[1]: store failover lost 2 of the last 2 writes",
		"30.000s fault.store faults[2]: store unavailable, then failover losing the last 1 writes for 2.000s",
		"32.000s fault.revert faults[2]: store failover lost 1 of the last 1 writes, available",
	}, h.notes("fault."))
}

// lease_holder resolves from the store's record.
func TestLeaseHolderTarget(t *testing.T) {
	h := leaseCluster(t, 2, 3)
	h.inject([]faults.Fault{{At: faults.Dur(sec(10)), For: durp(time.Second), Pause: &faults.Pause{Target: faults.LeaseHolder()}}})
	h.s.RunUntil(at(10))
	rec, ok := h.st.Get("leader")
	require.True(t, ok)
	h.s.RunUntil(at(12))
	p := h.records(sim.RecPause, sim.None)
	require.Len(t, p, 1)
	assert.Equal(t, rec.Holder, p[0].Node)
	assert.Equal(t, []string{fmt.Sprintf("10.000s fault.pause faults[0]: pause n%d (lease_holder, token %d) for 1.000s", rec.Holder, rec.Token)},
		h.notes("fault.pause"))
}
