package zkelect

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/sim"
)

// Tests that hold the model to the sources read for issue 27:
// apache/curator at tags apache-curator-5.3.0, 5.4.0, 5.7.0, 5.8.0 and 5.9.0,
// apache/zookeeper at tag release-3.9.4.

// cutLeader elects, then cuts the leader off the ensemble just after one of
// its pings is answered (SUSPENDED 2T/3 later); it returns the leader and
// the cut time.
func cutLeader(t *testing.T, r *rig) (sim.NodeID, sim.Time) {
	t.Helper()
	r.s.RunFor(5 * time.Second)
	ls := r.s.Leaders()
	require.Len(t, ls, 1)
	l := ls[0]
	before := len(r.records(sim.RecDeliver, l))
	for len(r.records(sim.RecDeliver, l)) == before {
		r.s.RunFor(time.Millisecond)
	}
	r.s.Cut(l, r.server)
	r.s.Cut(r.server, l)
	return l, r.s.Now()
}

// TestZKLostByWallClock: Curator's ConnectionStateManager times SUSPENDED
// with System.currentTimeMillis (startOfSuspendedEpoch, processEvents,
// checkSessionExpiration; curator-framework, apache-curator-5.9.0) and
// injects LOST only when that wall-clock elapsed time reaches the session
// timeout. A wall clock stepped back 5 s during SUSPENDED makes a
// session-policy leader, cut off the ensemble, lead 5 s longer. (Before
// issue 27 the model timed it by the monotonic clock: the step changed
// nothing.)
func TestZKLostByWallClock(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		var ends [2]sim.Time
		for i, step := range []time.Duration{0, -5 * time.Second} {
			r := newRig(t, seed, 3, cfgT(PolicySession))
			l, cut := cutLeader(t, r)
			r.s.RunUntil(cut.Add(7 * time.Second)) // SUSPENDED by now (2T/3 after the last ping)
			require.Equal(t, connSuspended, r.nodes[l].conn)
			if step != 0 {
				r.s.StepWall(l, step)
			}
			r.s.RunFor(30 * time.Second)
			downs := r.records(sim.RecStepDown, l)
			require.NotEmpty(t, downs, "seed %d step %v", seed, step)
			assert.Contains(t, downs[0].Detail, "connection lost")
			ends[i] = downs[0].At
		}
		assert.InDelta(t, float64(5*time.Second), float64(ends[1].Sub(ends[0])), float64(time.Millisecond), "seed %d: the tenure is 5 s longer", seed)
	}
}

// TestZKSessionExpiryBucketed: ZooKeeper's session tracker expires sessions
// in tickTime buckets (ExpiryQueue.update: roundToNextInterval(now +
// timeout), SessionTrackerImpl.run polls each bucket as it falls due;
// zookeeper release-3.9.4), so a session expires on a tick boundary of the
// server's clock, between T and T + tickTime after it was last heard from.
// The boundaries fall where the server's Time.currentElapsedTime puts them
// (System.nanoTime: an arbitrary origin), not where the clients started:
// the server draws their phase at its start, and over seeds the expiry
// falls anywhere within the tick. (Before issue 27 it expired exactly T
// after; before 2026-11-29 the boundaries were multiples of tickTime from
// the run's start, so a fault at a fixed time met a fixed phase.)
func TestZKSessionExpiryBucketed(t *testing.T) {
	tick := int64(2 * time.Second)
	var phases []int64
	for seed := uint64(1); seed <= 5; seed++ {
		r := newRig(t, seed, 1, cfgT(PolicyStandard))
		l, _ := cutLeader(t, r)
		var last sim.Time
		for _, x := range r.records(sim.RecDeliver, r.server) {
			if x.Peer == l {
				last = x.At
			}
		}
		r.s.RunFor(20 * time.Second)
		var expired []sim.Record
		for _, x := range r.records(sim.RecEffect, r.server) {
			if x.Name == EffectExpired {
				expired = append(expired, x)
			}
		}
		require.Len(t, expired, 1, "seed %d", seed)
		at := expired[0].At
		assert.Zero(t, (int64(at)-r.srv.phase)%tick, "seed %d: expired at %v, on a tick boundary of the server's phase", seed, at)
		phases = append(phases, r.srv.phase)
		assert.Greater(t, at.Sub(last), 10*time.Second, "seed %d", seed)
		assert.LessOrEqual(t, at.Sub(last), 10*time.Second+time.Duration(tick), "seed %d", seed)
	}
	slices.Sort(phases)
	assert.Greater(t, phases[len(phases)-1]-phases[0], tick/4, "the phase varies over seeds: %v", phases)
}

