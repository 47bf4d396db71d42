package sim_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/electsim/electsim/sim"
)

// TestStartedSimCannotBeReconfigured: the node set is fixed when the run
// starts; adding a node afterwards, built once or fresh on every boot,
// panics instead of silently joining a run whose trace has begun.
func TestStartedSimCannotBeReconfigured(t *testing.T) {
	s := sim.New(sim.Config{})
	s.AddNode("a", idle{})
	s.AddFreshNode("b", func() sim.Node { return idle{} })
	s.RunFor(time.Millisecond)
	assert.PanicsWithValue(t, "sim: AddNode after the run started", func() { s.AddNode("c", idle{}) })
	assert.PanicsWithValue(t, "sim: AddNode after the run started", func() {
		s.AddFreshNode("d", func() sim.Node { return idle{} })
	})
	assert.Equal(t, 2, s.NumNodes())
}
