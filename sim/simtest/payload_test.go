package simtest_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/electsim/electsim/sim"
	"github.com/electsim/electsim/sim/simtest"
)

var payloadKind = sim.RegisterKind("simtest.PayloadProbe", sim.Fields{Term: "term", A: "last_log_term", Flag: "granted"})

type probe struct {
	Term        int64
	LastLogTerm int64
	Granted     bool
}

// TestPayloadProblems: a payload whose fields land in the slots named
// after them passes; a swapped slot, a field the kind does not name and a
// named slot no field fills are each reported.
func TestPayloadProblems(t *testing.T) {
	p := probe{Term: 3, LastLogTerm: 5, Granted: true}
	good := sim.Message{Kind: payloadKind, Term: 3, A: 5, Flag: true}
	assert.Empty(t, simtest.PayloadProblems(good, p))

	swapped := sim.Message{Kind: payloadKind, Term: 5, A: 3, Flag: true}
	assert.Len(t, simtest.PayloadProblems(swapped, p), 2)

	type extra struct {
		Term, LastLogTerm, Index int64
		Granted                  bool
	}
	probs := simtest.PayloadProblems(good, extra{Term: 3, LastLogTerm: 5, Index: 9, Granted: true})
	assert.Len(t, probs, 1)
	assert.Contains(t, probs[0], `("index") has no slot`)

	type missing struct{ Term, LastLogTerm int64 }
	probs = simtest.PayloadProblems(good, missing{Term: 3, LastLogTerm: 5})
	assert.Len(t, probs, 1)
	assert.Contains(t, probs[0], `"granted" that no payload field fills`)
}
