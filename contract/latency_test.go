package contract

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const ms = time.Millisecond

func TestResolveAddsLatencyTerms(t *testing.T) {
	c := Contract{Guarantees: []Guarantee{
		{Check: "split_brain", MaxOverlap: 300 * ms, Latency: LatencyTerms{Spread: 1}},
		{Check: "election_safety"},
		{Check: "x", Latency: LatencyTerms{Max: 2}},
	}}
	r := c.Resolve(Network{Min: 1 * ms, Max: 10 * ms, Bounded: true})
	require.Len(t, r.Guarantees, 3)
	assert.Equal(t, 309*ms, r.Guarantees[0].MaxOverlap, "300ms + (10ms − 1ms)")
	assert.Equal(t, time.Duration(0), r.Guarantees[1].MaxOverlap)
	assert.Equal(t, 20*ms, r.Guarantees[2].MaxOverlap, "2 × 10ms")
	for _, g := range r.Guarantees {
		assert.Zero(t, g.Latency, "resolved guarantees carry no terms")
	}
	assert.Equal(t, 300*ms, c.Guarantees[0].MaxOverlap, "Resolve must not change its receiver")
}

// Must refute: a guarantee whose bound needs a latency the network does not
// bound, or whose synchronous assumption the network breaks, is not kept.
func TestResolveDropsWhatTheNetworkCannotHonour(t *testing.T) {
	c := Contract{Guarantees: []Guarantee{
		{Check: "split_brain", MaxOverlap: 300 * ms, Latency: LatencyTerms{Spread: 1}},
		{Check: "election_safety"},
		{Check: "sync", Latency: LatencyTerms{Assume: 50 * ms}},
	}}
	r := c.Resolve(Network{Min: 1 * ms})
	require.Len(t, r.Guarantees, 1, "unbounded: only the latency-free guarantee stays")
	assert.Equal(t, "election_safety", r.Guarantees[0].Check)

	r = c.Resolve(Network{Min: 1 * ms, Max: 50 * ms, Bounded: true})
	_, ok := r.For("sync")
	assert.True(t, ok, "50ms is within the assumption")
	r = c.Resolve(Network{Min: 1 * ms, Max: 51 * ms, Bounded: true})
	_, ok = r.For("sync")
	assert.False(t, ok, "51ms breaks the synchronous assumption")
}

func TestMergeKeepsWeakerLatencyAndAnywhere(t *testing.T) {
	a := Contract{Guarantees: []Guarantee{{Check: "split_brain", Unless: []FaultClass{Crash}, Anywhere: []FaultClass{Crash},
		Latency: LatencyTerms{Spread: 1, Assume: 80 * ms}}}}
	b := Contract{Guarantees: []Guarantee{{Check: "split_brain", Unless: []FaultClass{DiskLoss}, Anywhere: []FaultClass{DiskLoss},
		Latency: LatencyTerms{Max: 1, Assume: 40 * ms}}}}
	g, ok := a.Merge(b).For("split_brain")
	require.True(t, ok)
	assert.Equal(t, []FaultClass{Crash, DiskLoss}, g.Anywhere)
	assert.Equal(t, LatencyTerms{Max: 1, Spread: 1, Assume: 40 * ms}, g.Latency)
	assert.True(t, g.ExcusesAnywhere(DiskLoss))
	assert.False(t, g.ExcusesAnywhere(Pause))
	assert.Len(t, a.Guarantees[0].Anywhere, 1, "Merge must not change its receiver")
}

// Anywhere names only classes of Unless: a class it lists but Unless does
// not excuses nothing.
func TestExcusesAnywhereNeedsUnless(t *testing.T) {
	g := Guarantee{Anywhere: []FaultClass{DiskLoss}}
	assert.False(t, g.ExcusesAnywhere(DiskLoss))
}

// A bound that latency makes up for (max(0, ℓmax − T/3)) states a negative
// MaxOverlap; Resolve adds the latency and never leaves it below zero.
func TestResolveClampsAtZero(t *testing.T) {
	c := Contract{Guarantees: []Guarantee{{Check: "split_brain", MaxOverlap: -time.Second, Latency: LatencyTerms{Max: 1}}}}
	for lat, want := range map[time.Duration]time.Duration{
		10 * time.Millisecond: 0,
		time.Second:           0,
		3 * time.Second:       2 * time.Second,
	} {
		r := c.Resolve(Network{Max: lat, Bounded: true})
		if assert.Len(t, r.Guarantees, 1) {
			assert.Equal(t, want, r.Guarantees[0].MaxOverlap, "latency %v", lat)
		}
	}
}
