package zkelect

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/sim"
)

type rig struct {
	s      *sim.Sim
	rec    *sim.Recorder
	nodes  []*Node
	server sim.NodeID
	srv    *Server
}

func newRig(t *testing.T, seed uint64, k int, cfg Config) *rig {
	t.Helper()
	r := &rig{rec: &sim.Recorder{}}
	r.s = sim.New(sim.Config{Seed: seed, MaxTime: time.Hour, Link: sim.LinkConfig{Latency: sim.Uniform(time.Millisecond, 10*time.Millisecond)}})
	r.s.AddSink(r.rec)
	for i := 0; i < k; i++ {
		nd, err := New(cfg, sim.NodeID(k))
		require.NoError(t, err)
		r.nodes = append(r.nodes, nd)
		r.s.AddNode(fmt.Sprintf("n%d", i), nd)
	}
	r.srv = NewServer(ServerConfig{})
	r.server = r.s.AddNode("zk", r.srv, sim.Service())
	return r
}

func (r *rig) records(typ sim.RecordType, node sim.NodeID) []sim.Record {
	var out []sim.Record
	for _, x := range r.rec.Records {
		if x.Type == typ && (node == sim.None || x.Node == node) {
			out = append(out, x)
		}
	}
	return out
}

func cfgT(policy string) Config {
	c := DefaultConfig()
	c.SessionTimeout, c.Policy = 10*time.Second, policy
	return c
}

// TestZKSessionTimeoutNegotiated reproduces the server's negotiation
// (ZooKeeperServer.processConnectRequest: the requested timeout is clamped
// to [minSessionTimeout, maxSessionTimeout], by default 2 and 20 ticks).
func TestZKSessionTimeoutNegotiated(t *testing.T) {
	for _, tc := range []struct{ asked, got time.Duration }{{time.Second, 4 * time.Second}, {10 * time.Second, 10 * time.Second}, {100 * time.Second, 40 * time.Second}} {
		c := cfgT(PolicyStandard)
		c.SessionTimeout = tc.asked
		r := newRig(t, 1, 1, c)
		r.s.RunFor(time.Second)
		assert.Equal(t, tc.got, r.nodes[0].timeout, "asked %v", tc.asked)
	}
}

// TestZKLatchOrder reproduces Curator's LeaderLatch (checkLeadership: the
// candidate whose ephemeral sequential znode sorts first leads; the others
// watch their predecessor): closing the leader's latch (deleting its
// znode) hands leadership to the next in line, whose token (czxid) is
// higher.
func TestZKLatchOrder(t *testing.T) {
	c := cfgT(PolicyStandard)
	c.Token = TokenCzxid // the application reads the czxid (token_test.go)
	r := newRig(t, 2, 3, c)
	r.s.RunFor(time.Second)
	var tokens []int64
	for round := 0; round < 3; round++ {
		ls := r.s.Leaders()
		require.Len(t, ls, 1, "round %d", round)
		l := ls[0]
		leads := r.records(sim.RecLead, l)
		tokens = append(tokens, leads[len(leads)-1].Token)
		r.s.At(r.s.Now(), func() { r.nodes[l].Resign() })
		r.s.RunFor(200 * time.Millisecond)
	}
	assert.IsIncreasing(t, tokens)
}

// TestZKPoliciesUnderPartition: the leader cut off the ensemble. The ZooKeeper
// client reports Disconnected after its read timeout, two thirds of the
// session timeout (ClientCnxn), which Curator turns into SUSPENDED; the
// server expires the session in the tick bucket after the whole timeout
// (ExpiryQueue.roundToNextInterval: between T and T + tickTime after its
// last ping); Curator's ConnectionStateManager declares LOST a session
// timeout after SUSPENDED. Under the standard policy
// (StandardConnectionStateErrorPolicy) the leader gives up at SUSPENDED,
// before the server expires it: no overlap. Under
// SessionConnectionStateErrorPolicy it leads until LOST, between 2T/3 −
// tickTime and 2T/3 beside its successor.
func TestZKPoliciesUnderPartition(t *testing.T) {
	for _, tc := range []struct {
		policy  string
		overlap bool
	}{{PolicyStandard, false}, {PolicySession, true}} {
		for seed := uint64(1); seed <= 5; seed++ {
			r := newRig(t, seed, 3, cfgT(tc.policy))
			r.s.RunFor(5 * time.Second)
			l := r.s.Leaders()[0]
			cut := r.s.Now()
			r.s.Cut(l, r.server)
			r.s.Cut(r.server, l)
			r.s.RunFor(40 * time.Second)
			downs := r.records(sim.RecStepDown, l)
			require.NotEmpty(t, downs)
			var next sim.Record
			for _, x := range r.records(sim.RecLead, sim.None) {
				if x.Node != l && x.At > cut {
					next = x
					break
				}
			}
			require.NotZero(t, next.At, "%s seed %d", tc.policy, seed)
			if !tc.overlap {
				assert.Equal(t, "connection suspended", downs[0].Detail)
				assert.Less(t, downs[0].At, next.At, "standard seed %d", seed)
				continue
			}
			assert.Contains(t, downs[0].Detail, "connection lost")
			overlap := downs[0].At.Sub(next.At)
			assert.Greater(t, overlap, 6667*time.Millisecond-2*time.Second-100*time.Millisecond, "session seed %d", seed)
			assert.Less(t, overlap, 6667*time.Millisecond+100*time.Millisecond, "session seed %d", seed)
		}
	}
}

