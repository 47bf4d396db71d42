package checker

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/algorithms/lease"
	"github.com/electsim/electsim/cron"
	"github.com/electsim/electsim/sim"
)

// gcRun is the Kleppmann GC-pause scenario ("How to do distributed locking",
// 2016) built directly on the engine: three ttl-lease candidates (Redis SET NX
// PX, expiry by the store's clock), a lease store, and a fenced resource with
// one daily job due at 02:00. The leader starts the 02:00 run, is paused for
// longer than the TTL just after, the lease expires, another candidate takes
// it and recovers the slot, and the paused leader resumes and writes with its
// old token.
type gcRun struct {
	s      *sim.Sim
	rec    *sim.Recorder
	res    *cron.Resource
	input  Input
	victim sim.NodeID
}

var gcWallStart = time.Date(2026, 11, 21, 1, 59, 50, 0, time.UTC)

func runGCPause(t *testing.T, seed uint64, policy cron.Policy) *gcRun {
	t.Helper()
	const k = 3
	cands := []sim.NodeID{0, 1, 2}
	storeID, resID := sim.NodeID(k), sim.NodeID(k+1)
	s := sim.New(sim.Config{Seed: seed, WallStart: gcWallStart, MaxTime: 10 * time.Minute,
		Link: sim.LinkConfig{Latency: sim.Uniform(time.Millisecond, 10*time.Millisecond)}})
	rec := &sim.Recorder{}
	s.AddSink(rec)
	cc := cron.Config{Jobs: cron.Table{{Name: "daily-report", Schedule: "0 2 * * *", RunMin: 2 * time.Second}},
		Resource: resID, Policy: policy, NotBefore: gcWallStart}
	require.NoError(t, cc.Validate())
	lc := lease.DefaultConfig()
	lc.Flavor, lc.Token = lease.FlavorTTL, lease.TokenFence // the application's INCR token: the story fences by it
	for i := 0; i < k; i++ {
		s.AddNode("n"+string(rune('1'+i)), cron.Wrap(lease.MustNew(lc, cands, storeID), &cc))
	}
	s.AddNode("store", lease.NewStore(lease.StoreConfig{}), sim.Service())
	_, res := cron.AddResource(s, "resource", cc.Jobs, policy)

	g := &gcRun{s: s, rec: rec, res: res, victim: sim.None}
	// The slot is due at true time 10s; pause the leader 50ms after it
	// started the run, for 15s (TTL 10s).
	s.At(sim.Time(10*time.Second+50*time.Millisecond), func() {
		ls := s.Leaders()
		require.Len(t, ls, 1)
		g.victim = ls[0]
		s.Pause(g.victim)
		s.After(15*time.Second, func() { s.Resume(g.victim) })
	})
	s.RunUntil(sim.Time(60 * time.Second))
	s.End()
	g.input = Input{Records: rec.Records, Names: NamesOf(s), Candidates: cands, LeaseStore: []sim.NodeID{storeID},
		Resource: res.Log(), Policy: policy, Jobs: cc.Jobs, CronFrom: gcWallStart, CronTo: gcWallStart.Add(40 * time.Second),
		WallStart: gcWallStart, FaultEnd: sim.Time(25*time.Second + 50*time.Millisecond),
		SettleStart: sim.Time(25*time.Second + 50*time.Millisecond), SettleBound: 15 * time.Second,
		Replay: "go test ./checker -run TestGCPause"}
	return g
}

