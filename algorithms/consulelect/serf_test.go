package consulelect

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestConsulSuspicionTimeouts pins the suspicion timer to memberlist
// v0.6.0 (github.com/hashicorp/memberlist, commit 1b4c746): util.go
// suspicionTimeout (min = SuspicionMult × max(1, log10 n) × ProbeInterval),
// state.go suspectNode (k = SuspicionMult − 2, or 0 when n − 2 < k; max =
// SuspicionMaxTimeoutMult × min) and suspicion.go remainingSuspicionTime
// and Confirm (the timeout shrinks from max to min on a log scale as
// confirmations arrive, and fires at once when a confirmation comes after
// the shortened deadline).
func TestConsulSuspicionTimeouts(t *testing.T) {
	assert.Equal(t, 4*time.Second, suspicionMin(4, 3, time.Second))
	assert.Equal(t, 4*time.Second, suspicionMin(4, 10, time.Second))
	assert.Equal(t, 8*time.Second, suspicionMin(4, 100, time.Second))
	assert.Equal(t, 16*time.Second, suspicionMin(4, 10000, time.Second))

	lo, hi := 4*time.Second, 24*time.Second
	assert.Equal(t, hi, suspicionAfter(0, 2, lo, hi), "no confirmation: max")
	assert.Equal(t, 11381*time.Millisecond, suspicionAfter(1, 2, lo, hi), "one of two: 24 − log 2/log 3 × 20")
	assert.Equal(t, lo, suspicionAfter(2, 2, lo, hi), "k confirmations: min")
	assert.Equal(t, lo, suspicionAfter(0, 0, lo, hi), "k = 0: min from the start")

	s := int64(0)
	sec := int64(time.Second)
	assert.Equal(t, 24*sec, suspicionFires(s, nil, 2, lo, hi))
	assert.Equal(t, 11381*sec/1000, suspicionFires(s, []int64{sec}, 2, lo, hi))
	assert.Equal(t, 4*sec, suspicionFires(s, []int64{sec, 2 * sec}, 2, lo, hi), "both early: min")
	assert.Equal(t, 7*sec, suspicionFires(s, []int64{sec, 7 * sec}, 2, lo, hi), "the second after min: fires on it")
	assert.Equal(t, 11381*sec/1000, suspicionFires(s, []int64{sec, 12 * sec}, 2, lo, hi), "the second after the one-confirmation deadline: too late")
	assert.Equal(t, 4*sec, suspicionFires(s, nil, 0, lo, hi))
}

