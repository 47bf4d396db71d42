package etcdelect

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/sim"
)

// rig is k candidates n0..n(k-1) and the server, added last.
type rig struct {
	s      *sim.Sim
	rec    *sim.Recorder
	nodes  []*Node
	server sim.NodeID
	srv    *Server
}

func newRig(t *testing.T, seed uint64, k int, cfg Config, scfg ServerConfig) *rig {
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
	r.srv = NewServer(scfg)
	r.server = r.s.AddNode("etcd", r.srv, sim.Service())
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

func (r *rig) leader(t *testing.T) sim.NodeID {
	t.Helper()
	ls := r.s.Leaders()
	require.Len(t, ls, 1)
	return ls[0]
}

func cfg10s() Config {
	c := DefaultConfig()
	c.TTL = 10 * time.Second
	return c
}

// TestEtcdCampaignLeadsInCreateRevisionOrder reproduces Election.Campaign
// (client/v3/concurrency/election.go: put prefix/<lease> if absent, then
// waitDeletes in key.go: wait for every key with a lower create revision
// to be deleted): candidates lead one at a time in the order their keys
// were created, each with its key's create revision as token; when the
// leader resigns (Resign deletes the key) the next in line leads at once.
func TestEtcdCampaignLeadsInCreateRevisionOrder(t *testing.T) {
	r := newRig(t, 1, 3, cfg10s(), ServerConfig{})
	r.s.RunFor(time.Second)
	first := r.leader(t)
	var tokens []int64
	for round := 0; round < 3; round++ {
		l := r.leader(t)
		leads := r.records(sim.RecLead, l)
		require.NotEmpty(t, leads)
		tokens = append(tokens, leads[len(leads)-1].Token)
		r.s.At(r.s.Now(), func() { r.nodes[l].Resign() })
		r.s.RunFor(100 * time.Millisecond)
		if round < 2 {
			assert.NotEqual(t, l, r.leader(t), "round %d: the next in line leads", round)
		}
	}
	assert.Empty(t, r.s.Leaders(), "all three resigned")
	assert.IsIncreasing(t, tokens, "tokens are create revisions, in campaign order")
	assert.Equal(t, first, r.records(sim.RecLead, sim.None)[0].Node)
}

// TestEtcdSessionDeadlineIsTheClients reproduces clientv3's lease
// keep-alive (client/v3/lease.go: recvKeepAlive sets the next keep-alive
// TTL/3 and the deadline TTL after each response; deadlineLoop closes the
// keep-alive channel, ending the session, once the deadline passes, by the
// client's clock) against the server's expiry (server/lease/lessor.go: the
// lease expires TTL after its last refresh, by the server's clock). With
// the leader cut off the server, a correct clock stops it before the next
// candidate leads; a clock at half speed keeps it leading a TTL longer.
func TestEtcdSessionDeadlineIsTheClients(t *testing.T) {
	for _, tc := range []struct {
		rate    float64
		overlap bool
	}{{1, false}, {0.5, true}} {
		for seed := uint64(1); seed <= 5; seed++ {
			r := newRig(t, seed, 3, cfg10s(), ServerConfig{})
			r.s.RunFor(5 * time.Second)
			l := r.leader(t)
			r.s.SetMonoRate(l, sim.Rate(tc.rate))
			cut := r.s.Now()
			r.s.Cut(l, r.server)
			r.s.Cut(r.server, l)
			r.s.RunFor(40 * time.Second)
			downs := r.records(sim.RecStepDown, l)
			require.NotEmpty(t, downs, "rate %v seed %d", tc.rate, seed)
			var next sim.Record
			for _, x := range r.records(sim.RecLead, sim.None) {
				if x.Node != l && x.At > cut {
					next = x
					break
				}
			}
			require.NotZero(t, next.At, "rate %v seed %d: another candidate leads", tc.rate, seed)
			stopped := downs[0].At
			assert.Contains(t, downs[0].Detail, "keep-alive deadline")
			if !tc.overlap {
				assert.LessOrEqual(t, stopped, next.At, "rate 1 seed %d: the session ends before the next leader acts", seed)
				continue
			}
			// The deadline armed at the last response had 8.3 s of the
			// client's clock left when the clock slowed: 16.7 s of true
			// time, 8.3 s past the server's expiry.
			assert.Greater(t, stopped.Sub(next.At), 7*time.Second, "rate 0.5 seed %d: seconds of two leaders", seed)
		}
	}
}

// TestEtcdPromoteExtendsLeases reproduces the lessor's Promote
// (server/lease/lessor.go: on becoming leader every lease is refreshed to
// expire extend + its TTL from now): after the leader crashes, a server
// failover 5 s later pushes the dead leader's lease expiry to 5 s +
// extend + TTL after the crash, so the next candidate leads that late
// instead of TTL after the last keep-alive.
func TestEtcdPromoteExtendsLeases(t *testing.T) {
	for _, failover := range []bool{false, true} {
		r := newRig(t, 2, 3, cfg10s(), ServerConfig{PromoteExtend: 2 * time.Second})
		r.s.RunFor(5 * time.Second)
		l := r.leader(t)
		crashAt := r.s.Now()
		r.s.Crash(l)
		if failover {
			r.s.At(crashAt.Add(5*time.Second), func() { r.srv.FailoverLoseLast(0) })
		}
		r.s.RunFor(40 * time.Second)
		var next sim.Record
		for _, x := range r.records(sim.RecLead, sim.None) {
			if x.Node != l && x.At > crashAt {
				next = x
				break
			}
		}
		require.NotZero(t, next.At)
		took := next.At.Sub(crashAt)
		if failover {
			assert.InDelta(t, float64(17*time.Second), float64(took), float64(100*time.Millisecond), "5s + extend 2s + TTL 10s after the crash: %v", took)
		} else {
			assert.Less(t, took, 10*time.Second+100*time.Millisecond, "TTL after the last keep-alive: %v", took)
			assert.Greater(t, took, 6*time.Second, "%v", took)
		}
	}
}

// TestEtcdKeepAliveOfLostLeaseEndsSession: a keep-alive for a lease the
// server no longer has is answered with TTL 0, and the session ends at
// once (clientv3 recvKeepAlive: "if karesp.TTL <= 0 { ... close }").
func TestEtcdKeepAliveOfLostLeaseEndsSession(t *testing.T) {
	r := newRig(t, 3, 2, cfg10s(), ServerConfig{})
	r.s.RunFor(2 * time.Second)
	l := r.leader(t)
	r.s.At(r.s.Now(), func() {
		r.srv.leases = r.srv.leases[:0] // lost on the server (as if revoked)
	})
	r.s.RunFor(5 * time.Second)
	downs := r.records(sim.RecStepDown, l)
	require.NotEmpty(t, downs)
	assert.Equal(t, "session done: lease not found", downs[0].Detail)
}

// TestEtcdConfigValidate names the offending field.
func TestEtcdConfigValidate(t *testing.T) {
	for field, mut := range map[string]func(*Config){
		"TTL":            func(c *Config) { c.TTL = 1500 * time.Millisecond },
		"Name":           func(c *Config) { c.Name = "a/b" },
		"RequestTimeout": func(c *Config) { c.RequestTimeout = 0 },
		"RejoinDelay":    func(c *Config) { c.RejoinDelay = -time.Second },
	} {
		c := DefaultConfig()
		mut(&c)
		err := c.Validate()
		require.Error(t, err, field)
		assert.Contains(t, err.Error(), field)
	}
	require.NoError(t, DefaultConfig().Validate())
}

// TestEtcdAnswersReachOnlyTheirSession: etcd answers a request, and fires
// a watch, on the client's own gRPC stream, so a restarted process never
// sees its predecessor's answers. Request IDs restart with each process,
// so the model's answers carry the session (lease) they were made under:
// a watch left by a dead process on this node, firing with whatever ID it
// awaited, must not pass for this process's RangeBelow answer ("nothing
// below you"), or the follower leads beside the leader.
func TestEtcdAnswersReachOnlyTheirSession(t *testing.T) {
	r := newRig(t, 1, 2, cfg10s(), ServerConfig{})
	r.s.RunFor(time.Second)
	l := r.leader(t)
	f := 1 - l
	r.s.At(r.s.Now(), func() {
		n := r.nodes[f]
		n.rangeBelow() // now awaiting a RangeBelow answer under its lease
		for id := int64(1); id <= 100; id++ {
			n.OnMessage(sim.Message{Kind: KindResponse, From: r.server, To: f, Index: id,
				Body: &Response{ID: id, Op: OpWatchDelete, Session: n.lease + 1000}})
		}
	})
	r.s.RunFor(time.Second)
	assert.Equal(t, []sim.NodeID{l}, r.s.Leaders())
}
