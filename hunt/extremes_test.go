package hunt

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/contract"
	"github.com/electsim/electsim/faults"
	"github.com/electsim/electsim/registry"
	"github.com/electsim/electsim/sim"
)

// The extremes strategy draws a duration parameter's declared edges
// (registry.Param.MinDur, MaxDur), both of them over a few draws, and
// leaves a duration without a declared range, or a pinned one, alone.
func TestExtremesDrawDurationEdges(t *testing.T) {
	desc := &registry.Algorithm{Name: "x", Params: []registry.Param{
		{Key: "timeout", Kind: registry.Duration, MinDur: 10 * time.Millisecond, MaxDur: 2 * time.Second},
		{Key: "interval", Kind: registry.Duration},
		{Key: "pinned", Kind: registry.Duration, MinDur: time.Millisecond, MaxDur: time.Second},
	}}
	d := &drawer{o: &Options{}, b: &base{desc: desc, pinned: []string{"pinned"}}, rng: sim.NewRand(1, "t")}
	seen := map[string]int{}
	for i := 0; i < 64; i++ {
		for _, kv := range d.extremes() {
			seen[kv]++
		}
	}
	assert.Positive(t, seen["algorithm.timeout=10ms"], "the range's lower edge: %v", seen)
	assert.Positive(t, seen["algorithm.timeout=2s"], "the range's upper edge: %v", seen)
	assert.Len(t, seen, 2, "only timeout's edges: interval has no range and pinned is pinned: %v", seen)
}

// A link fault's latency stays within what the contract assumes (a
// synchronous model's contract.LatencyTerms.Assume: a slower link voids the
// contract, so the run could only find what was never promised), and link
// faults mix latency, loss and duplication, each of them drawn.
func TestLinkFaultsWithinTheAssumedLatency(t *testing.T) {
	assume := 49 * time.Millisecond
	c := &cluster{declared: contract.Contract{Guarantees: []contract.Guarantee{
		{Check: "split_brain", Latency: contract.LatencyTerms{Assume: time.Second}},
		{Check: "election_safety", Latency: contract.LatencyTerms{Assume: assume}},
	}}}
	d := &drawer{o: &Options{}, rng: sim.NewRand(1, "t")}
	var lat, drop, dup int
	for i := 0; i < 200; i++ {
		l := d.link(c, faults.Nodes(1))
		require.True(t, l.Latency != nil || l.Drop != nil || l.Duplicate != nil, "an empty link fault")
		if l.Latency != nil {
			lat++
			require.LessOrEqual(t, l.Latency.Max, assume)
		}
		if l.Drop != nil {
			drop++
		}
		if l.Duplicate != nil {
			dup++
		}
	}
	assert.Positive(t, lat)
	assert.Positive(t, drop)
	assert.Positive(t, dup)
	// Without an assumption, latencies reach past it.
	slow := false
	for i := 0; i < 200; i++ {
		if l := d.link(&cluster{}, faults.Nodes(1)); l.Latency != nil && l.Latency.Max > assume {
			slow = true
		}
	}
	assert.True(t, slow)
}
