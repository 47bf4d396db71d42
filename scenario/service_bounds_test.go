package scenario

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/algorithms/consulelect"
	"github.com/electsim/electsim/algorithms/etcdelect"
	"github.com/electsim/electsim/algorithms/lease"
	"github.com/electsim/electsim/algorithms/zkelect"
)

// TestLeaderCrashFailoverBounds is the acceptance run `simrun -algo
// etcd,zookeeper,consul,lease,raft -scenario scenarios/leader-crash.yaml
// -seeds 200` (ELECTSIM_BOUND_SEEDS to change): every failover of every
// seed completes within the bound docs/algorithms.md ("Failover after a
// leader crash") derives from each algorithm's default configuration, and
// the services' failovers also take at least their lower bound (the bound
// is not loose by an order of magnitude). ℓ is the scenario's largest
// one-way latency, 10 ms.
func TestLeaderCrashFailoverBounds(t *testing.T) {
	seeds := envInt(t, "ELECTSIM_BOUND_SEEDS", 200)
	const lat = 10 * time.Millisecond
	k8s := lease.DefaultConfig()
	etcd := etcdelect.DefaultConfig()
	zk := zkelect.DefaultConfig()
	zkT := min(max(zk.SessionTimeout, 2*2*time.Second), 20*2*time.Second) // negotiated, tickTime 2 s
	consul := consulelect.DefaultConfig()
	bounds := []struct {
		algo     string
		lo, hi   time.Duration
		why      string
		measured []time.Duration
	}{
		// The scenario's own expectation: election timeouts of 150–300 ms.
		{algo: "raft", lo: 0, hi: time.Second, why: "failover_under 1s"},
		// client-go (TestK8sFailoverBounds): LeaseDuration + 2·2.2·RetryPeriod
		// + 9ℓ after the last renewal, which precedes the crash.
		{algo: "lease", lo: 0, hi: k8s.LeaseDuration + time.Duration(2*(1+k8s.JitterFactor)*float64(k8s.RetryPeriod)) + 9*lat, why: "LeaseDuration + 2·(1+jitter)·RetryPeriod + 9ℓ"},
		// etcd: keep-alives TTL/3 after the last reply, on the client's
		// 500 ms send loop (client/v3/lease.go); the lease expires TTL
		// after the last and the lessor's 500 ms loop proposes its revoke,
		// applied after a raft commit (server/lease/lessor.go; 5 ms by
		// default); the successor's watch fires and it ranges once more: at
		// most TTL + 500 ms + 5 ms + 3ℓ, at least 2·TTL/3 − 500 ms.
		{algo: "etcd", lo: 2*etcd.TTL/3 - 500*time.Millisecond, hi: etcd.TTL + 505*time.Millisecond + 3*lat, why: "TTL + 500 ms + 5 ms + 3ℓ"},
		// ZooKeeper: pings every T/3 (T negotiated), the session expires in
		// the tick bucket after T from the last (ExpiryQueue.update,
		// roundToNextInterval: at most T + tickTime), the successor's watch
		// fires, it lists the children and (Curator ≥ 5.7) reads its znode's
		// owner: at most T + tickTime + 5ℓ, at least 2T/3.
		{algo: "zookeeper", lo: 2 * zkT / 3, hi: zkT + 2*time.Second + 5*lat, why: "T + tickTime + 5ℓ"},
		// Consul: the crash is the application's; its agent, a separate
		// process (agent: separate, the default), keeps serfHealth
		// passing, so the session ends only by its TTL timer, TTL ×
		// SessionTTLMultiplier (2) after the last renewal
		// (agent/consul/session_ttl.go resetSessionTimer), at least 1.5·TTL
		// after the crash (renewed every TTL/2); the key gets the
		// lock-delay, the waiters wake, Acquire is refused and they retry
		// every LockRetryTime (+ a Get and an Acquire round trip): at most
		// 2·TTL + LockDelay + LockRetryTime + 20ℓ, at least 1.5·TTL +
		// LockDelay. Before 2026-11-29 the crash silenced the agent too and
		// serf's suspicion ended the session: 20.07–22.15 s, as agent:
		// host still gives (consulelect TestConsulAppCrashStory).
		{algo: "consul", lo: 3*consul.SessionTTL/2 + consul.LockDelay, hi: 2*consul.SessionTTL + consul.LockDelay + consul.LockRetryTime + 20*lat, why: "2·TTL + LockDelay + LockRetryTime + 20ℓ"},
	}
	sc, err := Load(shipped("leader-crash.yaml"))
	require.NoError(t, err)
	for i := range bounds {
		b := &bounds[i]
		for seed := uint64(1); seed <= uint64(seeds); seed++ {
			r, err := sc.Run(RunOptions{Seed: seed, Algorithm: b.algo})
			require.NoError(t, err)
			require.NotEmpty(t, r.Report.Failovers, "%s seed %d", b.algo, seed)
			for _, f := range r.Report.Failovers {
				require.True(t, f.Completed, "%s seed %d: %s never completed", b.algo, seed, f.Fault)
				b.measured = append(b.measured, f.Latency)
				assert.LessOrEqual(t, f.Latency, b.hi, "%s seed %d: %s", b.algo, seed, b.why)
				assert.GreaterOrEqual(t, f.Latency, b.lo, "%s seed %d", b.algo, seed)
			}
		}
		lo, hi := b.measured[0], b.measured[0]
		for _, x := range b.measured {
			lo, hi = min(lo, x), max(hi, x)
		}
		t.Logf("%-9s %d failovers in [%v, %v]; bound [%v, %v] (%s)", b.algo, len(b.measured), lo, hi, b.lo, b.hi, b.why)
	}
}
