package consulelect_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	_ "github.com/electsim/electsim/algorithms/builtin" // the shipped scenarios' algorithms
	"github.com/electsim/electsim/algorithms/consulelect"
	"github.com/electsim/electsim/contract"
	"github.com/electsim/electsim/internal/contracttest"
)

const scenarios = "../../scenarios/"

// TestConsulMaxOverlapHandComputed holds the bound to values worked out
// by hand: a cut-off holder learns of the loss when a keep-alive ping
// (every 30 s) goes unanswered for 10 s, at most 40 s after the cut; its
// successor acquires no earlier than the invalidation — serfHealth's
// probe interval and smallest suspicion (1 s + 4 s), with the agent on
// the candidate's node (agent: host) or a separate process on its host
// (agent: separate, the default), since a cut of the host cuts its agent
// either way; or with checks none 2·TTL after the last renewal, at least
// 1.5·TTL after the cut — plus the lock-delay.
func TestConsulMaxOverlapHandComputed(t *testing.T) {
	s, ms := time.Second, time.Millisecond
	srv := consulelect.ServerConfig{ProbeInterval: s, SuspicionMult: 4}
	sep, host := consulelect.AgentSeparate, consulelect.AgentHost
	for _, tc := range []struct {
		name       string
		ttl, delay time.Duration
		checks     string
		agent      string
		serf       time.Duration
		want       time.Duration
	}{
		{"defaults", 15 * s, 15 * s, consulelect.ChecksSerf, sep, 0, 20*s + 20*ms},                         // 40 − 15 − 5
		{"host agent", 15 * s, 15 * s, consulelect.ChecksSerf, host, 0, 20*s + 20*ms},                      // 40 − 15 − 5
		{"host agent, no delay", 15 * s, 0, consulelect.ChecksSerf, host, 0, 35*s + 20*ms},                 // 40 − 0 − 5
		{"TTL only", 15 * s, 15 * s, consulelect.ChecksNone, host, 0, 2*s + 520*ms},                        // 40 − 15 − 22.5
		{"TTL 20 s only", 20 * s, 15 * s, consulelect.ChecksNone, sep, 0, 0},                               // 40 − 15 − 30 < 0
		{"host agent, serf_timeout", 15 * s, 15 * s, consulelect.ChecksSerf, host, 3 * s, 22*s + 20*ms},    // 40 − 15 − 3
		{"separate agent, serf_timeout", 15 * s, 15 * s, consulelect.ChecksSerf, sep, 3 * s, 22*s + 20*ms}, // 40 − 15 − 3
	} {
		c := consulelect.DefaultConfig()
		c.SessionTTL, c.LockDelay, c.Checks, c.Agent = tc.ttl, tc.delay, tc.checks, tc.agent
		sv := srv
		sv.SerfTimeout = tc.serf
		assert.Equal(t, tc.want, consulelect.MaxOverlap(c, sv, 10*ms), tc.name)
	}
	assert.True(t, consulelect.Contract(contracttest.Values{}).Resolve(contract.Network{}).Empty(), "no latency bound, no promise")
	// Resolved on a network, the contract's bound is MaxOverlap's formula
	// (clamped at zero when the lock-delay outlasts the rest).
	for _, lat := range []time.Duration{10 * ms, 3000 * ms} {
		for _, delay := range []time.Duration{0, 15000 * ms, 60000 * ms} {
			c := consulelect.DefaultConfig()
			c.LockDelay, c.Agent = delay, host
			g, ok := consulelect.Contract(contracttest.Values{"lock_delay": delay, "agent": host}).Resolve(contract.Network{Max: lat, Bounded: true}).For("split_brain")
			require.True(t, ok)
			assert.Equal(t, consulelect.MaxOverlap(c, srv, lat), g.MaxOverlap, "latency %v, lock-delay %v", lat, delay)
		}
	}
}

// TestConsulContractHolds: the lock-delay scenario overlaps not at all
// with its delay and within the bound without one, and swarm's nemesis
// (without its message loss, a link fault that excuses everything)
// breaks nothing.
func TestConsulContractHolds(t *testing.T) {
	tl, err := contracttest.Sweep(scenarios+"consul-lock-delay.yaml", nil, 20)
	require.NoError(t, err)
	assert.Empty(t, tl.Verdicts)
	tl, err = contracttest.Sweep(scenarios+"consul-lock-delay.yaml", []string{"algorithm.lock_delay=0s"}, 20)
	require.NoError(t, err)
	g, ok := tl.Contract.For("split_brain")
	require.True(t, ok)
	assert.Empty(t, tl.BreachSeeds)
	assert.Equal(t, 20, tl.Verdicts[contract.WithinBound])
	assert.LessOrEqual(t, tl.Longest[contract.WithinBound], g.MaxOverlap)
	t.Logf("no lock-delay: longest %v of %v", tl.Longest[contract.WithinBound], g.MaxOverlap)
	sc, err := contracttest.WithAlgorithm(scenarios+"swarm.yaml", "{name: consul, session_ttl: 10s, lock_delay: 0s, token: lock_index}", []string{"network.drop=0"})
	require.NoError(t, err)
	tl, err = contracttest.SweepScenario(sc, 30)
	require.NoError(t, err)
	assert.Empty(t, tl.BreachSeeds)
	t.Logf("swarm: %v %v", tl.Verdicts, tl.Excused)
}

// TestConsulContractRefutedByLateStop plants a bug — the application acts
// 45 s past losing the lock — and requires the cut-off holder's stretched
// overlap to be a breach in every seed, while the real lock's is not.
func TestConsulContractRefutedByLateStop(t *testing.T) {
	real, planted, err := contracttest.LateStopBreaches(consulelect.Descriptor(), 45*time.Second, "", 5)
	require.NoError(t, err)
	assert.Empty(t, real)
	assert.Len(t, planted, 5)
}
