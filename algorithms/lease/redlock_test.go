package lease

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/sim"
)

// redlockRig is k redlock candidates and m masters (store nodes after them).
type redlockRig struct {
	s       *sim.Sim
	rec     *sim.Recorder
	nodes   []*Node
	masters []sim.NodeID
	stores  []*Store
}

func newRedlockRig(t *testing.T, seed uint64, k, m int, cfg Config) *redlockRig {
	t.Helper()
	r := &redlockRig{rec: &sim.Recorder{}}
	r.s = sim.New(sim.Config{Seed: seed, MaxTime: time.Hour, Link: sim.LinkConfig{Latency: sim.Uniform(minLat, maxLat)}})
	r.s.AddSink(r.rec)
	var ids []sim.NodeID
	for i := 0; i < k; i++ {
		ids = append(ids, sim.NodeID(i))
	}
	for i := 0; i < m; i++ {
		r.masters = append(r.masters, sim.NodeID(k+i))
	}
	cfg.Flavor, cfg.Masters = FlavorRedlock, m
	for i := 0; i < k; i++ {
		nd, err := NewWithStores(cfg, ids, r.masters)
		require.NoError(t, err)
		r.nodes = append(r.nodes, nd)
		r.s.AddNode(fmt.Sprintf("n%d", i), nd)
	}
	for i := 0; i < m; i++ {
		st := NewStore(StoreConfig{})
		r.stores = append(r.stores, st)
		require.Equal(t, r.masters[i], r.s.AddNode(fmt.Sprintf("store%d", i+1), st, sim.Service()))
	}
	return r
}

// cut cuts both directions between candidate i and master j.
func (r *redlockRig) cut(i, j int) {
	r.s.Cut(sim.NodeID(i), r.masters[j])
	r.s.Cut(r.masters[j], sim.NodeID(i))
}

func (r *redlockRig) of(typ sim.RecordType, node sim.NodeID) []sim.Record {
	var out []sim.Record
	for _, x := range r.rec.Records {
		if x.Type == typ && x.Node == node {
			out = append(out, x)
		}
	}
	return out
}

// TestRedlockQuorum reproduces go-redsync's acquisition rule (mutex.go,
// lockContext: "if n >= m.quorum && now.Before(until)", quorum =
// len(pools)/2+1 from redsync.go NewMutex): a lone client that reaches 3 of
// 5 masters takes the lock; one that reaches 2 never does, and after each
// failed round it deletes its value from every master it reached (the
// release loop after a failed try), so no master keeps its key. A round
// lasts as long as its slowest master's go-redis call: the round's context
// (TTL·TimeoutFactor, 500ms) stops retries but not the first socket read,
// whose deadline is ReadTimeout unless ContextTimeoutEnabled (go-redis
// redis.go baseClient.context): 5s rounds by default, 500ms with it.
func TestRedlockQuorum(t *testing.T) {
	for _, tc := range []struct {
		cutOff int
		leads  bool
		ctxTO  bool
		rounds int
	}{{0, true, false, 0}, {2, true, false, 0}, {3, false, false, 5}, {3, false, true, 30}} {
		cfg := DefaultConfig()
		cfg.ContextTimeoutEnabled = tc.ctxTO
		r := newRedlockRig(t, 1, 1, 5, cfg)
		for j := 0; j < tc.cutOff; j++ {
			r.cut(0, j)
		}
		r.s.RunFor(30 * time.Second)
		assert.Equal(t, tc.leads, r.nodes[0].Leading(), "cut off %d of 5 masters", tc.cutOff)
		if !tc.leads {
			assert.Empty(t, r.of(sim.RecLead, 0))
			for j := tc.cutOff; j < 5; j++ {
				acquired, released := 0, 0
				for _, e := range r.of(sim.RecEffect, r.masters[j]) {
					switch e.Name {
					case EffectAcquired:
						acquired++
					case EffectReleased:
						released++
					}
				}
				// Each failed round waits 5s (ReadTimeout) or 500ms (the
				// context, with ContextTimeoutEnabled) for the unreachable
				// masters, then 50–250ms.
				assert.GreaterOrEqual(t, acquired, tc.rounds, "master %d: the client kept retrying (context_timeout_enabled %v)", j, tc.ctxTO)
				assert.LessOrEqual(t, acquired-released, 1, "master %d: every failed round deleted its value (at most the last round's is still out)", j)
			}
		}
	}
}

