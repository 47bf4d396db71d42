package ring

import (
	"time"

	"github.com/electsim/electsim/contract"
)

// sourceModel is where the contract's model comes from.
const sourceModel = "Chang & Roberts 1979 and LeLann 1977 (a reliable unidirectional ring); Tanenbaum & van Steen and Coulouris et al. 5th ed. §15.3 (crashed successors skipped, so a live successor must acknowledge within the timeout)"

// Contract is what the ring election promises with configuration c
// (docs/algorithms/ring.md, "Contract"): within its model — every message
// delivered, every hop acknowledged within AckTimeout (one-way latency at
// most AckTimeout/2 rounded down), processes that stop when they fail and
// never come back, clocks that run at rate 1 — a round's winner is known
// only after its ELECTION went round every live node, the sitting leader
// included, which leaves its tenure on entering the newer round: no two
// nodes lead at once (split_brain, no overlap) and no round has two
// leaders (election_safety).
//
// The exceptions are every fault class outside that model: partition and
// loss anywhere (a skipped or unreached node closes a ring of its own);
// and on a node the finding involves: restart (crash-recovery: a recovered
// node can reuse a round number; a crash alone, crash-stop, is the
// model), disk_loss (the round counter forgotten), pause (a paused leader still believes it leads, and is skipped),
// clock_rate (a fast clock shortens AckTimeout below a round trip) and disk
// (a slow round write holds the acknowledgement past AckTimeout). Wall
// clocks are never read, so clock_step is no exception. A network (or a
// link fault) slower than AckTimeout/2 breaks the synchronous assumption
// itself: the run gets no contract (contract.LatencyTerms.Assume); a link
// fault within it (class link) is inside the model.
func Contract(c Config) contract.Contract {
	out := contract.Synchronous(c.AckTimeout, sourceModel).WithAftermath(Aftermath(c))
	// Every node relays the ring's election messages, so a slow, paused
	// or fast-clocked node delays or loses an election it is not named in:
	// its faults reach every finding (within the aftermath).
	for i := range out.Guarantees {
		g := &out.Guarantees[i]
		g.Anywhere = append(g.Anywhere, contract.Pause, contract.ClockRate, contract.Disk)
	}
	return out
}

// Aftermath is how long after a fault ends it can still explain a finding
// (contract.Guarantee.Aftermath): a failure-detection period (a heartbeat
// that may just have gone, then HeartbeatTimeout) and two election rounds
// that each restart when they make no progress for HeartbeatTimeout,
// docs/algorithms/ring.md, "Contract".
func Aftermath(c Config) time.Duration {
	return c.HeartbeatInterval + 3*c.HeartbeatTimeout
}