// TestConsulSerfSuspicionDelaysInvalidation isolates the lock holder and
// measures when serfHealth invalidates its session, against memberlist
// v0.6.0 (state.go probeNode: a probe's direct and indirect acks are awaited
// until the ProbeInterval deadline, then suspectNode; suspicion.go: the
// node is declared dead min after that once k others confirmed, where the
// other members' probes come round-robin). Consul's leader then marks
// serfHealth critical and the state store deletes the sessions bound to it
// (agent/consul/leader.go reconcileMember → handleFailedMember). The cut
// falls before the next probe (≤ 1 s), suspicion begins a ProbeInterval
// later and lasts at least min (4 s below eleven members): the session
// ends no earlier than 5 s after the cut — the old fixed SerfTimeout of
// 4.5 s after the last answer ended it within 3.5–4.5 s. Larger clusters
// wait longer (min scales with log10 n: 100 members, 8 s).
//
// Serf's member is the host's agent: the window is the same with the agent
// a separate process (agent: separate), whose host the isolation cuts.
func TestConsulSerfSuspicionDelaysInvalidation(t *testing.T) {
	for _, tc := range []struct {
		candidates, members int
		min                 time.Duration
		agent               string
	}{{2, 0, 4 * time.Second, AgentHost}, {3, 0, 4 * time.Second, AgentHost}, {5, 0, 4 * time.Second, AgentHost}, {3, 100, 8 * time.Second, AgentHost},
		{3, 0, 4 * time.Second, AgentSeparate}, {5, 0, 4 * time.Second, AgentSeparate}} {
		for seed := uint64(1); seed <= 5; seed++ {
			name := fmt.Sprintf("agent %s candidates %d members %d seed %d", tc.agent, tc.candidates, tc.members, seed)
			c := DefaultConfig()
			c.Agent = tc.agent
			r := newRig(t, seed, tc.candidates, c)
			r.srv.cfg.Members = tc.members
			r.s.RunFor(20 * time.Second)
			l := r.leader(t)
			cut := r.s.Now()
			r.s.Isolate(l)
			r.s.RunFor(90 * time.Second)
			expired := r.effects(EffectExpired)
			require.Len(t, expired, 1, name)
			after := expired[0].At.Sub(cut)
			n := tc.members
			if n == 0 {
				n = tc.candidates + 1
			}
			// The latest: the first failed probe a ProbeInterval after the
			// cut, suspicion a ProbeInterval later, then min — or the k-th
			// confirmation, at most two rounds of n − 1 probes and a gossip
			// interval on, when that is later.
			latest := 2*time.Second + max(tc.min, time.Duration(2*(n-1))*time.Second+defaultGossipInterval) + 50*time.Millisecond
			assert.GreaterOrEqual(t, after, time.Second+tc.min, "%s: suspicion lasts at least min after a full ProbeInterval unanswered", name)
			assert.LessOrEqual(t, after, latest, name)
		}
	}
}

// TestConsulSerfFixedTimeoutOption keeps the old simplification behind
// ServerConfig.SerfTimeout: a node unheard that long fails serfHealth.
func TestConsulSerfFixedTimeoutOption(t *testing.T) {
	r := newRig(t, 3, 3, hostAgent())
	r.srv.cfg.SerfTimeout = 4500 * time.Millisecond
	r.s.RunFor(20 * time.Second)
	l := r.leader(t)
	cut := r.s.Now()
	r.s.Isolate(l)
	r.s.RunFor(60 * time.Second)
	expired := r.effects(EffectExpired)
	require.Len(t, expired, 1)
	after := expired[0].At.Sub(cut)
	assert.Greater(t, after, 3500*time.Millisecond)
	assert.LessOrEqual(t, after, 4500*time.Millisecond+10*time.Millisecond)
}

// TestConsulSerfHealRefutesSuspicion: a node cut off everyone and back
// before its suspicion timer fires refutes the suspicion (memberlist
// state.go: the probe of a suspect node carries the suspect message, and
// the node's alive message with a higher incarnation clears it), so
// serfHealth never fails and only the session's TTL could end the session.
// The suspicion begins a ProbeInterval after the first unanswered probe and
// lasts at least 4 s: an isolation of 3.9 s, wherever it falls in the probe
// cycle, is refuted by the first probe after the heal. The old fixed 4.5 s
// SerfTimeout after the last answer invalidated the session whenever the
// cut fell more than 0.6 s after a probe.
func TestConsulSerfHealRefutesSuspicion(t *testing.T) {
	for seed := uint64(1); seed <= 10; seed++ {
		c := DefaultConfig() // the agent a separate process: its host is cut and healed
		if seed%2 == 0 {
			c = hostAgent()
		}
		r := newRig(t, seed, 5, c)
		r.s.RunFor(20*time.Second + time.Duration(seed)*97*time.Millisecond)
		l := r.leader(t)
		cut := r.s.Now()
		r.s.Isolate(l)
		r.s.RunFor(3900 * time.Millisecond)
		r.s.Heal()
		r.s.RunFor(20 * time.Second)
		for _, e := range r.effects(EffectExpired) {
			assert.Greater(t, e.At.Sub(cut), 20*time.Second, "seed %d: serfHealth failed; only a TTL could end the session", seed)
		}
	}
}
