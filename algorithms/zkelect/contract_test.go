package zkelect_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	_ "github.com/electsim/electsim/algorithms/builtin" // the shipped scenarios' algorithms
	"github.com/electsim/electsim/algorithms/zkelect"
	"github.com/electsim/electsim/contract"
	"github.com/electsim/electsim/internal/contracttest"
)

const scenarios = "../../scenarios/"

// TestZKMaxOverlapHandComputed holds the bound to values worked out by
// hand. The session timeout T is negotiated into [2, 20] ticks; the
// server expires a session no earlier than T after the last request it
// received, whose answer the client heard up to latMax later. Standard:
// the latch gives up 2T/3 + 100 ms after it last heard (SUSPENDED: the read
// timeout, then ClientCnxnSocketNIO.cleanup's 100 ms sleep before
// Disconnected), so only a latency above T/3 − 100 ms leaves an overlap.
// Session: it gives up T later still (LOST), 5T/3 + 100 ms after it last
// heard: 2T/3 + 100 ms + latMax past the expiry.
func TestZKMaxOverlapHandComputed(t *testing.T) {
	s, ms := time.Second, time.Millisecond
	for _, tc := range []struct {
		policy           string
		asked, tick, lat time.Duration
		want             time.Duration
	}{
		{zkelect.PolicyStandard, 10 * s, 2 * s, 10 * ms, 0},
		{zkelect.PolicyStandard, 3 * s, 2 * s, 1500 * ms, 266666667 * time.Nanosecond}, // T = 4 s: 1.5 s − 1.333 s + 0.1 s
		{zkelect.PolicySession, 10 * s, 2 * s, 10 * ms, 6776666666 * time.Nanosecond},  // zk-session-policy-partition.yaml
		{zkelect.PolicySession, 60 * s, 2 * s, 0, 26766666666 * time.Nanosecond},       // 60 s asked, 40 s granted
		{zkelect.PolicySession, s, 2 * s, 0, 2766666666 * time.Nanosecond},             // 1 s asked, 4 s granted
	} {
		c := zkelect.DefaultConfig()
		c.Policy, c.SessionTimeout = tc.policy, tc.asked
		assert.Equal(t, tc.want, zkelect.MaxOverlap(c, tc.tick, tc.lat), "%+v", tc)
	}
}

// TestZKContractExceptions: the wall clock times LOST under the session
// policy (and the injected LOST of Curator 5.4 to 5.6), and 5.4 to 5.6
// lead on a dead session's znode after an outage (CURATOR-696).
func TestZKContractExceptions(t *testing.T) {
	unless := func(v contracttest.Values) []contract.FaultClass {
		g, ok := zkelect.Contract(v).Resolve(contract.Network{Max: 10 * time.Millisecond, Bounded: true}).For("split_brain")
		require.True(t, ok)
		return g.Unless
	}
	std := unless(contracttest.Values{})
	assert.NotContains(t, std, contract.ClockStep)
	assert.NotContains(t, std, contract.Partition)
	assert.Contains(t, unless(contracttest.Values{"policy": zkelect.PolicySession}), contract.ClockStep)
	old := unless(contracttest.Values{"curator_version": "5.5"})
	assert.NotContains(t, old, contract.ServiceDown, "CURATOR-696 is a known bug, not an excuse")
	assert.Contains(t, old, contract.ClockStep)
	g, _ := zkelect.Contract(contracttest.Values{"curator_version": "5.5"}).For("split_brain")
	for _, c := range []contract.FaultClass{contract.ServiceDown, contract.Partition, contract.Loss} {
		label, ok := g.KnownBugOf(c)
		assert.True(t, ok, "%s triggers CURATOR-696 on 5.5", c)
		assert.Equal(t, zkelect.Curator696, label)
	}
	g, _ = zkelect.Contract(contracttest.Values{"curator_version": "5.7"}).For("split_brain")
	assert.Empty(t, g.Known, "5.7 fixed it")
	assert.NotContains(t, unless(contracttest.Values{"curator_version": "5.7"}), contract.ServiceDown)
	assert.True(t, zkelect.Contract(contracttest.Values{}).Resolve(contract.Network{}).Empty(), "no latency bound, no promise")
	// Resolved on a network, the contract's bound is MaxOverlap's formula.
	for _, policy := range []string{zkelect.PolicyStandard, zkelect.PolicySession} {
		for _, lat := range []time.Duration{10 * time.Millisecond, 3 * time.Second} {
			c := zkelect.DefaultConfig()
			c.Policy = policy
			g, ok := zkelect.Contract(contracttest.Values{"policy": policy}).Resolve(contract.Network{Max: lat, Bounded: true}).For("split_brain")
			require.True(t, ok)
			assert.Equal(t, zkelect.MaxOverlap(c, 2*time.Second, lat), g.MaxOverlap, "%s, latency %v", policy, lat)
		}
	}
}

