package bully

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/electsim/electsim/sim"
	"github.com/electsim/electsim/sim/simtest"
)

// TestPayloadNamesItsFields: the epoch claim lands in the slots the kinds
// name after its fields, and decodes back.
func TestPayloadNamesItsFields(t *testing.T) {
	c := epochClaim{Epoch: 4, EpochMinter: 2}
	for _, k := range []sim.MsgKind{KindElection, KindAnswer, KindCoordinator, KindHeartbeat} {
		m := c.message(k, 1)
		simtest.CheckPayload(t, m, epochClaim{Epoch: 4, EpochMinter: 2})
		assert.Equal(t, c, epochClaimOf(&m), "%s", k)
	}
}
