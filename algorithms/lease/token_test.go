package lease

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/sim"
)

// tokenRun runs k candidates of flavour flavor with Config.Token token,
// crashes the first leader once it acts and returns the first two
// leaders' lead records.
func tokenRun(t *testing.T, seed uint64, flavor, token string) (first, second sim.Record) {
	t.Helper()
	cfg := DefaultConfig()
	cfg.Flavor, cfg.Token = flavor, token
	c := newCluster(t, seed, 3, cfg)
	c.s.RunFor(5 * time.Second)
	first, ok := c.firstLead(0, sim.None)
	require.True(t, ok, "%s seed %d: no leader", flavor, seed)
	c.s.Crash(first.Node)
	c.s.RunFor(time.Minute)
	second, ok = c.firstLead(first.At+1, first.Node)
	require.True(t, ok, "%s seed %d: no second leader", flavor, seed)
	return first, second
}

// TestLeaseTokenIsAnApplicationAddition: no library these flavours follow
// hands the application a fencing token — client-go's
// LeaderCallbacks.OnStartedLeading gets only a context
// (tools/leaderelection/leaderelection.go); go-redsync's Mutex offers Name,
// Value, Until, Lock, Unlock, Extend, Valid (mutex.go at v4.17.0); a
// single-instance SET NX returns OK; ShedLock's LockProvider.lock returns
// an Optional<SimpleLock> — so by default (token none) every leader acts
// with token 0. Fails on the old model, which handed every leader the
// store's counter. With token fence the application adds one: ttl and
// walltime read the counter their own acquire script increments, which
// comes back with the acquire answer (no extra round trip: the leader acts
// when it would have with none); k8s reads the Lease's leaseTransitions
// (LeaderElectionRecord.LeaderTransitions) with a Get after
// OnStartedLeading and acts one round trip (two one-way latencies) later.
// Either way the next leader's token is higher, so a fenced resource
// rejects the old leader's late write.
func TestLeaseTokenIsAnApplicationAddition(t *testing.T) {
	for _, flavor := range []string{FlavorK8s, FlavorTTL, FlavorWallTime} {
		for seed := uint64(1); seed <= 5; seed++ {
			n1, n2 := tokenRun(t, seed, flavor, TokenNone)
			assert.Zero(t, n1.Token, "%s seed %d: no library token", flavor, seed)
			assert.Zero(t, n2.Token, "%s seed %d: no library token", flavor, seed)

			f1, f2 := tokenRun(t, seed, flavor, TokenFence)
			assert.Equal(t, n1.Node, f1.Node, "%s seed %d", flavor, seed)
			assert.Greater(t, f2.Token, f1.Token, "%s seed %d: the next leader's token is higher: it fences the old one", flavor, seed)
			d := f1.At.Sub(n1.At)
			if flavor == FlavorK8s {
				assert.GreaterOrEqual(t, d, 2*minLat, "%s seed %d: one Get round trip later", flavor, seed)
				assert.LessOrEqual(t, d, 2*maxLat, "%s seed %d: one Get round trip later", flavor, seed)
			} else {
				assert.Zero(t, d, "%s seed %d: the counter comes with the acquire answer", flavor, seed)
			}
		}
	}
}
