package consulelect

import (
	"math"
	"slices"
	"time"

	"github.com/electsim/electsim/sim"
)

// memberlist's LAN defaults (hashicorp/memberlist v0.6.0, config.go
// DefaultLANConfig), which Consul's gossip_lan settings keep.
const (
	defaultSuspicionMult           = 4
	defaultSuspicionMaxTimeoutMult = 6
	defaultGossipInterval          = 200 * time.Millisecond
)

// member is the serf failure detector's view of one node: when it was last
// heard from (a probe answered, directly or through another member, or any
// request), and, while it is suspect, when it will be declared dead.
type member struct {
	node      sim.NodeID
	heardNs   int64
	suspectNs int64 // when suspicion began; 0: alive
	deadNs    int64 // when the suspicion timer fires (valid while suspectNs > 0)
}

// suspicionMin is memberlist's suspicionTimeout (util.go): SuspicionMult ×
// max(1, log10(max(1, n))) × ProbeInterval, the node scale kept to three
// decimals as memberlist does. Under eleven members it is SuspicionMult ×
// ProbeInterval (4 s with the LAN defaults).
func suspicionMin(mult, n int, interval time.Duration) time.Duration {
	scale := math.Max(1, math.Log10(math.Max(1, float64(n))))
	return time.Duration(mult) * time.Duration(scale*1000) * interval / 1000
}

// suspicionAfter is memberlist's remainingSuspicionTime (suspicion.go)
// before subtracting the elapsed time: the suspicion timeout once c of k
// wanted independent confirmations have arrived — max with none, shrinking
// on a log scale to min with k, never below min, floored to milliseconds.
func suspicionAfter(c, k int, lo, hi time.Duration) time.Duration {
	if k < 1 {
		return lo // newSuspicion: no confirmations wanted, min from the start
	}
	frac := math.Log(float64(c)+1) / math.Log(float64(k)+1)
	raw := hi.Seconds() - frac*(hi.Seconds()-lo.Seconds())
	return max(time.Duration(math.Floor(1000*raw))*time.Millisecond, lo)
}

// suspicionFires is when a suspicion timer started at start fires, given
// the arrival times of the confirmations (sorted): memberlist re-arms the
// timer at each new confirmation to start + suspicionAfter(c), and fires
// at once when that instant has already passed (suspicion.go Confirm);
// confirmations beyond k are ignored.
func suspicionFires(start int64, confirms []int64, k int, lo, hi time.Duration) int64 {
	fire := start + int64(suspicionAfter(0, k, lo, hi))
	for c, at := range confirms {
		if c >= k || at >= fire {
			break
		}
		fire = max(start+int64(suspicionAfter(c+1, k, lo, hi)), at)
	}
	return fire
}

// suspect starts the suspicion of m's node at now: the first probe of it
// left unanswered for a whole ProbeInterval (memberlist probeNode waits for
// direct and indirect acks until the probe interval's deadline, then calls
// suspectNode). The timer's bounds and wanted confirmations are
// suspectNode's: k = SuspicionMult − 2, or 0 when fewer than k other
// members could confirm (n − 2 < k); min = suspicionTimeout, max =
// SuspicionMaxTimeoutMult × min. The confirmations come from the n − 2
// other members' own probes of the node (neither the node nor the first
// suspector): memberlist probes one member per ProbeInterval, round-robin
// through a list shuffled every round of n − 1 probes, so each member's
// next probe of the node is drawn from that schedule — its tick phase, its
// place in the current round, the node's place in this round and the
// next. Each such probe fails, its member suspects the node a
// ProbeInterval later and gossips that; the confirmation reaches the
// first suspector up to a GossipInterval after. This assumes every other
// member sees the node fail (the node crashed or is cut off everyone),
// which makes confirmations as early as they can be.
func (s *Server) suspect(m *member, now int64) {
	n := s.members()
	k := s.cfg.SuspicionMult - 2
	if n-2 < k {
		k = 0
	}
	lo := suspicionMin(s.cfg.SuspicionMult, n, s.cfg.ProbeInterval)
	hi := time.Duration(s.cfg.SuspicionMaxTimeoutMult) * lo
	pi := int64(s.cfg.ProbeInterval)
	var confirms []int64
	if k > 0 {
		r := s.env.Rand()
		round := int64(n - 1) // the probes in one round: every member but the prober
		for j := 0; j < n-2; j++ {
			phase := r.Int63Range(0, pi)   // the member's tick, after the first failed probe
			tick := r.Int63Range(0, round) // its place in its current round
			here := r.Int63Range(0, round) // the node's place in this round
			next := r.Int63Range(0, round) // and in the next
			q := here - tick
			if q < 0 {
				q = round - tick + next
			}
			// The probe, q ticks on, fails; the member suspects a
			// ProbeInterval later (now is the first failed probe + PI).
			at := now + phase + q*pi + int64(s.cfg.GossipInterval)
			confirms = append(confirms, at)
		}
		// Sorted once: inserting each in place was quadratic, seconds in
		// one handler for serf_members near its 100,000 maximum (a hunt's
		// extremes), which no -budget could cut short (issue 38 point 5).
		slices.Sort(confirms)
	}
	m.suspectNs = now
	m.deadNs = suspicionFires(now, confirms, k, lo, hi)
}

// members is n, the number of serf members memberlist's estNumNodes counts:
// ServerConfig.Members, or every node the server has heard from plus the
// server itself (the servers are one node here).
func (s *Server) members() int {
	if s.cfg.Members > 0 {
		return s.cfg.Members
	}
	return len(s.serf) + 1
}

// failed reports whether node's serfHealth check is critical at nowNs:
// with a fixed SerfTimeout, unheard that long; otherwise declared dead by
// the suspicion timer.
func (s *Server) failed(node sim.NodeID, nowNs int64) bool {
	m := s.member(node)
	if m == nil {
		return false
	}
	if s.cfg.SerfTimeout > 0 {
		return nowNs > m.heardNs+int64(s.cfg.SerfTimeout)
	}
	return m.suspectNs > 0 && nowNs >= m.deadNs
}

// failsAt is when node's check turns critical unless it is heard from
// first, or -1 when nothing is pending.
func (s *Server) failsAt(node sim.NodeID) int64 {
	m := s.member(node)
	switch {
	case m == nil:
		return -1
	case s.cfg.SerfTimeout > 0:
		return m.heardNs + int64(s.cfg.SerfTimeout) + 1
	case m.suspectNs > 0:
		return m.deadNs
	}
	return -1
}

func (s *Server) member(node sim.NodeID) *member {
	for i := range s.serf {
		if s.serf[i].node == node {
			return &s.serf[i]
		}
	}
	return nil
}

// hear records that node answered: a suspect node refutes its suspicion
// (the probe carries the suspect message; its alive message with a higher
// incarnation clears it, state.go aliveNode).
func (s *Server) hear(node sim.NodeID) {
	if m := s.member(node); m != nil {
		m.heardNs, m.suspectNs, m.deadNs = s.now(), 0, 0
		return
	}
	s.serf = append(s.serf, member{node: node, heardNs: s.now()})
}