// TestRedlockCompareAndDelete: release and extension act only on the
// acquisition's own random value (go-redsync scripts.go, deleteScript and
// touchScript: "if redis.call("GET", KEYS[1]) == ARGV[1]"), so a stale
// client's delete cannot remove a newer acquisition by the same process.
func TestRedlockCompareAndDelete(t *testing.T) {
	r := newStoreRig(StoreConfig{})
	r.s.RunFor(time.Millisecond)
	require.True(t, r.do(r.a, Request{Op: OpSetNX, Holder: r.ia, Identity: "n1-new", TTL: 8 * time.Second}).OK)
	assert.Equal(t, ErrNotHolder, r.do(r.a, Request{Op: OpRelease, Holder: r.ia, Identity: "n1-old"}).Err)
	assert.Equal(t, ErrNotHolder, r.do(r.a, Request{Op: OpCheckRenew, Holder: r.ia, Identity: "n1-old", TTL: 8 * time.Second}).Err)
	assert.True(t, r.do(r.a, Request{Op: OpCheckRenew, Holder: r.ia, Identity: "n1-new", TTL: 8 * time.Second}).OK)
	assert.True(t, r.do(r.a, Request{Op: OpRelease, Holder: r.ia, Identity: "n1-new"}).OK)
	// WithSetNXOnExtend's touch script sets an absent key.
	assert.True(t, r.do(r.a, Request{Op: OpCheckRenew, Holder: r.ia, Identity: "n1-new", TTL: 8 * time.Second, SetIfAbsent: true}).OK)
	rec, held := r.st.Get("k")
	require.True(t, held)
	assert.Equal(t, "n1-new", rec.HolderIdentity)
}

// TestRedlockValidityCheck: go-redsync (v4.17.0, mutex.go) computes the
// validity in lockContext and ExtendContext and only stores it (Mutex.Until);
// no timer stops the holder. When it stops is the application's check
// (Config.ValidityCheck): before_each_action stops at the validity
// (start + 8 s − 80 ms), every 2s at the first check past it (the fourth, 8 s into the tenure), never
// only when its late extension fails (the masters expired the key at 8 s by
// their clocks): the default, the README's Lock / work / Unlock, which never
// reads Until. The old model stopped every holder at the validity: never and
// every fail there.
func TestRedlockValidityCheck(t *testing.T) {
	for _, tc := range []struct {
		check    ValidityCheck
		interval time.Duration
		stopAt   time.Duration // 0: when the extension fails
	}{
		{CheckBeforeEachAction, 0, 8*time.Second - 80*time.Millisecond},
		{CheckEvery, 2 * time.Second, 8 * time.Second},
		{CheckNever, 0, 0},
	} {
		cfg := DefaultConfig()
		cfg.TTL, cfg.ClockDriftFactor, cfg.ClockDriftMargin = 8*time.Second, 0.01, 0
		cfg.RenewInterval = cfg.TTL - time.Millisecond // extension too late: the validity runs out first
		cfg.ValidityCheck, cfg.ValidityCheckInterval = tc.check, tc.interval
		r := newRedlockRig(t, 3, 1, 5, cfg)
		r.s.RunFor(10 * time.Second)
		require.NotEmpty(t, r.of(sim.RecLead, 0))
		stops := r.of(sim.RecStepDown, 0)
		require.NotEmpty(t, stops, tc.check)
		if tc.stopAt == 0 {
			assert.Equal(t, "extend failed", stops[0].Detail, "%s: acts on past its validity until Extend fails", tc.check)
			assert.Greater(t, stops[0].At, sim.Time(8*time.Second), "after every master expired the key")
			continue
		}
		want := sim.Time(tc.stopAt)
		if tc.check == CheckEvery {
			want = r.of(sim.RecLead, 0)[0].At.Add(tc.stopAt) // checks count from the tenure's start
		}
		assert.Equal(t, want, stops[0].At, tc.check)
		assert.Equal(t, "lease expired (local estimate)", stops[0].Detail)
	}
}