// TestZKPoliciesUnderOutage: the ensemble is unavailable for 8 s of a 10 s
// session. Every client connection closes at once (closeAllConnections), no
// session expires (no serving leader), and all are fresh when it serves
// again. Under the standard policy the leader gives up at SUSPENDED — at
// once — and leads again only after RECONNECTED (LeaderLatch.handleStateChange:
// from Curator 5.4 it re-checks the children and, its znode still first,
// takes leadership back; up to 5.3 it reset the latch and the next
// candidate led): the whole outage without a leader. Under the session
// policy it keeps leading.
func TestZKPoliciesUnderOutage(t *testing.T) {
	for _, tc := range []struct {
		policy    string
		stepsDown bool
	}{{PolicyStandard, true}, {PolicySession, false}} {
		r := newRig(t, 3, 3, cfgT(tc.policy))
		r.s.RunFor(5 * time.Second)
		l := r.s.Leaders()[0]
		r.s.At(r.s.Now(), func() { r.srv.SetUnavailable(true) })
		r.s.At(r.s.Now().Add(8*time.Second), func() { r.srv.SetUnavailable(false) })
		r.s.RunFor(30 * time.Second)
		assert.Equal(t, tc.stepsDown, len(r.records(sim.RecStepDown, l)) > 0, tc.policy)
		assert.Len(t, r.s.Leaders(), 1, "%s: a leader afterwards", tc.policy)
	}
}

// TestZKReconnectsAfterBlip: disconnected, the client tries the server
// again after a random back-off under a second (ClientCnxn.SendThread:
// Thread.sleep(r.nextInt(1000)) before startConnect), and every third
// attempt (three servers in the connect string) after a 1 s spin first
// (TestZKReconnectSpinsOnOneServer), so a blip the
// session outlives ends in RECONNECTED, not LOST: the session policy keeps
// the same session and leadership, the standard policy gave up leadership
// at SUSPENDED (what it does on RECONNECTED depends on the Curator version:
// TestZKCuratorVersionOnReconnect).
func TestZKReconnectsAfterBlip(t *testing.T) {
	for _, policy := range []string{PolicySession, PolicyStandard} {
		for seed := uint64(1); seed <= 5; seed++ {
			r := newRig(t, seed, 3, cfgT(policy))
			r.s.RunFor(5 * time.Second)
			l := r.s.Leaders()[0]
			sess := r.nodes[l].session
			// Cut just after a ping is answered (the latch is idle by now, so
			// any answer is a ping's): SUSPENDED comes 2T/3 later, the
			// session would expire T later.
			before := len(r.records(sim.RecDeliver, l))
			for len(r.records(sim.RecDeliver, l)) == before {
				r.s.RunFor(time.Millisecond)
			}
			r.s.Cut(l, r.server)
			r.s.Cut(r.server, l)
			r.s.RunFor(7500 * time.Millisecond) // SUSPENDED at 6.7 s
			r.s.ConnectLinks([]sim.Link{{From: l, To: r.server}, {From: r.server, To: l}})
			r.s.RunFor(2*time.Second + 100*time.Millisecond) // back before the session's 10 s, a spun attempt too
			assert.Equal(t, sess, r.nodes[l].session, "%s seed %d: the same session", policy, seed)
			assert.Equal(t, connConnected, r.nodes[l].conn, "%s seed %d: RECONNECTED", policy, seed)
			downs := r.records(sim.RecStepDown, l)
			if policy == PolicySession {
				assert.Empty(t, downs, "seed %d: the session policy keeps leadership", seed)
				assert.True(t, r.nodes[l].Leading())
				continue
			}
			require.NotEmpty(t, downs, "seed %d", seed)
			assert.Equal(t, "connection suspended", downs[0].Detail)
		}
	}
}
