package ring

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/electsim/electsim/sim"
	"github.com/electsim/electsim/sim/simtest"
)

// TestPayloadsNameTheirFields: every payload lands in the slots its kind
// names after its fields, and decodes back.
func TestPayloadsNameTheirFields(t *testing.T) {
	l := lap{Round: 3, ID: 4, HopSeq: 7, OriginAndHops: pack(2, 5)}
	for _, k := range []sim.MsgKind{KindElection, KindCoordinator} {
		m := l.message(k)
		simtest.CheckPayload(t, m, l)
		assert.Equal(t, l, lapOf(&m), "%s", k)
	}
	a := ack{Round: 3, HopSeq: 7}
	m := a.message(1)
	simtest.CheckPayload(t, m, a)
	assert.Equal(t, a, ackOf(&m))
	h := heartbeat{Round: 3}
	m = h.message(1)
	simtest.CheckPayload(t, m, h)
	assert.Equal(t, h, heartbeatOf(&m))
	origin, hops := unpack(l.OriginAndHops)
	assert.Equal(t, sim.NodeID(2), origin)
	assert.Equal(t, 5, hops)
}