// Unfenced (policy none): the resumed leader's write with the old token is
// applied after the new leader's — double execution, a stale write, and a
// porcupine Illegal on the resource history; the belief-level overlap did
// the damage.
func TestGCPauseUnfenced(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		g := runGCPause(t, seed, cron.Policy{})
		r := Run(g.input)
		victim := g.input.Names[g.victim]
		const slot = "daily-report@2026-11-21T02:00:00Z"

		de := mustCheck(r, CheckDoubleExecution)
		require.Equal(t, StatusViolated, de.Status, "seed %d\n%s", seed, r)
		require.Equal(t, 1, de.Count)
		v := de.Violations[0]
		assert.Equal(t, slot, v.Slot)
		assert.Equal(t, victim, v.Nodes[1], "the paused leader's run is the second one applied")
		assert.Equal(t, g.input.Replay, v.Replay)
		for _, want := range []string{
			victim + " started a run of " + slot + " with token 1",
			victim + " paused for 15s",
			"expired by the store's clock",
			"acquired the lease, token 2",
			victim + " resumed",
			victim + " wrote " + slot + " step 0 with token 1; resource accepted it",
			"(policy: none)",
		} {
			assert.Contains(t, v.Explanation, want, "seed %d", seed)
		}
		// With validity_check: never (go-redsync's README usage, the
		// default) the resumed holder writes before it learns anything: it
		// stops leading only when its refused extension comes back, which
		// may come after the story's last step, the doubled write.
		assert.True(t, strings.HasSuffix(v.Explanation, "→ double execution"), "seed %d: %s", seed, v.Explanation)

		require.Equal(t, "Illegal", r.Linearizability[1].Result)
		assert.Equal(t, StatusViolated, mustCheck(r, CheckLinearizability).Status)
		assert.Equal(t, StatusViolated, mustCheck(r, CheckStaleWrite).Status)
		sb := mustCheck(r, CheckSplitBrain)
		require.Equal(t, StatusViolated, sb.Status)
		assert.False(t, sb.Violations[0].Harmless)
		assert.Equal(t, StatusOK, mustCheck(r, CheckElectionSafety).Status)
		assert.Equal(t, StatusOK, mustCheck(r, CheckLiveness).Status)
		assert.Equal(t, StatusOK, mustCheck(r, CheckMissedSlots).Status)

		// One failover: the store's clock expires the lease at most TTL
		// after the last renewal (renewals every TTL/3), and a candidate
		// retries within RetryPeriod·(1+JitterFactor) = 4.4s.
		require.Len(t, r.Failovers, 1)
		f := r.Failovers[0]
		assert.Equal(t, victim+" paused", f.Fault)
		assert.Equal(t, sim.Time(10*time.Second+50*time.Millisecond), f.FaultAt)
		assert.Equal(t, "store", f.DetectedBy)
		assert.True(t, f.Detection > 10*time.Second-10*time.Second/3-50*time.Millisecond && f.Detection <= 10*time.Second, "detection %v", f.Detection)
		require.True(t, f.Completed)
		assert.NotEqual(t, victim, f.NewLeader)
		assert.Equal(t, int64(2), f.NewToken)
		assert.True(t, f.Latency > f.Detection && f.Latency < f.Detection+4400*time.Millisecond+50*time.Millisecond, "latency %v", f.Latency)
		assert.True(t, f.FencedRun)
		assert.True(t, f.ToFencedRun >= f.Latency+2*time.Second, "the recovered run lasts 2s")

		ok, _ := r.Judge(Expect{})
		assert.False(t, ok)
		ok, problems := r.Judge(Expect{MustOccur: []string{CheckDoubleExecution, CheckStaleWrite, CheckLinearizability, CheckSplitBrain, CheckLeaderLinearizability}})
		assert.True(t, ok, problems)
	}
}

// Fenced: the same pause, but the resource rejects the old token. Neither
// double execution nor a porcupine Illegal; the belief-level split-brain is
// still reported, as harmless.
func TestGCPauseFenced(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		g := runGCPause(t, seed, cron.Policy{Fencing: true})
		r := Run(g.input)
		victim := g.input.Names[g.victim]
		assert.Equal(t, StatusOK, mustCheck(r, CheckDoubleExecution).Status, "seed %d\n%s", seed, r)
		assert.Equal(t, StatusOK, mustCheck(r, CheckStaleWrite).Status)
		assert.Equal(t, "Ok", r.Linearizability[1].Result)
		assert.Equal(t, StatusOK, mustCheck(r, CheckLinearizability).Status)

		sb := mustCheck(r, CheckSplitBrain)
		require.Equal(t, StatusViolated, sb.Status)
		require.Equal(t, 1, sb.Count)
		require.True(t, sb.OnlyHarmless())
		v := sb.Violations[0]
		assert.Equal(t, victim, v.Nodes[0])
		// The overlap ends when the resumed leader's extension is refused:
		// with validity_check: never (the default, go-redsync's README
		// usage) it does not compare its clock with the validity, so it
		// learns of the lost lease one store round trip (1-10 ms each way)
		// after it resumes at 25.050 s.
		assert.GreaterOrEqual(t, v.End, sim.Time(25*time.Second+52*time.Millisecond), "seed %d", seed)
		assert.LessOrEqual(t, v.End, sim.Time(25*time.Second+70*time.Millisecond), "seed %d", seed)
		assert.Equal(t, "harmless: the resource rejected 1 write(s) ("+victim+" token 1: stale_token; policy: fencing) and applied no slot from both leaders and no stale token", v.Why)
		assert.Contains(t, v.Explanation, "resource rejected it: stale_token")
		assert.True(t, mustCheck(r, CheckLeaderLinearizability).OnlyHarmless())

		ok, problems := r.Judge(Expect{})
		assert.True(t, ok, problems)
		ok, _ = r.Judge(Expect{FailOnHarmless: true})
		assert.False(t, ok)
	}
}

// The resource history's visualization carries the faults and the tenures.
func TestGCPauseVisualization(t *testing.T) {
	g := runGCPause(t, 1, cron.Policy{})
	r := Run(g.input)
	var buf bytes.Buffer
	require.NoError(t, r.Linearizability[1].Visualize(&buf))
	html := buf.String()
	assert.Contains(t, html, g.input.Names[g.victim]+" paused at t=10.050s for 15s")
	assert.Contains(t, html, "acted as leader, epoch 2 token 2")
	assert.Contains(t, html, "daily-report@2026-11-21T02:00:00Z step 0 token 1 → applied")
}
