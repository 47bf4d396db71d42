package etcdelect

import (
	"time"

	"github.com/electsim/electsim/contract"
	"github.com/electsim/electsim/registry"
)

// Contract is what etcd election promises with these values
// (registry.Algorithm.Contract): no two leaders longer than MaxOverlap
// (docs/algorithms/etcd.md, "Contract"), which grows with the run's
// longest one-way latency (contract.LatencyTerms): on a network with no
// latency bound it promises nothing.
func Contract(v registry.Values) contract.Contract {
	c := DefaultConfig()
	registry.SetDuration(v, "ttl", &c.TTL)
	registry.SetDuration(v, "first_keepalive_timeout", &c.FirstKeepAliveTimeout)
	return contract.Contract{Guarantees: []contract.Guarantee{{
		Check:      "split_brain",
		MaxOverlap: MaxOverlap(c, 0),
		Latency:    contract.LatencyTerms{Max: 1},
		Unless:     []contract.FaultClass{contract.Pause, contract.ClockRate, contract.Link, contract.DiskLoss},
		Source:     "etcd client/v3/lease.go recvKeepAlive (deadline = reply + TTL), deadlineLoop (1 s); server/lease/lessor.go Renew, runLoop, Promote",
	}}}
}

// MaxOverlap is the longest a leader's session outlives its lease at the
// server, with exact clocks and no pause, when one-way latencies stay
// below latMax:
//
//	deadlineLoopPeriod (1 s + passLateness) + latMax + max(0, FirstKeepAliveTimeout − TTL)
//
// The client's deadline is TTL after it received a keep-alive's answer,
// which left the server at most latMax earlier, when the server renewed
// the lease for TTL; the session ends at deadlineLoop's first pass after
// the deadline, up to a period (1 s and a pass's lateness) later. Until the first answer the deadline is
// FirstKeepAliveTimeout after KeepAlive, called when the Grant's answer
// arrived (at most latMax after the server granted the lease for TTL).
// The server's revoke loop and commit only delay the successor, and a
// failover only extends leases, so neither is subtracted.
func MaxOverlap(c Config, latMax time.Duration) time.Duration {
	return deadlineLoopPeriod + latMax + max(c.FirstKeepAliveTimeout-c.TTL, 0)
}