// TestZKQuorumLossDisconnectsClients: an ensemble that loses its quorum
// closes every client connection at once (Learner.shutdown and
// Leader.shutdown call QuorumPeer.closeAllConnections; zookeeper
// release-3.9.4), so the ZooKeeper client is Disconnected — Curator's
// SUSPENDED — once its socket's cleanup has slept 100 ms
// (ClientCnxnSocketNIO.cleanup), not after its read timeout. Under the
// standard policy the leader gives up leadership within 100 ms and a
// network latency of the outage, and there is no leader until the ensemble
// serves again. (Before
// issue 27 clients noticed nothing until 2T/3 after their last answer.)
func TestZKQuorumLossDisconnectsClients(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		r := newRig(t, seed, 3, cfgT(PolicyStandard))
		r.s.RunFor(5 * time.Second)
		l := r.s.Leaders()[0]
		out := r.s.Now()
		r.s.At(out, func() { r.srv.SetUnavailable(true) })
		r.s.At(out.Add(8*time.Second), func() { r.srv.SetUnavailable(false) })
		r.s.RunFor(200 * time.Millisecond)
		downs := r.records(sim.RecStepDown, l)
		require.NotEmpty(t, downs, "seed %d: gave up leadership once Disconnected came", seed)
		assert.Equal(t, "connection suspended", downs[0].Detail)
		// ClientCnxnSocketNIO.cleanup sleeps 100 ms before the
		// Disconnected event: the latch leads on meanwhile (before
		// 2026-11-29 it gave up at once; reality measured the 100 ms,
		// docs/reality.md zk-gc-pause).
		assert.GreaterOrEqual(t, downs[0].At.Sub(out), cleanupSleep, "seed %d: not before the cleanup's sleep", seed)
		assert.Less(t, downs[0].At.Sub(out), cleanupSleep+20*time.Millisecond, "seed %d", seed)
		r.s.RunFor(30 * time.Second)
		assert.Len(t, r.s.Leaders(), 1, "seed %d: a leader once it serves again", seed)
	}
}

// TestZKFailoverDisconnectsClients: a ZooKeeper leader change closes every
// client connection too (the servers leave the old epoch through
// Leader/Learner.shutdown → closeAllConnections): under the standard
// policy the leader gives up leadership at once and takes it back when it
// reconnects (Curator ≥ 5.4: its znode is still first).
func TestZKFailoverDisconnectsClients(t *testing.T) {
	r := newRig(t, 4, 3, cfgT(PolicyStandard))
	r.s.RunFor(5 * time.Second)
	l := r.s.Leaders()[0]
	out := r.s.Now()
	r.s.At(out, func() { r.srv.FailoverLoseLast(0) })
	r.s.RunFor(5 * time.Second)
	downs := r.records(sim.RecStepDown, l)
	require.NotEmpty(t, downs)
	assert.GreaterOrEqual(t, downs[0].At.Sub(out), cleanupSleep, "Disconnected after the cleanup's 100 ms sleep")
	assert.Less(t, downs[0].At.Sub(out), cleanupSleep+20*time.Millisecond)
	assert.Equal(t, []sim.NodeID{l}, r.s.Leaders(), "the same candidate leads again")
}

// TestZKCuratorVersionOnReconnect: a 5 s blip under the standard policy;
// the session survives. LeaderLatch.handleStateChange(RECONNECTED) up to
// Curator 5.3 (apache-curator-5.3.0) calls reset(): a new znode at the back
// of the queue, so the next candidate leads. From 5.4 (apache-curator-5.4.0,
// CURATOR-644/645) it calls getChildren(): the znode is kept and, still
// first, the same candidate takes leadership back with the same token.
// (Before issue 27 the model always reset, the ≤ 5.3 behaviour.)
func TestZKCuratorVersionOnReconnect(t *testing.T) {
	for _, v := range []string{"5.3", "5.4", "5.7", "5.9"} {
		for seed := uint64(1); seed <= 3; seed++ {
			c := cfgT(PolicyStandard)
			c.CuratorVersion = v
			r := newRig(t, seed, 3, c)
			l, _ := cutLeader(t, r)
			token := r.records(sim.RecLead, l)[0].Token
			r.s.RunFor(8 * time.Second) // SUSPENDED at 6.7 s: leadership given up
			require.NotEmpty(t, r.records(sim.RecStepDown, l), "%s seed %d", v, seed)
			r.s.ConnectLinks([]sim.Link{{From: l, To: r.server}, {From: r.server, To: l}})
			r.s.RunFor(5 * time.Second)
			ls := r.s.Leaders()
			require.Len(t, ls, 1, "%s seed %d", v, seed)
			if v == "5.3" {
				assert.NotEqual(t, l, ls[0], "seed %d: 5.3 resets the latch; the next candidate leads", seed)
				continue
			}
			assert.Equal(t, l, ls[0], "%s seed %d: the same candidate leads again", v, seed)
			leads := r.records(sim.RecLead, l)
			assert.Equal(t, token, leads[len(leads)-1].Token, "%s seed %d: on the same znode", v, seed)
		}
	}
}

