package hunt

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/sim"
)

// A protocol state counts with a fault class when the fault showed within
// pairWindow before it; transitions are a node's consecutive events; a
// record without a typed fact is no event, whatever its name.
func TestProbeCoverage(t *testing.T) {
	a := newAlphabet([]string{"vote_granted", "term_bumped"})
	p := newProbe(a)
	at := func(d time.Duration) sim.Time { return sim.Time(d) }
	p.Record(&sim.Record{At: at(time.Second), Type: sim.RecCrash, Node: 2})
	p.Record(&sim.Record{At: at(1500 * time.Millisecond), Type: sim.RecEffect, Node: 1, Fact: sim.FactProtocolState, A: 1})
	p.Record(&sim.Record{At: at(3 * time.Second), Type: sim.RecEffect, Node: 1, Fact: sim.FactProtocolState, A: 0})
	p.Record(&sim.Record{At: at(3 * time.Second), Type: sim.RecEffect, Node: 1, Name: "x.vote_granted"})
	p.Record(&sim.Record{At: at(4 * time.Second), Type: sim.RecLead, Node: 1})
	r := newReach(a)
	assert.True(t, r.merge(p))
	c := r.coverage(a.size(), 1, 0)
	assert.Equal(t, []string{"elected", "term_bumped", "vote_granted"}, c.Events)
	assert.Equal(t, []string{"term_bumped×crash"}, c.Pairs, "vote_granted came 2s after the crash: no pair")
	assert.Equal(t, 2, c.Edges, "term_bumped→vote_granted→elected")
	assert.False(t, r.merge(p), "nothing new the second time")
}

// A search never reports more (event × fault class) pairs reached than
// exist: the classes a kind's faults show (classesOfKind) are those the
// trace shows for them (contract.ClassesOf), a restarted node's restart
// included.
func TestCoveragePairsWithinKnown(t *testing.T) {
	for _, algo := range []string{"raft", "bully"} {
		res, err := Search(context.Background(), Options{Algo: algo, Runs: 150, Seed: 1, Workers: 1, Quiet: true})
		require.NoError(t, err)
		assert.LessOrEqual(t, len(res.Coverage.Pairs), res.Coverage.PairsKnown, "%s: %v", algo, res.Coverage.Pairs)
		assert.LessOrEqual(t, len(res.Coverage.Events), res.Coverage.EventsKnown, algo)
	}
}
