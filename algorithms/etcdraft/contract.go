package etcdraft

import (
	"time"

	"github.com/electsim/electsim/contract"
)

// The contract's sources, for people (contract.Guarantee.Source).
const (
	sourceElectionSafety = "Raft §5.2, §5.4 and Figure 2; go.etcd.io/raft/v3 v3.7.0 raft.go Step (one Vote per Term in HardState, persisted before the vote response leaves: node.go handleReady)"
	sourceCheckQuorum    = "go.etcd.io/raft/v3 v3.7.0 raft.go tickHeartbeat (MsgCheckQuorum every electionTimeout ticks) and stepLeader MsgCheckQuorum (becomeFollower unless trk.QuorumActive; RecentActive set only by MsgAppResp and MsgHeartbeatResp of the leader's term)"
)

// Contract is what etcd raft promises with configuration c
// (docs/algorithms/etcdraft.md, "Contract").
//
// election_safety holds under every fault except the loss of stable
// storage (a voter that forgets HardState.Vote can vote twice): disk_loss
// anywhere, and with Persist off a crash anywhere.
//
// split_brain with CheckQuorum: the leader's tickHeartbeat steps
// MsgCheckQuorum every ElectionTick ticks (T = ElectionTick × TickInterval
// on its monotonic clock, the first at most T after it was elected), and
// the leader becomes a follower unless a quorum's progress is
// RecentActive, which only a MsgAppResp or MsgHeartbeatResp of its term
// sets. A successor's voters left that term before their grants left, so
// after s′ − minLatency + maxLatency no quorum of such answers can arrive,
// and the second check after that finds none: the overlap is at most
// 2T + (maxLatency − minLatency). A pause of the old leader or a rate
// fault on its clock stretches T.
//
// Without CheckQuorum (etcd server always enables it) a deposed leader
// steps down only when a higher-term message reaches it, and the new
// leader's first MsgApp waits for its disk write as well as the network:
// the contract makes no split_brain promise then.
func Contract(c Config) contract.Contract {
	lost := []contract.FaultClass{contract.DiskLoss}
	if !c.Persist {
		lost = append(lost, contract.Restart) // a restarted node forgot its vote; a crash alone forgets nothing that matters
	}
	out := contract.Contract{Guarantees: []contract.Guarantee{
		{Check: "election_safety", Unless: lost, Anywhere: lost, Lasting: lost, Source: sourceElectionSafety},
	}}
	if c.CheckQuorum {
		out.Guarantees = append(out.Guarantees, contract.Guarantee{
			Check:      "split_brain",
			Unless:     append([]contract.FaultClass{contract.Pause, contract.ClockRate}, lost...),
			Anywhere:   lost,
			Lasting:    lost,
			MaxOverlap: 2 * CheckQuorumPeriod(c),
			Latency:    contract.LatencyTerms{Spread: 1},
			Source:     sourceCheckQuorum,
		})
	}
	return out.WithAftermath(Aftermath(c))
}

// Aftermath is how long after a fault ends it can still explain a finding
// (contract.Guarantee.Aftermath): a deposed leader hears the new term with
// the next heartbeat (HeartbeatTick ticks), and an election the fault set
// off ends within two randomized election timeouts, each below
// 2×ElectionTick ticks (raft.go resetRandomizedElectionTimeout);
// docs/algorithms/etcdraft.md, "Contract".
func Aftermath(c Config) time.Duration {
	return 4*CheckQuorumPeriod(c) + time.Duration(c.HeartbeatTick)*c.TickInterval
}

// CheckQuorumPeriod is how often a leader checks its quorum: ElectionTick
// ticks of TickInterval (raft.go tickHeartbeat).
func CheckQuorumPeriod(c Config) time.Duration {
	return time.Duration(c.ElectionTick) * c.TickInterval
}
