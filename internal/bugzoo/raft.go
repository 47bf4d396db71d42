package bugzoo

import (
	"encoding/binary"

	"github.com/electsim/electsim/registry"
	"github.com/electsim/electsim/sim"
)

// raftBugs are the variants of raft and etcdraft.
func raftBugs() []Bug {
	return []Bug{
		{
			Name: "zoo-raft-votedfor", Base: "raft", Catches: "election_safety",
			Summary:  "raft persists currentTerm but not votedFor: a voter that restarts votes again in the same term",
			Citation: "datatechnology/cornerstone#65 (term and votedFor not persisted: \"N2 votes for N1 in term 1, restarts, votes for N3\"); akka-raft#56 (a node forgets whom it voted for; two leaders in one term); Raft paper Figure 2, \"Persistent state on all servers\"",
			Scenario: "raft-votedfor.yaml",
			wrap: onBase(func(f registry.Factory, v registry.Values) registry.Factory {
				return wrapFactory(f, func(env sim.Env) layer { return forgetVote{plain{env}} }, nil)
			}),
		},
		{
			Name: "zoo-etcdraft-unsynced", Base: "etcdraft", Catches: "election_safety",
			Summary:  "etcdraft sends Ready's messages without making its HardState durable: a restarted voter forgets its term and vote",
			Citation: "go.etcd.io/raft README, \"Usage\": write HardState and Entries to stable storage before sending messages (the contract an application must keep); vesoft-inc/nebula#3415 (the vote for itself was not saved, so another candidate could win the same term); datatechnology/cornerstone#65",
			Scenario: "etcdraft-unsynced.yaml",
			wrap: onBase(func(f registry.Factory, v registry.Values) registry.Factory {
				return wrapFactory(f, func(env sim.Env) layer { return noPersist{plain{env}} }, nil)
			}),
		},
		{
			Name: "zoo-raft-checkquorum-off-by-one", Base: "raft", Catches: "split_brain", NeedsContract: true,
			Summary:  "raft's CheckQuorum counts the leader twice: a leader cut off with one follower of five keeps leading",
			Citation: "apache/kafka#16211 (KAFKA-16531: check-quorum's majority miscounted the leader, so a leader outside the voter set mis-judged its quorum); Ongaro's thesis §6.2 (a leader steps down after an election timeout without hearing from a majority)",
			Scenario: "raft-checkquorum.yaml",
			wrap: onBase(func(f registry.Factory, v registry.Values) registry.Factory {
				return hooked(f, func(nd sim.Node) {
					hook[interface{ ZooCountLeaderTwice() }](nd, "ZooCountLeaderTwice hook").ZooCountLeaderTwice()
				})
			}),
		},
		{
			Name: "zoo-raft-prevote-no-lease", Base: "raft", Catches: "disruption", NeedsContract: true,
			Summary:  "raft grants a pre-vote inside the leader lease: a follower rejoining after a partition wins its pre-vote and deposes the healthy leader",
			Citation: "Ongaro's thesis §9.6 (disruptive servers: a server that heard from a current leader within the minimum election timeout does not grant a vote; PreVote alone does not stop a rejoining server whose log is as up to date); go.etcd.io/raft raft.go Step (a MsgPreVote is refused inLease, which needs CheckQuorum)",
			Scenario: "raft-prevote-rejoin.yaml",
			wrap: onBase(func(f registry.Factory, v registry.Values) registry.Factory {
				return hooked(f, func(nd sim.Node) {
					hook[interface{ ZooPreVoteIgnoresLease() }](nd, "ZooPreVoteIgnoresLease hook").ZooPreVoteIgnoresLease()
				})
			}),
		},
		{
			Name: "zoo-raft-stale-vote", Base: "raft", Catches: "election_safety",
			Summary:  "a raft candidate counts a vote granted in an earlier term toward its current campaign",
			Citation: "andreev-io/little-raft#44 (process_vote_response_as_candidate did not ignore votes with a stale term: two leaders in one term); Raft paper Figure 2 (drop responses of an older term)",
			Scenario: "raft-stale-vote.yaml",
			wrap: onBase(func(f registry.Factory, v registry.Values) registry.Factory {
				return func(peers []sim.NodeID, svc registry.Services) sim.Node {
					inner := f(peers, svc)
					t := hook[interface{ Term() int64 }](inner, "Term()")
					return &node{inner: inner, newLayer: func(env sim.Env) layer { return plain{env} },
						filter: func(_ layer, m *sim.Message) bool {
							// The bug: a granted vote of any term counts
							// as a vote of the campaign now running.
							if m.Kind == raftVoteResp() && m.Flag && m.Term < t.Term() {
								m.Term = t.Term()
							}
							return true
						}}
				}
			}),
		},
		{
			Name: "zoo-raft-count-grants", Base: "raft", Catches: "election_safety",
			Summary:  "a raft candidate counts granted vote messages, not voters: a duplicated grant counts twice",
			Citation: "xnnyygn/xraft#27 (\"Duplicate vote response can make illegal leader without a quorum\": RequestVoteResult carries no voter, the candidate counts grants); Raft paper §5.2 (a candidate wins with votes from a majority of servers)",
			Scenario: "raft-count-grants.yaml",
			wrap: onBase(func(f registry.Factory, v registry.Values) registry.Factory {
				return func(peers []sim.NodeID, svc registry.Services) sim.Node {
					inner := f(peers, svc)
					t := hook[interface{ Term() int64 }](inner, "Term()")
					c := &grantCounter{peers: peers, term: t.Term}
					return &node{inner: inner, newLayer: func(env sim.Env) layer { c.reset(env.ID()); return plain{env} }, filter: c.filter}
				}
			}),
		},
	}
}

// grantCounter makes a raft node count grant messages instead of voters:
// a grant from a voter already counted this term is passed on as a grant
// from a peer that has not voted yet, so the node's per-voter tally (which
// is correct) counts it again.
type grantCounter struct {
	peers []sim.NodeID
	term  func() int64
	self  sim.NodeID
	at    int64               // term of the grants in seen
	seen  map[sim.NodeID]bool // voters (real or relabelled) counted in at
}

func (c *grantCounter) reset(self sim.NodeID) { c.self, c.at, c.seen = self, -1, nil }

func (c *grantCounter) filter(_ layer, m *sim.Message) bool {
	if m.Kind != raftVoteResp() || !m.Flag || m.Term != c.term() {
		return true
	}
	if m.Term != c.at {
		c.at, c.seen = m.Term, map[sim.NodeID]bool{}
	}
	if c.seen[m.From] {
		for _, p := range c.peers { // ascending: deterministic
			if p != c.self && !c.seen[p] {
				m.From = p
				break
			}
		}
	}
	c.seen[m.From] = true
	return true
}

// forgetVote is raft's durable write with votedFor dropped: the term
// reaches disk, the vote does not (raftelect's layout: currentTerm then
// votedFor, little-endian int64 each; algorithms/raftelect/persist.go).
type forgetVote struct{ plain }

func (f forgetVote) Persist(data []byte) {
	if len(data) == 16 {
		b := append([]byte(nil), data...)
		none := int64(sim.None)
		binary.LittleEndian.PutUint64(b[8:], uint64(none))
		data = b
	}
	f.Env.Persist(data)
}

// noPersist acknowledges every durable write and keeps none: the process
// believes its state is on disk, so nothing (no disk_loss fact) tells
// the checker otherwise.
type noPersist struct{ plain }

func (noPersist) Persist([]byte) {}

// raftVoteResp is raftelect's RequestVoteResp kind.
func raftVoteResp() sim.MsgKind { return kindNamed("raft.RequestVoteResp") }
