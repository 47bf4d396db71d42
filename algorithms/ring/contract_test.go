package ring

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/electsim/electsim/contract"
)

func TestContractIsTheSynchronousModel(t *testing.T) {
	c := DefaultConfig()
	c.AckTimeout = 30 * time.Millisecond
	for _, g := range Contract(c).Guarantees {
		assert.Zero(t, g.MaxOverlap, g.Check)
		assert.Equal(t, 15*time.Millisecond-1, g.Latency.Assume, "an acknowledged hop within 30ms")
		assert.False(t, g.Excuses(contract.ClockStep), "no wall clock is read")
		assert.True(t, g.Excuses(contract.Partition))
	}
	r := Contract(c).Resolve(contract.Network{Min: time.Millisecond, Max: 10 * time.Millisecond, Bounded: true})
	assert.Len(t, r.Guarantees, 2)
}
