package contract

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// A configuration that promises nothing under a network fault says so; one
// excused only by faults of its own nodes does not.
func TestCaveat(t *testing.T) {
	assert.Equal(t, "promises no exclusion at all: two nodes may act as leader at once under any fault", Contract{}.Caveat())
	sync := Synchronous(100, "x")
	assert.Equal(t, "promises no exclusion under partition, loss", sync.Caveat())
	local := Contract{Guarantees: []Guarantee{{Check: "split_brain", Unless: []FaultClass{Pause, ClockRate}}}}
	assert.Empty(t, local.Caveat())
	wall := Contract{Guarantees: []Guarantee{{Check: "split_brain", Unless: []FaultClass{Partition, Link, Loss, ServiceDown, Pause}}}}
	assert.Equal(t, "promises no exclusion under partition, loss, link, service_down", wall.Caveat())
}
