package contract

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A guarantee with a Deadline (missed_slots) takes its latency terms
// there, never in MaxOverlap; Merge keeps the later deadline and the
// longer recovery (the weaker promise).
func TestResolveAddsLatencyToTheDeadline(t *testing.T) {
	c := Contract{Guarantees: []Guarantee{
		{Check: "missed_slots", Deadline: 4 * time.Second, Recovery: time.Minute, Latency: LatencyTerms{Max: 5}},
		{Check: "split_brain", MaxOverlap: -3 * ms, Latency: LatencyTerms{Max: 1}},
	}}
	r := c.Resolve(Network{Min: 1 * ms, Max: 10 * ms, Bounded: true})
	require.Len(t, r.Guarantees, 2)
	assert.Equal(t, 4*time.Second+50*ms, r.Guarantees[0].Deadline, "4 s + 5 × 10 ms")
	assert.Zero(t, r.Guarantees[0].MaxOverlap)
	assert.Equal(t, 7*ms, r.Guarantees[1].MaxOverlap, "−3 ms + 10 ms")
	assert.Zero(t, r.Guarantees[1].Deadline)

	m := Contract{Guarantees: []Guarantee{{Check: "missed_slots", Deadline: time.Second, Recovery: 2 * time.Minute}}}.
		Merge(Contract{Guarantees: []Guarantee{{Check: "missed_slots", Deadline: 3 * time.Second, Recovery: time.Minute}}})
	require.Len(t, m.Guarantees, 1)
	assert.Equal(t, 3*time.Second, m.Guarantees[0].Deadline)
	assert.Equal(t, 2*time.Minute, m.Guarantees[0].Recovery)
}
