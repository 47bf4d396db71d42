package consulelect

import (
	"time"

	"github.com/electsim/electsim/contract"
	"github.com/electsim/electsim/registry"
)

// Contract is what a Consul session lock promises with these values
// (registry.Algorithm.Contract): no two leaders longer than MaxOverlap
// (docs/algorithms/consul.md, "Contract"), which grows by two of the run's
// longest one-way latencies (contract.LatencyTerms): on a network with no
// latency bound it promises nothing.
func Contract(v registry.Values) contract.Contract {
	c := DefaultConfig()
	registry.SetDuration(v, "session_ttl", &c.SessionTTL)
	registry.SetDuration(v, "lock_delay", &c.LockDelay)
	if v.Has("checks") {
		c.Checks = v.String("checks")
	}
	if v.Has("agent") {
		c.Agent = v.String("agent")
	}
	registry.SetDuration(v, "keepalive_interval", &c.KeepAliveInterval)
	registry.SetDuration(v, "keepalive_timeout", &c.KeepAliveTimeout)
	s := ServerConfig{}
	registry.SetDuration(v, "probe_interval", &s.ProbeInterval)
	registry.SetDuration(v, "serf_timeout", &s.SerfTimeout)
	if v.Has("suspicion_mult") {
		s.SuspicionMult = v.Int("suspicion_mult")
	}
	s.defaults()
	return contract.Contract{Guarantees: []contract.Guarantee{{
		Check:      "split_brain",
		MaxOverlap: overlapBase(c, s),
		Latency:    contract.LatencyTerms{Max: 2},
		// crash: a restarted server has no lock-delays (in memory);
		// clock_step: the lock-delay is judged by the server's wall clock.
		Unless: []contract.FaultClass{contract.Pause, contract.ClockRate, contract.ClockStep, contract.Link, contract.Loss, contract.Crash, contract.DiskLoss},
		Source: "Consul api/lock.go Lock, monitorLock; agent/consul/session_ttl.go (2·TTL); kvs_endpoint.go Apply (lock-delay); yamux keepalive; memberlist suspicionTimeout",
	}}}
}

// MaxOverlap is the longest a cut-off lock holder acts beside its
// successor with exact clocks and no pause, when one-way latencies stay
// below latMax:
//
//	max(0, KeepAliveInterval + KeepAliveTimeout − LockDelay − invalidation + 2·latMax)
//
// where invalidation is the earliest the server ends the holder's session
// after it last heard from it: 1.5·SessionTTL by the TTL (renewed every
// TTL/2, invalidated 2·TTL after the last renewal), or with serfHealth
// checks that can fail (the agent on the candidate's node, AgentHost)
// ProbeInterval + SuspicionMult·ProbeInterval (memberlist's smallest
// suspicion; serf_timeout instead when set). The holder learns
// of the loss only from its monitor query, which it cannot get cut off,
// or when a keep-alive ping (every KeepAliveInterval) goes unanswered for
// KeepAliveTimeout; its successor acquires no earlier than the
// invalidation plus the lock-delay.
func MaxOverlap(c Config, s ServerConfig, latMax time.Duration) time.Duration {
	return max(overlapBase(c, s)+2*latMax, 0)
}

// overlapBase is MaxOverlap less its latency terms, before the clamp at
// zero: KeepAliveInterval + KeepAliveTimeout − LockDelay − invalidation.
func overlapBase(c Config, s ServerConfig) time.Duration {
	inv := 3 * c.SessionTTL / 2
	if c.serfCanFail() {
		serf := s.ProbeInterval + time.Duration(s.SuspicionMult)*s.ProbeInterval
		if s.SerfTimeout > 0 {
			serf = s.SerfTimeout
		}
		inv = min(inv, serf)
	}
	return c.KeepAliveInterval + c.KeepAliveTimeout - c.LockDelay - inv
}
