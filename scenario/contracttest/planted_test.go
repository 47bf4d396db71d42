package contracttest

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/algorithms/bully"
	"github.com/electsim/electsim/algorithms/raftelect"
	"github.com/electsim/electsim/algorithms/ring"
	"github.com/electsim/electsim/checker"
	"github.com/electsim/electsim/contract"
	"github.com/electsim/electsim/registry"
	"github.com/electsim/electsim/scenario"
	"github.com/electsim/electsim/sim"
)

// override returns base renamed name, whose nodes are built with the
// scenario's values changed by set (the planted bug), under the contract
// the unchanged values declare: the implementation does not do what its
// configuration claims.
func override(base registry.Algorithm, name string, set map[string]string) registry.Algorithm {
	a := base
	a.Name, a.Doc = name, "planted bug: "+base.Doc
	a.Build = func(v registry.Values, n int, r *sim.Rand) (registry.Factory, error) {
		return base.Build(overridden{Values: v, set: set}, n, r)
	}
	return a
}

// overridden are values with some keys replaced (durations and booleans).
type overridden struct {
	registry.Values
	set map[string]string
}

func (o overridden) Has(key string) bool {
	_, ok := o.set[key]
	return ok || o.Values.Has(key)
}

func (o overridden) Duration(key string) time.Duration {
	if s, ok := o.set[key]; ok {
		d, err := time.ParseDuration(s)
		if err != nil {
			panic(err)
		}
		return d
	}
	return o.Values.Duration(key)
}

func (o overridden) Bool(key string) bool {
	if s, ok := o.set[key]; ok {
		return s == "true"
	}
	return o.Values.Bool(key)
}

func init() {
	// votedFor not persisted, while the contract promises persistence.
	registry.Default.MustRegister(override(raftelect.Descriptor(), "raft-forgets-vote", map[string]string{"persist": "false"}))
	// Declaring coordinator after 1ms rather than T: no higher node can
	// answer that fast, though the network is within T/2.
	registry.Default.MustRegister(override(bully.Descriptor(), "bully-impatient", map[string]string{"answer_timeout": "1ms"}))
	// Skipping a successor after 1ms rather than ack_timeout.
	registry.Default.MustRegister(override(ring.Descriptor(), "ring-impatient", map[string]string{"ack_timeout": "1ms"}))
}

// runAll runs seeds 1..seeds of src under algo and returns every finding of
// check and the runs' breaches.
func runAll(t *testing.T, src, algo, check string, seeds int) (vs []checker.Violation, breaches int) {
	t.Helper()
	sc, err := scenario.Parse("planted.yaml", []byte(fmt.Sprintf(src, algo)))
	require.NoError(t, err)
	for seed := uint64(1); seed <= uint64(seeds); seed++ {
		r, err := sc.Run(scenario.RunOptions{Seed: seed})
		require.NoError(t, err)
		_, ok := r.Contract.For(check)
		require.True(t, ok, "%s promises %s", algo, check)
		breaches += r.Report.Breaches
		ch, _ := r.Report.Check(check)
		vs = append(vs, ch.Violations...)
	}
	return vs, breaches
}

// Crashes that restart nodes with their disks: raft keeps election_safety
// (no finding at all), and a raft that forgets its vote across the restart
// breaches it. The crash of the voter that voted twice is on neither
// leader, so the planted bug is not excused by its own crash.
func TestRaftElectionSafetyMustRefute(t *testing.T) {
	const src = `name: crashes
duration: 20s
cluster: {nodes: 3}
network: {latency: 1ms..10ms}
algorithm: {name: %s, election_timeout: 150ms..152ms}
faults:
  - random: {kinds: [restart], every: 10ms..40ms}
settle: {for: 5s, leader_within: 5s}
expect:
  allow: [split_brain, leader_linearizability, election_safety, liveness]
`
	vs, breaches := runAll(t, src, "raft", checker.CheckElectionSafety, 40)
	assert.Empty(t, vs, "raft with persistence has one leader per term under crashes")
	assert.Zero(t, breaches)

	vs, breaches = runAll(t, src, "raft-forgets-vote", checker.CheckElectionSafety, 40)
	require.NotEmpty(t, vs, "forgetting the vote must elect two leaders in a term")
	assert.Positive(t, breaches)
	for _, v := range vs {
		assert.Equal(t, contract.Breach, v.Contract, "the contract promised persistence: %s", v.Details)
	}
}

// Inside the classic model (a lossless network well within T/2, no faults
// at all) bully and ring elect one leader; the impatient variants declare
// leaders before a live higher node can answer, and the contract reports
// it as a breach.
func TestClassicContractsMustRefute(t *testing.T) {
	const src = `name: quiet
duration: 5s
cluster: {nodes: 5}
network: {latency: 1ms..10ms}
algorithm: {name: %s}
settle: {for: 5s, leader_within: 5s}
expect:
  allow: [split_brain, leader_linearizability, election_safety]
`
	for _, c := range []struct{ good, bad string }{{"bully", "bully-impatient"}, {"ring", "ring-impatient"}} {
		for _, check := range []string{checker.CheckSplitBrain, checker.CheckElectionSafety} {
			vs, breaches := runAll(t, src, c.good, check, 10)
			assert.Empty(t, vs, "%s %s inside its model", c.good, check)
			assert.Zero(t, breaches)
		}
		vs, breaches := runAll(t, src, c.bad, checker.CheckSplitBrain, 10)
		require.NotEmpty(t, vs, "%s must elect two leaders at once", c.bad)
		assert.Positive(t, breaches, c.bad)
	}
}

// Every contract of these algorithms names the checker's own checks, and
// lists in Anywhere only classes it excuses.
func TestContractsNameCheckerChecks(t *testing.T) {
	for _, algo := range []string{"raft", "etcdraft", "bully", "ring"} {
		sc, err := scenario.Parse("names.yaml", []byte("name: names\nduration: 1s\ncluster: {nodes: 3}\nalgorithm: {name: "+algo+"}\n"))
		require.NoError(t, err)
		r, err := sc.Build(scenario.RunOptions{Seed: 1})
		require.NoError(t, err)
		require.False(t, r.Contract.Empty(), algo)
		for _, g := range r.Contract.Guarantees {
			assert.Contains(t, checker.CheckNames, g.Check, algo)
			assert.NotEmpty(t, g.Source, algo)
			for _, a := range g.Anywhere {
				assert.True(t, g.Excuses(a), "%s %s: %s anywhere but not excused", algo, g.Check, a)
			}
		}
	}
}
