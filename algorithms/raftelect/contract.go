package raftelect

import (
	"time"

	"github.com/electsim/electsim/contract"
)

// The contract's sources, for people (contract.Guarantee.Source).
const (
	sourceElectionSafety = "Raft (Ongaro & Ousterhout 2014) §5.2, §5.4 and Figure 2: one vote per term, currentTerm and votedFor on stable storage before answering"
	sourceCheckQuorum    = "Ongaro's thesis §6.2: a leader steps down after an election timeout without hearing from a majority (leader.go checkQuorum)"
	sourceStepDown       = "Raft Figure 2, Rules for Servers: a server that sees a higher term converts to follower; a new leader heartbeats every peer at once"
	sourceDisruption     = "Ongaro's thesis §9.6 (PreVote; a server ignores RequestVote within the minimum election timeout of hearing a leader) and §6.2 (CheckQuorum)"
)

// Contract is what Raft leader election promises with configuration c
// (docs/algorithms/raft.md, "Contract").
//
// election_safety (at most one leader per term) holds under every fault the
// simulator injects except the loss of stable storage, which Raft's proof
// assumes (Figure 2): a voter that forgets its vote can vote twice, so a
// disk_loss anywhere voids it, and with Persist off so does a crash
// anywhere.
//
// split_brain with CheckQuorum: a leader of term t checks every
// ElectionTimeoutMin (T) whether a majority answered a heartbeat of term t
// since the last check. A successor L′ elected in a higher term at s′ holds
// votes from a majority that had all left term t before their grants left,
// so after s′ − minLatency + maxLatency no majority member's term-t answer
// can still arrive; the first check at or after that instant is at most T
// later, and the next one finds no majority and steps down: the overlap is
// at most 2T + (maxLatency − minLatency), whatever the network does
// (partitions included). A pause of the old leader (its check cannot run)
// or a rate fault on its monotonic clock (T stretches) lengthens it.
//
// split_brain without CheckQuorum: a leader steps down only when a message
// of a higher term reaches it. L′ heartbeats every peer as soon as it is
// elected, so on a network that delivers, the old leader hears it within
// maxLatency (link faults' latencies included: the scenario resolves the
// term over them); a partition, message loss or a pause can keep that
// message from it for ever.
func Contract(c Config) contract.Contract {
	lost := []contract.FaultClass{contract.DiskLoss}
	if !c.Persist {
		lost = append(lost, contract.Restart) // a restarted node forgot its vote; a crash alone forgets nothing that matters
	}
	es := contract.Guarantee{Check: "election_safety", Unless: lost, Anywhere: lost, Lasting: lost, Source: sourceElectionSafety}
	sb := contract.Guarantee{Check: "split_brain", Anywhere: lost, Lasting: lost}
	if c.CheckQuorum {
		sb.Unless = append([]contract.FaultClass{contract.Pause, contract.ClockRate}, lost...)
		sb.MaxOverlap = 2 * c.ElectionTimeoutMin
		sb.Latency = contract.LatencyTerms{Spread: 1}
		sb.Source = sourceCheckQuorum
	} else {
		sb.Unless = append([]contract.FaultClass{contract.Partition, contract.Loss, contract.Pause}, lost...)
		sb.Latency = contract.LatencyTerms{Max: 1}
		sb.Source = sourceStepDown
	}
	out := contract.Contract{Guarantees: []contract.Guarantee{es, sb}}
	if c.PreVote && c.CheckQuorum {
		// PreVote keeps a node that was cut off from raising its term
		// (thesis §9.6), and CheckQuorum's leader lease makes a follower
		// that heard from its leader within the minimum election timeout
		// refuse pre-votes (§6.2, §9.6), so a node rejoining after a
		// partition does not depose a leader a majority still hears. Not
		// a partition: the check only judges a leader whose majority's
		// links had been up for the window.
		out.Guarantees = append(out.Guarantees, contract.Guarantee{Check: "disruption",
			Unless:    append([]contract.FaultClass{contract.Pause, contract.ClockRate, contract.Loss, contract.Link, contract.Disk, contract.Crash, contract.Restart}, lost...),
			Window:    2 * c.ElectionTimeoutMax,
			TermState: StateTermBumped + 1,
			Source:    sourceDisruption})
	}
	return out.WithAftermath(Aftermath(c))
}

// Aftermath is how long after a fault ends it can still explain a finding
// (contract.Guarantee.Aftermath): a deposed leader hears the new term with
// the next heartbeat (HeartbeatInterval), and an election the fault set off
// ends within two election timeouts (one split vote retried), §5.2 and
// §9.3; docs/algorithms/raft.md, "Contract".
func Aftermath(c Config) time.Duration {
	return 2*c.ElectionTimeoutMax + c.HeartbeatInterval
}
