package etcdelect_test

import (
	"github.com/electsim/electsim/scenario"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	_ "github.com/electsim/electsim/algorithms/builtin" // the shipped scenarios' algorithms
	"github.com/electsim/electsim/algorithms/etcdelect"
	"github.com/electsim/electsim/contract"
	"github.com/electsim/electsim/internal/contracttest"
)

const scenarios = "../../scenarios/"

// TestEtcdMaxOverlapHandComputed holds the bound to values worked out by
// hand: the client's deadline is TTL after an answer that left the server
// up to latMax before (when the server renewed for TTL), and its deadline
// loop ends the session up to a pass later — 1 s and the pass's 0.5 ms
// lateness (client/v3/lease.go deadlineLoop arms timer.Reset(time.Second)
// after its work); before the first answer the deadline is
// FirstKeepAliveTimeout after the Grant's answer.
func TestEtcdMaxOverlapHandComputed(t *testing.T) {
	ms, us := time.Millisecond, time.Microsecond
	for _, tc := range []struct {
		ttl, first, lat, want time.Duration
	}{
		{10 * time.Second, 5 * time.Second, 10 * ms, 1010*ms + 500*us},  // etcd-cut-correct-clock.yaml
		{60 * time.Second, 5 * time.Second, 400 * ms, 1400*ms + 500*us}, // the defaults on a slow network
		{2 * time.Second, 5 * time.Second, 10 * ms, 4010*ms + 500*us},   // the first deadline outlives a short lease by 3 s
		{5 * time.Second, 5 * time.Second, 0, 1000*ms + 500*us},         // equal: nothing added
	} {
		c := etcdelect.DefaultConfig()
		c.TTL, c.FirstKeepAliveTimeout = tc.ttl, tc.first
		assert.Equal(t, tc.want, etcdelect.MaxOverlap(c, tc.lat), "%+v", tc)
	}
}

// TestEtcdContractHolds: over seeds of the shipped etcd scenarios the
// cut-off leader's overlap stays within the bound in every seed, the slow
// clock's and the pause's within the bound their drift and length
// stretch (docs/checkers.md, "Excuses"), and swarm's nemesis
// (without its message loss, a link fault that excuses everything) breaks
// nothing.
func TestEtcdContractHolds(t *testing.T) {
	tl, err := contracttest.Sweep(scenarios+"etcd-cut-correct-clock.yaml", nil, 60)
	require.NoError(t, err)
	g, ok := tl.Contract.For("split_brain")
	require.True(t, ok)
	assert.Empty(t, tl.BreachSeeds)
	assert.Positive(t, tl.Verdicts[contract.WithinBound])
	assert.LessOrEqual(t, tl.Longest[contract.WithinBound], g.MaxOverlap)
	t.Logf("cut-correct-clock: %v, longest %v of %v", tl.Verdicts, tl.Longest[contract.WithinBound], g.MaxOverlap)
	tl, err = contracttest.Sweep(scenarios+"etcd-slow-clock.yaml", nil, 10)
	require.NoError(t, err)
	assert.Empty(t, tl.BreachSeeds, "the slow clock's drift stretches the bound")
	assert.Positive(t, tl.Verdicts[contract.WithinBound])
	assert.Zero(t, tl.Verdicts[contract.Excused], "a clock rate stretches a bounded promise, it does not void it")
	assert.LessOrEqual(t, tl.LongestUnstretched, g.MaxOverlap, "no more than the drift explains")
	tl, err = contracttest.Sweep(scenarios+"etcd-election-gc-pause.yaml", nil, 10)
	require.NoError(t, err)
	assert.Empty(t, tl.BreachSeeds, "the 16 s pause stretches the bound by 16 s")
	assert.Positive(t, tl.Verdicts[contract.WithinBound])
	assert.Zero(t, tl.Verdicts[contract.Excused], "a pause stretches a bounded promise, it does not void it")
	sc, err := contracttest.WithAlgorithm(scenarios+"swarm.yaml", "{name: etcd, ttl: 5s}", []string{"network.drop=0"})
	require.NoError(t, err)
	tl, err = contracttest.SweepScenario(sc, 40)
	require.NoError(t, err)
	assert.Empty(t, tl.BreachSeeds)
	t.Logf("swarm ttl 5s: %v %v", tl.Verdicts, tl.Excused)
}

func TestEtcdContractNeedsALatencyBound(t *testing.T) {
	assert.True(t, etcdelect.Contract(contracttest.Values{}).Resolve(contract.Network{}).Empty())
	g, ok := etcdelect.Contract(contracttest.Values{}).Resolve(contract.Network{Max: 40 * time.Millisecond, Bounded: true}).For("split_brain")
	require.True(t, ok)
	assert.Equal(t, etcdelect.MaxOverlap(etcdelect.DefaultConfig(), 40*time.Millisecond), g.MaxOverlap)
}

// TestEtcdContractRefutedByLateStop plants a bug — the application acts
// 5 s past Done() — and requires the cut-off leader's stretched overlap to
// be a breach in every seed, while the real client's is not.
func TestEtcdContractRefutedByLateStop(t *testing.T) {
	real, planted, err := contracttest.LateStopBreaches(etcdelect.Descriptor(), 5*time.Second, ", ttl: 10s", 5)
	require.NoError(t, err)
	assert.Empty(t, real)
	assert.Len(t, planted, 5)
}

// A slow disk at the etcd server delays what it commits (a revoke's
// deletion), never a lease renewal: server/lease/lessor.go Renew moves the
// expiry in the leader's memory, so a keep-alive's answer waits for no
// fsync and the leader's overlap stays within the contract's bound.
// (When the model persisted renewals, seed 6801887519534019558 of this
// story overlapped its successor by 1.955 s, a breach.)
func TestEtcdRenewalsDoNotWaitForTheStoreDisk(t *testing.T) {
	sc, err := scenario.Load("testdata/slow-store-disk.yaml")
	require.NoError(t, err)
	for _, seed := range []uint64{6801887519534019558, 1, 2, 3, 4, 5, 6, 7} {
		r, err := sc.Run(scenario.RunOptions{Seed: seed, Lean: true})
		require.NoError(t, err)
		assert.Zero(t, r.Report.Breaches, "seed %d: %v", seed, r.Problems)
	}
}