// TestZKContractHolds: the session policy's cut-off leader overlaps within
// the bound in every seed, the standard policy's not at all, the blip
// scenario breaks nothing, and neither policy breaks its contract under
// swarm's nemesis (without its message loss, a link fault that excuses
// everything).
func TestZKContractHolds(t *testing.T) {
	tl, err := contracttest.Sweep(scenarios+"zk-session-policy-partition.yaml", nil, 40)
	require.NoError(t, err)
	g, ok := tl.Contract.For("split_brain")
	require.True(t, ok)
	assert.Empty(t, tl.BreachSeeds)
	assert.Equal(t, 40, tl.Verdicts[contract.WithinBound])
	assert.LessOrEqual(t, tl.Longest[contract.WithinBound], g.MaxOverlap)
	t.Logf("session policy cut off: longest %v of %v", tl.Longest[contract.WithinBound], g.MaxOverlap)

	tl, err = contracttest.Sweep(scenarios+"zk-session-policy-partition.yaml", []string{"algorithm.policy=standard"}, 20)
	require.NoError(t, err)
	assert.Empty(t, tl.Verdicts, "the standard policy gives up before the session expires")
	for _, p := range []string{"standard", "session"} {
		tl, err = contracttest.Sweep(scenarios+"zk-suspended-policy.yaml", []string{"algorithm.policy=" + p}, 10)
		require.NoError(t, err)
		assert.Empty(t, tl.BreachSeeds, p)
		sc, err := contracttest.WithAlgorithm(scenarios+"swarm.yaml", "{name: zookeeper, session_timeout: 4s, token: czxid, policy: "+p+"}", []string{"network.drop=0"})
		require.NoError(t, err)
		tl, err = contracttest.SweepScenario(sc, 40)
		require.NoError(t, err)
		assert.Empty(t, tl.BreachSeeds, p)
		t.Logf("swarm %s T=4s: %v %v", p, tl.Verdicts, tl.Excused)
	}
}

// TestZKContractRefutedByLateStop plants a bug — the application acts
// 10 s past losing leadership — and requires the cut-off leader's
// stretched overlap to be a breach in every seed under either policy,
// while the real latch's is not.
func TestZKContractRefutedByLateStop(t *testing.T) {
	for _, p := range []string{"standard", "session"} {
		real, planted, err := contracttest.LateStopBreaches(zkelect.Descriptor(), 10*time.Second, ", session_timeout: 10s, policy: "+p, 5)
		require.NoError(t, err)
		assert.Empty(t, real, p)
		assert.Len(t, planted, 5, p)
	}
}

// TestZKCurator696OneWayCut is hunt's finding against Curator 5.5 (the
// testdata file's comment): a one-way cut of the ensemble's answers keeps
// the sessions alive on the ensemble while every client gives its own up
// by its clock, the CURATOR-696 condition (LeaderLatch.checkLeadership
// before 5.7 leads on a znode whose ephemeralOwner it never reads). Before
// 5.7 the overlap happens and is a breach labelled with the release's bug
// (not excused: a user on 5.5 must see it); 5.7 reads the owner, resets,
// and no two latches lead.
func TestZKCurator696OneWayCut(t *testing.T) {
	tl, err := contracttest.Sweep("testdata/curator696-one-way.yaml", nil, 1)
	require.NoError(t, err)
	assert.Empty(t, tl.BreachSeeds, "no breach the known bug does not explain")
	assert.Equal(t, 1, tl.Verdicts[contract.Breach], "5.5 leads twice: a breach")
	assert.Equal(t, 1, tl.KnownBugs[zkelect.Curator696], "labelled CURATOR-696")

	tl, err = contracttest.Sweep("testdata/curator696-one-way.yaml", []string{"algorithm.curator_version=5.7"}, 1)
	require.NoError(t, err)
	assert.Empty(t, tl.Verdicts, "5.7 reads the znode's owner: no overlap")
}
