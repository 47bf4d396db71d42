package zkelect

import (
	"time"

	"github.com/electsim/electsim/contract"
	"github.com/electsim/electsim/registry"
)

// Curator696 labels the known bug of Curator 5.4–5.6's LeaderLatch
// (CURATOR-696, fixed in 5.7): after a LOST the client injected while the
// ensemble still holds its session, the latch leads on that session's
// znode beside the next leader.
const Curator696 = "CURATOR-696 (Curator 5.4–5.6: the latch leads on its old session's znode after an injected LOST)"

// defaultTickTime is the server's tickTime when the scenario sets none
// (NewServer's default, zoo_sample.cfg's tickTime=2000).
const defaultTickTime = 2 * time.Second

// Contract is what Curator's LeaderLatch over ZooKeeper promises with
// these values (registry.Algorithm.Contract): no two leaders longer than
// MaxOverlap (docs/algorithms/zookeeper.md, "Contract"), which grows with
// the run's longest one-way latency (contract.LatencyTerms): on a network
// with no latency bound it promises nothing.
func Contract(v registry.Values) contract.Contract {
	c := DefaultConfig()
	registry.SetDuration(v, "session_timeout", &c.SessionTimeout)
	if v.Has("policy") {
		c.Policy = v.String("policy")
	}
	if v.Has("curator_version") {
		c.CuratorVersion = v.String("curator_version")
	}
	tick := defaultTickTime
	registry.SetDuration(v, "tick_time", &tick)
	unless := []contract.FaultClass{contract.Pause, contract.ClockRate, contract.Link, contract.DiskLoss}
	if c.Policy == PolicySession || (c.minor() >= 4 && c.minor() <= 6) {
		// LOST is injected by the wall clock (checkSessionExpiration).
		unless = append(unless, contract.ClockStep)
	}
	var known []contract.KnownBug
	if c.minor() >= 4 && c.minor() <= 6 {
		// CURATOR-696: after an injected LOST while the ensemble still
		// holds the session, the latch leads on the old session's znode.
		// The ensemble keeps a session the client gave up when it was
		// down longer than T (service_down), or when it still heard the
		// client but its answers were lost: a one-way cut (partition) or
		// lost answers (loss; TestZKCurator696OneWayCut, found by hunt).
		// Not an excuse: the release's bug, reported as a breach with its
		// name (issue 35).
		known = append(known, contract.KnownBug{Label: Curator696,
			Classes: []contract.FaultClass{contract.ServiceDown, contract.Partition, contract.Loss}})
	}
	return contract.Contract{Guarantees: []contract.Guarantee{{
		Check:      "split_brain",
		MaxOverlap: overlapBase(c, tick),
		Latency:    contract.LatencyTerms{Max: 1},
		Unless:     unless,
		Known:      known,
		Source:     "Curator LeaderLatch.handleStateChange, Standard/SessionConnectionStateErrorPolicy, ConnectionStateManager.checkSessionExpiration; ZooKeeper ClientCnxn (read timeout 2T/3), ExpiryQueue (expiry ≥ T after the last request)",
	}}}
}

// MaxOverlap is the longest a latch leads beside its successor with exact
// clocks and no pause, when one-way latencies stay below latMax, with the
// session timeout T negotiated into [2, 20] ticks:
//
//	standard: max(0, latMax − T/3 + 100 ms)
//	session:  2T/3 + 100 ms + latMax
//
// The server expires a session no earlier than T after the last request
// it received (then its znode goes and the next latch may lead), and the
// client last heard from it at most latMax after that request. The
// standard policy gives up at SUSPENDED, the read timeout 2T/3 after the
// client last heard and the socket cleanup's 100 ms sleep
// (ClientCnxnSocketNIO.cleanup) more; the session policy at LOST, a
// further T of SUSPENDED.
func MaxOverlap(c Config, tick, latMax time.Duration) time.Duration {
	return max(overlapBase(c, tick)+latMax, 0)
}

// overlapBase is MaxOverlap less its one latency term, before the clamp
// at zero: 2T/3 + 100 ms (session) or −T/3 + 100 ms (standard).
func overlapBase(c Config, tick time.Duration) time.Duration {
	t := min(max(c.SessionTimeout, 2*tick), 20*tick)
	if c.Policy == PolicySession {
		return 2*t/3 + cleanupSleep
	}
	return -t/3 + cleanupSleep
}