// TestZKCuratorDoubleLeaderBefore57: CURATOR-696 ("Fix double leader for
// LeaderLatch", fixed in apache-curator-5.7.0). The ensemble is down for
// 15 s of a 10 s session: every client is Disconnected at once, Curator
// injects LOST after 10 s of SUSPENDED and the client opens a new session
// when the ensemble is back — but the new leader's session tracker has
// given every old session a fresh timeout, so the old znodes are still
// there. From 5.4 RECONNECTED re-reads the children with the old znode
// path; up to 5.6 checkLeadership leads on it though it belongs to the
// dead session, and keeps leading after that session expires and another
// candidate takes over: two leaders. 5.7 reads the first znode's
// ephemeralOwner and resets unless it is this session; 5.3 resets anyway.
func TestZKCuratorDoubleLeaderBefore57(t *testing.T) {
	for _, tc := range []struct {
		version string
		double  bool
	}{{"5.3", false}, {"5.4", true}, {"5.6", true}, {"5.7", false}, {"5.9", false}} {
		for seed := uint64(1); seed <= 3; seed++ {
			c := cfgT(PolicyStandard)
			c.CuratorVersion = tc.version
			r := newRig(t, seed, 3, c)
			r.s.RunFor(5 * time.Second)
			out := r.s.Now()
			r.s.At(out, func() { r.srv.SetUnavailable(true) })
			r.s.At(out.Add(15*time.Second), func() { r.srv.SetUnavailable(false) })
			r.s.RunFor(60 * time.Second)
			if tc.double {
				assert.Len(t, r.s.Leaders(), 2, "%s seed %d: two leaders", tc.version, seed)
				continue
			}
			assert.Len(t, r.s.Leaders(), 1, "%s seed %d", tc.version, seed)
		}
	}
}

// TestZKOutageDoesNotSpin: an ensemble without quorum expires nothing, so
// the model's server keeps no expiry timer meanwhile. Before issue 27 its
// timer stayed on a session deadline that fell inside the outage and fired
// again at once for ever: every run of an 8 s outage of a 10 s session
// ended "budget_exhausted:event_rate".
func TestZKOutageDoesNotSpin(t *testing.T) {
	r := newRig(t, 1, 3, cfgT(PolicyStandard))
	r.s.RunFor(5 * time.Second)
	out := r.s.Now()
	r.s.At(out, func() { r.srv.SetUnavailable(true) })
	r.s.At(out.Add(15*time.Second), func() { r.srv.SetUnavailable(false) })
	r.s.RunFor(30 * time.Second)
	for _, x := range r.records(sim.RecTimer, r.server) {
		assert.False(t, x.At > out && x.At < out.Add(15*time.Second), "the server's timer fired at %v, during the outage", x.At)
	}
	assert.Equal(t, out.Add(30*time.Second), r.s.Now(), "the run reached its horizon")
}

// TestZKReadTimeoutDisconnectsAfterCleanup reproduces ClientCnxn.SendThread
// on a read timeout (zookeeper ClientCnxn.java, SendThread.run: "Client
// session timed out" → cleanAndNotifyState): ClientCnxnSocketNIO.cleanup
// closes the socket and sleeps 100 ms, and only then is Disconnected —
// Curator's SUSPENDED — queued, so a leader cut off the ensemble leads for
// the read timeout 2T/3 after its last answer and 100 ms more. Measured
// against ZooKeeper 3.8 and Curator 5.4 (docs/reality.md, zk-gc-pause: the
// resumed leader's notLeader 103–106 ms after SIGCONT in every trial).
// Before 2026-11-29 the model gave up leadership at the read timeout.
func TestZKReadTimeoutDisconnectsAfterCleanup(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		r := newRig(t, seed, 2, cfgT(PolicyStandard))
		r.s.RunFor(5 * time.Second)
		l := r.s.Leaders()[0]
		r.s.Cut(l, r.server)
		r.s.Cut(r.server, l)
		r.s.RunFor(20 * time.Second)
		downs := r.records(sim.RecStepDown, l)
		require.NotEmpty(t, downs)
		require.Equal(t, "connection suspended", downs[0].Detail)
		var heard sim.Time
		for _, x := range r.records(sim.RecDeliver, l) {
			if x.Kind == KindResponse && x.At < downs[0].At {
				heard = x.At
			}
		}
		timeout := r.nodes[l].timeout
		assert.Equal(t, 2*timeout/3+cleanupSleep, downs[0].At.Sub(heard), "seed %d: the read timeout after the last answer, then the cleanup's sleep", seed)
	}
}