// TestRedlockValidity reproduces go-redsync's validity time (mutex.go,
// lockContext: until := now.Add(m.expiry - now.Sub(start) -
// time.Duration(int64(float64(m.expiry)*m.driftFactor)))), which is start +
// expiry − expiry·driftFactor, measured on the client's monotonic clock
// from just before it sent SET NX: with extensions disabled in practice
// (RenewInterval just under the TTL), a holder whose application checks
// before each action (ValidityCheck before_each_action) stops acting exactly then,
// even though every master still holds its key. A client clock running 2×
// fast stops after half that true time.
func TestRedlockValidity(t *testing.T) {
	for _, rate := range []float64{1, 2} {
		cfg := DefaultConfig()
		cfg.TTL, cfg.ClockDriftFactor, cfg.ClockDriftMargin = 8*time.Second, 0.01, 0
		cfg.RenewInterval = cfg.TTL - time.Millisecond
		cfg.ValidityCheck = CheckBeforeEachAction
		r := newRedlockRig(t, 3, 1, 5, cfg)
		r.s.SetMonoRate(0, sim.Rate(rate))
		r.s.RunFor(10 * time.Second)
		leads, stops := r.of(sim.RecLead, 0), r.of(sim.RecStepDown, 0)
		require.NotEmpty(t, leads)
		require.NotEmpty(t, stops)
		want := time.Duration(float64(8*time.Second-80*time.Millisecond) / rate)
		assert.Equal(t, sim.Time(want), stops[0].At, "rate %v: stops at start + expiry − expiry·driftFactor of its own clock", rate)
		assert.Equal(t, "lease expired (local estimate)", stops[0].Detail)
	}
}

// extendRound runs a lone redlock client over five masters, cuts master 5
// off it right after an extension succeeded, and returns how long the next
// extension round took (its renew_sent to its end) and how it ended.
func extendRound(t *testing.T, seed uint64, cfg Config) (time.Duration, string) {
	t.Helper()
	r := newRedlockRig(t, seed, 1, 5, cfg)
	r.s.RunFor(10 * time.Second)
	require.True(t, r.nodes[0].Leading())
	r.cut(0, 4)
	r.s.RunFor(100 * time.Second)
	var sent sim.Time // the first extension sent after the cut
	for _, x := range r.rec.Records {
		if x.Node != 0 || x.At < sim.Time(10*time.Second) {
			continue
		}
		switch {
		case x.Type == sim.RecEffect && x.Name == stateNames[StateRenewSent] && sent == 0:
			sent = x.At
		case sent == 0:
		case x.Type == sim.RecEffect && x.Name == stateNames[StateRenewed]:
			return x.At.Sub(sent), "renewed"
		case x.Type == sim.RecStepDown:
			return x.At.Sub(sent), x.Detail
		}
	}
	t.Fatalf("seed %d: the round never ended", seed)
	return 0, ""
}

// TestRedlockExtendWaitsForSlowestMaster follows go-redsync's
// Mutex.ExtendContext (mutex.go): touch on every master, actOnPoolsAsync
// reading one result per pool — every master's, with no deadline of its
// own (Extend passes context.Background()) — through go-redis v9.22.0's
// client: options.go Options.init (ReadTimeout 5s, DialTimeout 5s,
// MaxRetries 3, back-off 10ms–1s, DialerRetries 5 at 100ms),
// redis.go baseClient.processWithRetry and _process (a read timeout is
// retried on a new connection; baseClient.context drops the caller's
// deadline from the socket unless ContextTimeoutEnabled) and
// internal/pool/pool.go ConnPool.dialConn (each dial bounded by
// DialTimeout and the context). One unreachable master holds the round
// for 5s + 3·(back-off + 5·5s + 4·100ms) ≈ 81.3s, longer than the 10s TTL,
// so the extension fails at its end (ErrExtendFailed: now past until).
// An application deadline of 1s ends it at the 5s read timeout; with
// ContextTimeoutEnabled at the 1s deadline. Before 2026-11-29 the model
// ended every round at 1s.
func TestRedlockExtendWaitsForSlowestMaster(t *testing.T) {
	for _, tc := range []struct {
		name     string
		deadline time.Duration
		ctxTO    bool
		lo, hi   time.Duration
		end      string
	}{
		{"Extend(): no deadline", 0, false, 81230 * time.Millisecond, 81370*time.Millisecond + 4*maxLat, "extend failed"},
		{"ExtendContext 1s", time.Second, false, 5 * time.Second, 5*time.Second + 2*maxLat, "renewed"},
		{"ExtendContext 1s, ContextTimeoutEnabled", time.Second, true, time.Second, time.Second, "renewed"},
	} {
		for seed := uint64(1); seed <= 10; seed++ {
			cfg := DefaultConfig()
			cfg.RequestTimeout, cfg.ContextTimeoutEnabled = tc.deadline, tc.ctxTO
			took, end := extendRound(t, seed, cfg)
			assert.Equal(t, tc.end, end, "%s seed %d", tc.name, seed)
			assert.GreaterOrEqual(t, took, tc.lo, "%s seed %d", tc.name, seed)
			assert.LessOrEqual(t, took, tc.hi, "%s seed %d", tc.name, seed)
		}
	}
}
