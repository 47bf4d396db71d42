package bully

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/electsim/electsim/contract"
)

func TestContractIsTheSynchronousModel(t *testing.T) {
	c := DefaultConfig()
	c.AnswerTimeout = 80 * time.Millisecond
	for _, g := range Contract(c).Guarantees {
		assert.Zero(t, g.MaxOverlap, g.Check)
		assert.Equal(t, 40*time.Millisecond-1, g.Latency.Assume, "a round trip below T = 80ms")
		assert.False(t, g.Excuses(contract.ClockStep), "no wall clock is read")
		assert.False(t, g.Excuses(contract.Link), "a latency change within T/2 is inside the model")
		for _, c := range []contract.FaultClass{contract.Partition, contract.Loss, contract.Restart, contract.Pause, contract.ClockRate} {
			assert.True(t, g.Excuses(c), "%s outside the model", c)
		}
		assert.False(t, g.Excuses(contract.Crash), "crash-stop is the model")
	}
	r := Contract(c).Resolve(contract.Network{Min: time.Millisecond, Max: 40 * time.Millisecond, Bounded: true})
	assert.True(t, r.Empty(), "a 40ms one-way latency breaks T = 80ms: no promise")
}
