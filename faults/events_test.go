package faults

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/sim"
)

// EventOf reads every built-in event from a record's type and fact, in
// Events() order (hunt's coverage alphabet relies on the order), and no
// event from a record with neither.
func TestEventOfEveryEvent(t *testing.T) {
	recs := map[string]sim.Record{
		EventElected:     {Type: sim.RecLead},
		EventSteppedDown: {Type: sim.RecStepDown},
		EventRenew:       {Type: sim.RecEffect, Fact: sim.FactLeaseRenewed},
		EventAcquired:    {Type: sim.RecEffect, Fact: sim.FactLeaseAcquired},
		EventExpired:     {Type: sim.RecEffect, Fact: sim.FactLeaseExpired},
		EventJobStarted:  {Type: sim.RecEffect, Fact: sim.FactRunStarted},
		EventJobFinished: {Type: sim.RecEffect, Fact: sim.FactRunFinished},
	}
	require.Len(t, recs, len(Events()))
	for i, ev := range Events() {
		r := recs[ev]
		got, ok := EventOf(&r)
		assert.True(t, ok, ev)
		assert.Equal(t, i, got, ev)
	}
	_, ok := EventOf(&sim.Record{Type: sim.RecEffect, Name: "lease.renewed"})
	assert.False(t, ok, "a name without its typed fact is no event")
}
