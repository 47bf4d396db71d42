package lease

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/contract"
	"github.com/electsim/electsim/sim"
)

// mapValues is a registry.Values over a plain map, for Contract.
type mapValues map[string]any

func (m mapValues) Has(k string) bool                             { _, ok := m[k]; return ok }
func (m mapValues) Duration(k string) time.Duration               { d, _ := m[k].(time.Duration); return d }
func (m mapValues) DurationRange(k string) (lo, hi time.Duration) { d := m.Duration(k); return d, d }
func (m mapValues) Bool(k string) bool                            { b, _ := m[k].(bool); return b }
func (m mapValues) Int(k string) int                              { i, _ := m[k].(int); return i }
func (m mapValues) Float(k string) float64                        { f, _ := m[k].(float64); return f }
func (m mapValues) String(k string) string                        { s, _ := m[k].(string); return s }
func (m mapValues) Nodes(string) []sim.NodeID                     { return nil }
func (m mapValues) Ints(k string) []int64                         { i, _ := m[k].([]int64); return i }

// TestK8sMaxOverlapHandComputed holds the k8s bound to values worked out
// by hand from the worst case's timeline (t = 0 when the store applied the
// holder's last successful write; client-go leaderelection.go renew and
// tryAcquireOrRenew): the holder acts RetryPeriod + RenewDeadline (+ the
// release) after that write's answer, and the follower, which cannot see
// the write before t = 0, waits the record's whole-second LeaseDuration
// from its observation; a renewal of the same wall second as the one
// before (renewals under a second apart) looks unchanged, so the follower
// may date it up to 1 s earlier.
func TestK8sMaxOverlapHandComputed(t *testing.T) {
	s := time.Second
	for _, tc := range []struct {
		name           string
		ld, rd, rp, rt time.Duration
		roc            bool
		want           time.Duration
	}{
		// client-go's defaults: the holder stops by 2+10 = 12 s after its
		// last write's answer, the follower takes over 15 s after the
		// write: none (the contract adds one ℓmax).
		{"defaults", 15 * s, 10 * s, 2 * s, 0, false, 0},
		// scenarios/flapping-lease.yaml: renewals 200 ms apart can share a
		// wall second: 0.2+0.8+1 − 1 = 1 s.
		{"flapping-lease", s, 800 * time.Millisecond, 200 * time.Millisecond, 500 * time.Millisecond, false, s},
		// scenarios/k8s-release-hang.yaml: 2+20 and a 20 s release, less
		// the 25 s lease.
		{"release-hang", 25 * s, 20 * s, 2 * s, 0, true, 17 * s},
		// a long lease: stop at 12 s, follower at 30 s: none.
		{"long lease", 30 * s, 10 * s, 2 * s, 0, false, 0},
		// 12.9 s is written as 12 s (leaseDurationSeconds): 2+11 − 12.
		{"whole seconds", 12*s + 900*time.Millisecond, 11 * s, 2 * s, 0, false, s},
		// a long lease with a release: the release's answer, up to RT.
		{"release floor", 100 * s, 10 * s, 2 * s, 0, true, 5 * s},
		// the request timeout bounds no term: the round's context cancels
		// the request in flight at RenewDeadline.
		{"short timeout", 15 * s, 10 * s, 2 * s, s, false, 0},
	} {
		c := DefaultConfig()
		c.LeaseDuration, c.RenewDeadline, c.RetryPeriod, c.RequestTimeout, c.ReleaseOnCancel = tc.ld, tc.rd, tc.rp, tc.rt, tc.roc
		assert.Equal(t, tc.want, K8sMaxOverlap(c), tc.name)
	}
}

// TestLeaseContractPerFlavour pins each flavour's guarantee: its bound and
// the faults that void it, by validity check and persistence.
func TestLeaseContractPerFlavour(t *testing.T) {
	classes := func(v mapValues) []contract.FaultClass {
		g, ok := Contract(v).For(checkSplitBrain)
		require.True(t, ok, "%v", v)
		return g.Unless
	}
	k8s := classes(mapValues{})
	assert.ElementsMatch(t, []contract.FaultClass{contract.Pause, contract.ClockRate, contract.ClockStep, contract.DiskLoss}, k8s,
		"k8s: partitions, crashes, store outages and loss stay within the bound (client-go's requests travel over TCP: StoreStreams)")
	g, _ := Contract(mapValues{}).For(checkSplitBrain)
	assert.Equal(t, time.Duration(0), g.MaxOverlap, "client-go's defaults: no overlap but one answer's latency")
	assert.Equal(t, contract.LatencyTerms{Max: 1}, g.Latency)

	_, sb := Contract(mapValues{"flavor": FlavorTTL}).For(checkSplitBrain)
	assert.False(t, sb, "validity_check never: no promise on overlaps")
	es, ok := Contract(mapValues{"flavor": FlavorTTL}).For("election_safety")
	require.True(t, ok, "ttl: one store's counter hands out each epoch once")
	assert.ElementsMatch(t, []contract.FaultClass{contract.DiskLoss, contract.Crash}, es.Unless, "rdb, the default, loses acknowledged writes on a crash")
	es, _ = Contract(mapValues{"flavor": FlavorTTL, "persistence": string(PersistAOFAlways)}).For("election_safety")
	assert.Equal(t, []contract.FaultClass{contract.DiskLoss}, es.Unless, "aof_always keeps every acknowledged write")
	assert.True(t, Contract(mapValues{"flavor": FlavorRedlock, "validity_check": string(CheckNever)}).Empty())

	bea := mapValues{"flavor": FlavorTTL, "validity_check": string(CheckBeforeEachAction)}
	assert.ElementsMatch(t, []contract.FaultClass{contract.Pause, contract.ClockRate, contract.DiskLoss, contract.ClockStep, contract.Crash}, classes(bea),
		"rdb (the default) loses a key set seconds before a crash")
	bea["persistence"] = string(PersistAOFAlways)
	assert.NotContains(t, classes(bea), contract.Crash, "aof_always keeps every acknowledged key")
	bea["expiry_clock"] = string(ExpiryMonotonic)
	assert.NotContains(t, classes(bea), contract.ClockStep, "monotonic expiry ignores wall steps")

	rl := mapValues{"flavor": FlavorRedlock, "validity_check": string(CheckBeforeEachAction), "persistence": string(PersistAOFAlways),
		"persistence_override": string(PersistNone), "persistence_override_stores": []int64{3}}
	assert.Contains(t, classes(rl), contract.Crash, "one master without persistence is enough")
	delete(rl, "persistence_override")
	assert.NotContains(t, classes(rl), contract.Crash)

	// every 1 s with TTL 8 s, drift 1% + 0: the first check past the
	// validity comes up to 1 s after it, which is 80 ms before the store's
	// expiry: 920 ms.
	ev := mapValues{"flavor": FlavorRedlock, "validity_check": string(CheckEvery), "validity_check_interval": time.Second,
		"ttl": 8 * time.Second, "clock_drift_margin": time.Duration(0)}
	g, _ = Contract(ev).For(checkSplitBrain)
	assert.Equal(t, 920*time.Millisecond, g.MaxOverlap)

	wt := classes(mapValues{"flavor": FlavorWallTime})
	assert.Subset(t, wt, []contract.FaultClass{contract.Partition, contract.Link, contract.ServiceDown},
		"ShedLock's holder acts on after a failed extension")
}
