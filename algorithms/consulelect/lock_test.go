package consulelect

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
	r.server = r.s.AddNode("consul", r.srv, sim.Service())
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

// effects are the server's effects named name, in order.
func (r *rig) effects(name string) []sim.Record {
	var out []sim.Record
	for _, x := range r.records(sim.RecEffect, r.server) {
		if x.Name == name {
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

// nextLead is the first lead by another node than old after from.
func (r *rig) nextLead(old sim.NodeID, from sim.Time) sim.Record {
	for _, x := range r.records(sim.RecLead, sim.None) {
		if x.Node != old && x.At > from {
			return x
		}
	}
	return sim.Record{}
}

// hostAgent is the defaults with the agent on the candidate's node
// (AgentHost): a crash, pause or partition of the node fails serfHealth.
func hostAgent() Config {
	c := DefaultConfig()
	c.Agent = AgentHost
	return c
}

func ttlOnly() Config {
	c := DefaultConfig()
	c.Checks = ChecksNone
	return c
}

// TestConsulSessionInvalidatedAtTwiceTTL reproduces the server's session
// timer (agent/consul/session_ttl.go: resetSessionTimer arms ttl ×
// SessionTTLMultiplier, 2, at each renewal; invalidateSession when it
// fires). The leader is paused: its session is invalidated two TTLs after
// the last renewal the server saw, not one.
func TestConsulSessionInvalidatedAtTwiceTTL(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		r := newRig(t, seed, 3, ttlOnly())
		r.s.RunFor(20 * time.Second)
		l := r.leader(t)
		r.s.Pause(l)
		r.s.RunFor(60 * time.Second)
		expired := r.effects(EffectExpired)
		require.Len(t, expired, 1, "seed %d", seed)
		var last sim.Record
		for _, x := range r.effects(EffectRenewed) {
			if x.At < expired[0].At {
				last = x
			}
		}
		require.NotZero(t, last.At, "seed %d", seed)
		assert.Equal(t, 30*time.Second, expired[0].At.Sub(last.At)-time.Nanosecond, "seed %d", seed)
	}
}

// TestConsulLockDelay reproduces lock-delay (agent/consul/state/session.go:
// deleting a session sets each released key's lock-delay; kvs_endpoint.go
// Apply refuses a KVLock while it lasts) and api/lock.go Lock's timed wait
// (Acquire failed on a free key: wait DefaultLockRetryTime, 5 s): after
// the dead leader's session is invalidated, the next candidate locks once
// the delay has passed, within one retry time; with lock_delay 0, at once.
func TestConsulLockDelay(t *testing.T) {
	for _, delay := range []time.Duration{15 * time.Second, 0} {
		for seed := uint64(1); seed <= 5; seed++ {
			c := ttlOnly()
			c.LockDelay = delay
			r := newRig(t, seed, 3, c)
			r.s.RunFor(10 * time.Second)
			l := r.leader(t)
			r.s.Crash(l)
			r.s.RunFor(90 * time.Second)
			expired := r.effects(EffectExpired)
			require.Len(t, expired, 1)
			next := r.nextLead(l, expired[0].At)
			require.NotZero(t, next.At, "delay %v seed %d", delay, seed)
			wait := next.At.Sub(expired[0].At)
			assert.GreaterOrEqual(t, wait, delay, "delay %v seed %d", delay, seed)
			if delay == 0 {
				assert.Less(t, wait, 50*time.Millisecond, "seed %d: the waiters' blocking queries wake and they acquire", seed)
				continue
			}
			assert.LessOrEqual(t, wait, delay+c.LockRetryTime+100*time.Millisecond, "seed %d", seed)
		}
	}
}

// TestConsulLockDelayByServerWallClock: the endpoint compares the delay's
// expiry with time.Now (kvs_endpoint.go), the server's wall clock. Stepped
// 10 s forward just after the invalidation, the 15 s delay ends 10 s
// early by true time.
func TestConsulLockDelayByServerWallClock(t *testing.T) {
	r := newRig(t, 4, 3, ttlOnly())
	r.s.RunFor(10 * time.Second)
	l := r.leader(t)
	r.s.Crash(l)
	r.s.RunFor(90 * time.Second)
	base := r.nextLead(l, r.effects(EffectExpired)[0].At).At.Sub(r.effects(EffectExpired)[0].At)
	require.GreaterOrEqual(t, base, 15*time.Second)

	r = newRig(t, 4, 3, ttlOnly())
	r.s.RunFor(10 * time.Second)
	l = r.leader(t)
	r.s.Crash(l)
	for r.s.Now() < sim.Time(90*time.Second) && len(r.effects(EffectExpired)) == 0 {
		r.s.RunFor(10 * time.Millisecond)
	}
	expired := r.effects(EffectExpired)
	require.Len(t, expired, 1)
	r.s.StepWall(r.server, 10*time.Second)
	r.s.RunFor(60 * time.Second)
	stepped := r.nextLead(l, expired[0].At).At.Sub(expired[0].At)
	assert.Less(t, stepped, 15*time.Second, "a wall clock 10 s ahead ends the delay early")
	assert.GreaterOrEqual(t, stepped, 5*time.Second)
}

// TestConsulCutOffHolderLearnsByKeepAlive: the holder is cut off the
// servers (the others still reach it, so serf's indirect probes keep its
// node alive). Its monitorLock query (api/lock.go: MonitorRetries 0)
// fails only when the RPC connection is declared dead: a yamux ping
// every 30 s unanswered after 10 s (KeepAliveInterval,
// ConnectionWriteTimeout). The server invalidates its session 2·TTL after
// the last renewal and the next candidate locks after the lock-delay.
// With TTL 20 s that is at least 1.5·20 + 15 = 45 s after the cut, after
// the holder stopped (at most 40 s): no overlap, whatever the keep-alive's
// phase. With TTL 10 s and no lock-delay the next candidate leads 15–20 s
// after the cut: where the keep-alive's phase makes the holder notice
// later, two lead (the cuts fall at five phases; three overlap).
func TestConsulCutOffHolderLearnsByKeepAlive(t *testing.T) {
	for _, tc := range []struct {
		ttl, delay time.Duration
		overlaps   int
	}{{20 * time.Second, 15 * time.Second, 0}, {10 * time.Second, 0, 3}} {
		overlaps := 0
		for seed := uint64(1); seed <= 5; seed++ {
			c := DefaultConfig()
			c.SessionTTL, c.LockDelay = tc.ttl, tc.delay
			r := newRig(t, seed, 3, c)
			r.s.RunFor(time.Duration(seed) * 7 * time.Second) // cut at different keep-alive phases
			l := r.leader(t)
			cut := r.s.Now()
			r.s.Cut(l, r.server)
			r.s.Cut(r.server, l)
			r.s.RunFor(90 * time.Second)
			downs := r.records(sim.RecStepDown, l)
			require.NotEmpty(t, downs, "ttl %v seed %d", tc.ttl, seed)
			assert.Contains(t, downs[0].Detail, "monitor's query failed")
			assert.Greater(t, downs[0].At.Sub(cut), c.KeepAliveTimeout)
			assert.LessOrEqual(t, downs[0].At.Sub(cut), c.KeepAliveInterval+c.KeepAliveTimeout)
			next := r.nextLead(l, cut)
			require.NotZero(t, next.At, "ttl %v seed %d", tc.ttl, seed)
			if next.At < downs[0].At {
				overlaps++
				t.Logf("ttl %v seed %d: next leads %v after the cut, the holder stops after %v", tc.ttl, seed, next.At.Sub(cut), downs[0].At.Sub(cut))
			}
		}
		assert.Equal(t, tc.overlaps, overlaps, "ttl %v", tc.ttl)
	}
}

// TestConsulSerfHealthInvalidatesIsolatedNode: a session bound to its
// node's serfHealth (the server's default for a session naming no checks)
// is invalidated when the node fails serf's probes, direct and indirect
// (memberlist: ProbeTimeout plus the suspicion timeout), long before its
// TTL; a node cut off the servers alone stays alive through the other
// nodes' indirect probes. Serf's member is the host's agent, so this holds
// with the agent a separate process (agent: separate, the default) as on
// the candidate's node (agent: host): a cut of the host cuts its agent
// (agent/consul/leader.go reconcileMember → handleFailedMember marks
// serfHealth critical; the sessions bound to it are deleted). Before
// 2026-11-29 the separate agent was never probed and only the TTL ended
// the session, 22.5–30 s after the cut.
func TestConsulSerfHealthInvalidatesIsolatedNode(t *testing.T) {
	for _, agent := range []string{AgentSeparate, AgentHost} {
		for _, cut := range []string{"isolate", "partition", "servers only"} {
			c := DefaultConfig()
			c.Agent = agent
			r := newRig(t, 5, 3, c)
			r.s.RunFor(20 * time.Second)
			l := r.leader(t)
			at := r.s.Now()
			switch cut {
			case "isolate":
				r.s.Isolate(l)
			case "partition":
				var rest []sim.NodeID
				for i := range r.nodes {
					if sim.NodeID(i) != l {
						rest = append(rest, sim.NodeID(i))
					}
				}
				r.s.Partition([]sim.NodeID{l}, append(rest, r.server))
			default:
				r.s.Cut(l, r.server)
				r.s.Cut(r.server, l)
			}
			r.s.RunFor(60 * time.Second)
			expired := r.effects(EffectExpired)
			name := agent + ", " + cut
			require.Len(t, expired, 1, name)
			after := expired[0].At.Sub(at)
			if cut != "servers only" {
				// memberlist: the first failed probe within a ProbeInterval,
				// suspicion a ProbeInterval later, dead min (4 s) after that
				// with the confirmations of the two other members
				// (TestConsulSerfSuspicionDelaysInvalidation).
				assert.Less(t, after, 2*time.Second+4*time.Second+50*time.Millisecond, "%s: serfHealth critical", name)
				continue
			}
			assert.Greater(t, after, 2*15*time.Second-15*time.Second/2, "%s: only the TTL ends it", name)
		}
	}
}

// TestConsulSeparateAgentsRelayForCrashedApps: memberlist's indirect
// probes (state.go probeNode: ping-req to IndirectChecks other members)
// go through the other members' agents, which outlive their applications.
// With the other two candidates' applications crashed and the holder cut
// off the servers alone, their agents (agent: separate) still relay the
// holder's answers, serfHealth passes and only the TTL ends the session,
// no earlier than 1.5·TTL after the cut; with the agents crashed along
// (agent: host) nothing relays and serf invalidates it within 5–7 s.
func TestConsulSeparateAgentsRelayForCrashedApps(t *testing.T) {
	for _, agent := range []string{AgentSeparate, AgentHost} {
		for seed := uint64(1); seed <= 3; seed++ {
			c := DefaultConfig()
			c.Agent = agent
			r := newRig(t, seed, 3, c)
			r.s.RunFor(20 * time.Second)
			l := r.leader(t)
			at := r.s.Now()
			for i := range r.nodes {
				if sim.NodeID(i) != l {
					r.s.Crash(sim.NodeID(i))
				}
			}
			r.s.Cut(l, r.server)
			r.s.Cut(r.server, l)
			r.s.RunFor(60 * time.Second)
			var mine []sim.Record
			for _, x := range r.effects(EffectExpired) {
				if sim.NodeID(x.A) == l {
					mine = append(mine, x)
				}
			}
			require.Len(t, mine, 1, "%s seed %d", agent, seed)
			after := mine[0].At.Sub(at)
			if agent == AgentHost {
				assert.Less(t, after, 7*time.Second, "seed %d: no member relays", seed)
				continue
			}
			assert.GreaterOrEqual(t, after, 3*c.SessionTTL/2, "seed %d: the crashed applications' agents relay", seed)
		}
	}
}

// TestConsulTokensIncrease: the fencing token is the key's ModifyIndex at
// acquisition (state/kvs.go kvsLockTxn), so every new holder's is higher;
// Unlock releases without a lock-delay (only invalidation sets one).
func TestConsulTokensIncrease(t *testing.T) {
	r := newRig(t, 2, 3, DefaultConfig())
	r.s.RunFor(time.Second)
	var tokens []int64
	for round := 0; round < 3; round++ {
		l := r.leader(t)
		tokens = append(tokens, r.nodes[l].Token())
		r.s.At(r.s.Now(), func() { r.nodes[l].Resign() })
		r.s.RunFor(time.Second)
	}
	assert.IsIncreasing(t, tokens)
}

// TestConsulServerRestartResetsConnections: a restarted server keeps
// sessions and KV (durable) but not connections: the holder's monitor
// query fails, so it stops leading, and a candidate locks again; the
// lock-delay is in memory only and is gone after the restart.
func TestConsulServerRestartResetsConnections(t *testing.T) {
	r := newRig(t, 3, 3, DefaultConfig())
	r.s.RunFor(5 * time.Second)
	l := r.leader(t)
	r.s.Crash(r.server)
	r.s.RunFor(time.Second)
	r.s.Restart(r.server, true)
	r.s.RunFor(60 * time.Second)
	require.NotEmpty(t, r.records(sim.RecStepDown, l))
	assert.Len(t, r.s.Leaders(), 1)
}

func TestConsulConfigValidate(t *testing.T) {
	require.NoError(t, DefaultConfig().Validate())
	for _, tc := range []struct {
		mut  func(*Config)
		want string
	}{
		{func(c *Config) { c.Key = "" }, "Key"},
		{func(c *Config) { c.SessionTTL = 5 * time.Second }, "SessionTTL"},
		{func(c *Config) { c.LockDelay = 2 * time.Minute }, "LockDelay"},
		{func(c *Config) { c.Checks = "maint" }, "Checks"},
		{func(c *Config) { c.KeepAliveTimeout = 0 }, "KeepAliveTimeout"},
		{func(c *Config) { c.RejoinDelay = -time.Second }, "RejoinDelay"},
	} {
		c := DefaultConfig()
		tc.mut(&c)
		err := c.Validate()
		require.Error(t, err)
		assert.Contains(t, err.Error(), tc.want)
	}
}

// TestConsulAnswerOutlivesShortPartition: the holder is isolated for 10 s;
// serf invalidates its session meanwhile and the server answers its
// monitor query into the partition. The answer travels on a TCP
// connection that outlives the partition (its keep-alive did not fail), so
// it is retransmitted with TCP's doubling timeout (RFC 6298 §5; Linux
// TCP_RTO_MIN 200 ms) and arrives after the heal: the holder stops, on
// the changed key, before the lock-delay lets its successor lock.
func TestConsulAnswerOutlivesShortPartition(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		r := newRig(t, seed, 3, hostAgent())
		r.s.RunFor(31 * time.Second) // just after a keep-alive: the next is after the heal
		l := r.leader(t)
		cut := r.s.Now()
		r.s.Isolate(l)
		r.s.RunFor(10 * time.Second)
		r.s.Heal()
		r.s.RunFor(30 * time.Second)
		downs := r.records(sim.RecStepDown, l)
		require.NotEmpty(t, downs, "seed %d", seed)
		assert.Contains(t, downs[0].Detail, "names another session", "seed %d", seed)
		next := r.nextLead(l, cut)
		require.NotZero(t, next.At, "seed %d", seed)
		assert.Less(t, downs[0].At, next.At, "seed %d: no overlap", seed)
		assert.Less(t, downs[0].At.Sub(cut), 20*time.Second, "seed %d: a retransmission after the heal, before the next keep-alive", seed)
	}
}

// TestConsulOutageAndFailoverRestartTimers: without a leader the servers
// run no session timers (clearAllSessionTimers), and a new leader starts
// every one afresh (initializeSessionTimers): a leader paused through a
// 40 s outage (TTL-only session) is invalidated 2·TTL after the cluster
// serves again, not 2·TTL after its last renewal; a failover likewise
// pushes the invalidation to 2·TTL after it.
func TestConsulOutageAndFailoverRestartTimers(t *testing.T) {
	for _, failover := range []bool{false, true} {
		r := newRig(t, 6, 3, ttlOnly())
		r.s.RunFor(10 * time.Second)
		l := r.leader(t)
		r.s.Pause(l)
		var back sim.Time
		if failover {
			back = r.s.Now().Add(20 * time.Second)
			r.s.At(back, func() { r.srv.FailoverLoseLast(0) })
		} else {
			r.s.At(r.s.Now(), func() { r.srv.SetUnavailable(true) })
			back = r.s.Now().Add(40 * time.Second)
			r.s.At(back, func() { r.srv.SetUnavailable(false) })
		}
		r.s.RunFor(2 * time.Minute)
		expired := r.effects(EffectExpired)
		require.Len(t, expired, 1, "failover %v", failover)
		assert.Equal(t, 30*time.Second+time.Nanosecond, expired[0].At.Sub(back), "failover %v", failover)
	}
}

// TestConsulAppCrashSessionEndsByTTL: the application holding the lock
// crashes; its agent, a separate process on the host, stays up, so its
// node's serfHealth keeps passing and only the session's TTL timer ends
// the session — TTL × SessionTTLMultiplier (2) after the last renewal
// (agent/consul/session_ttl.go resetSessionTimer) — after which the
// lock-delay runs (state/session.go) and a waiter locks at its next
// LockRetryTime retry (api/lock.go Lock): no new leader for at least
// 1.5·TTL + LockDelay = 37.5 s after the crash. With the agent on the
// crashed node (agent: host) serf invalidates the session 5–7 s after the
// crash, and the next leader comes about 20 s after it — the model's only
// behaviour before 2026-11-29.
func TestConsulAppCrashSessionEndsByTTL(t *testing.T) {
	for _, agent := range []string{AgentSeparate, AgentHost} {
		for seed := uint64(1); seed <= 5; seed++ {
			c := DefaultConfig()
			c.Agent = agent
			r := newRig(t, seed, 3, c)
			r.s.RunFor(20*time.Second + time.Duration(seed)*1300*time.Millisecond) // crash at different renewal phases
			l := r.leader(t)
			crash := r.s.Now()
			r.s.Crash(l)
			r.s.RunFor(90 * time.Second)
			expired := r.effects(EffectExpired)
			require.Len(t, expired, 1, "%s seed %d", agent, seed)
			next := r.nextLead(l, crash)
			require.NotZero(t, next.At, "%s seed %d", agent, seed)
			failover := next.At.Sub(crash)
			if agent == AgentHost {
				assert.Less(t, expired[0].At.Sub(crash), 7*time.Second, "%s seed %d: serfHealth critical", agent, seed)
				assert.Less(t, failover, 30*time.Second, "%s seed %d", agent, seed)
				continue
			}
			var last sim.Record
			for _, x := range r.effects(EffectRenewed) {
				if x.At < crash {
					last = x
				}
			}
			require.NotZero(t, last.At, "seed %d", seed)
			assert.Equal(t, 2*c.SessionTTL+time.Nanosecond, expired[0].At.Sub(last.At), "seed %d: 2·TTL after the last renewal", seed)
			assert.GreaterOrEqual(t, failover, 3*c.SessionTTL/2+c.LockDelay, "seed %d", seed)
			assert.LessOrEqual(t, failover, 2*c.SessionTTL+c.LockDelay+c.LockRetryTime+100*time.Millisecond, "seed %d", seed)
		}
	}
}

// TestConsulAppPauseKeepsSession: the application holding the lock pauses
// 20 s (a GC pause). Its agent keeps serfHealth passing and the session's
// TTL timer has at least 1.5·TTL = 22.5 s left (session_ttl.go), so the
// session survives, no one else locks, and the application resumes still
// holding the lock. With the agent paused along (agent: host) serf
// invalidates the session and the application loses the lock.
func TestConsulAppPauseKeepsSession(t *testing.T) {
	for _, agent := range []string{AgentSeparate, AgentHost} {
		for seed := uint64(1); seed <= 5; seed++ {
			c := DefaultConfig()
			c.Agent = agent
			r := newRig(t, seed, 3, c)
			r.s.RunFor(20*time.Second + time.Duration(seed)*1300*time.Millisecond)
			l := r.leader(t)
			pause := r.s.Now()
			r.s.Pause(l)
			r.s.RunFor(20 * time.Second)
			r.s.Resume(l)
			r.s.RunFor(40 * time.Second)
			if agent == AgentHost {
				assert.NotEmpty(t, r.effects(EffectExpired), "%s seed %d", agent, seed)
				assert.NotEmpty(t, r.records(sim.RecStepDown, l), "%s seed %d", agent, seed)
				continue
			}
			assert.Empty(t, r.effects(EffectExpired), "seed %d: the session survives", seed)
			assert.Zero(t, r.nextLead(l, pause).At, "seed %d: no one else locks", seed)
			assert.Equal(t, []sim.NodeID{l}, r.s.Leaders(), "seed %d", seed)
		}
	}
}
