package consulelect_test

import (
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/algorithms/consulelect"
	"github.com/electsim/electsim/scenario"
)

// TestConsulAppCrashStory holds scenarios/consul-app-crash.yaml to its
// comment over 200 seeds (ELECTSIM_STORY_SEEDS to change): the lock
// holder's application crashes, its agent stays up, and the session ends
// only by its TTL timer, 2·TTL after the last renewal (agent/consul/
// session_ttl.go resetSessionTimer), then the lock-delay: every failover
// lies in [1.5·TTL + LockDelay, 2·TTL + LockDelay + LockRetryTime + 20ℓ]
// (ℓ = 10 ms, the largest one-way latency). With agent: host the crash
// silences the agent too and serf ends the session: [ProbeInterval + min
// + LockDelay, 2·ProbeInterval + max(min, 2(n−1)·ProbeInterval + 200 ms)
// + LockDelay + LockRetryTime + 20ℓ] = [20 s, 28.4 s] with memberlist's
// min = 4 s and n = 4 serf members, as docs/algorithms.md derives for
// leader-crash.
func TestConsulAppCrashStory(t *testing.T) {
	seeds := 200
	if s := os.Getenv("ELECTSIM_STORY_SEEDS"); s != "" {
		n, err := strconv.Atoi(s)
		require.NoError(t, err)
		seeds = n
	}
	c := consulelect.DefaultConfig()
	const lat = 10 * time.Millisecond
	for _, v := range []struct {
		set    []string
		lo, hi time.Duration
	}{
		{nil, 3*c.SessionTTL/2 + c.LockDelay, 2*c.SessionTTL + c.LockDelay + c.LockRetryTime + 20*lat},
		{[]string{"algorithm.agent=host"}, time.Second + 4*time.Second + c.LockDelay, 2*time.Second + max(4*time.Second, 2*3*time.Second+200*time.Millisecond) + c.LockDelay + c.LockRetryTime + 20*lat},
	} {
		sc, err := scenario.LoadWith(scenarios+"consul-app-crash.yaml", v.set)
		require.NoError(t, err)
		var lo, hi time.Duration
		for seed := uint64(1); seed <= uint64(seeds); seed++ {
			r, err := sc.Run(scenario.RunOptions{Seed: seed})
			require.NoError(t, err)
			require.True(t, r.OK, "%v seed %d: %v", v.set, seed, r.Problems)
			require.Len(t, r.Report.Failovers, 1, "%v seed %d", v.set, seed)
			f := r.Report.Failovers[0]
			require.True(t, f.Completed, "%v seed %d", v.set, seed)
			assert.GreaterOrEqual(t, f.Latency, v.lo, "%v seed %d", v.set, seed)
			assert.LessOrEqual(t, f.Latency, v.hi, "%v seed %d", v.set, seed)
			if lo == 0 || f.Latency < lo {
				lo = f.Latency
			}
			hi = max(hi, f.Latency)
		}
		t.Logf("%v: failover %v–%v over %d seeds (bound [%v, %v])", v.set, lo, hi, seeds, v.lo, v.hi)
	}
}
