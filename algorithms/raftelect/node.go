// Package raftelect is Raft leader election (Ongaro & Ousterhout 2014, §5.2
// and §5.4.1) as a deterministic electsim node: terms, RequestVote with the
// election restriction, randomized election timeouts, empty AppendEntries
// heartbeats, currentTerm and votedFor persisted before answering, and the
// optional PreVote and CheckQuorum extensions of Ongaro's thesis (§9.6, §6.2).
// Logs are static (no replication): each node's last log entry is
// configuration. See docs/algorithms/raft.md.
package raftelect

import (
	"fmt"
	"time"

	"github.com/electsim/electsim/sim"
)

// Timer tags.
const (
	tagElection = iota + 1
	tagHeartbeat
	tagCheckQuorum
)

// Per-peer vote records of the current (pre-)campaign.
const (
	voteUnknown int8 = iota
	voteGranted
	voteRejected
)

// Node is one Raft election participant. It implements sim.Node.
type Node struct {
	cfg   Config
	peers []sim.NodeID
	env   sim.Env
	self  int // position of this node in peers

	// Persistent state (Figure 2).
	term     int64
	votedFor sim.NodeID

	// Volatile state, rebuilt by Start.
	role          Role
	leader        sim.NodeID    // leader of the current term, if known
	leaderContact time.Duration // monotonic time of the leader's last heartbeat
	lastLogTerm   int64
	lastLogIndex  int64
	votes         []int8 // per peer position, current (pre-)campaign
	active        []bool // per peer position: answered since the last quorum check
	election      sim.TimerID
	heartbeat     sim.TimerID
	quorumCheck   sim.TimerID
	belLeader     sim.NodeID // last reported belief
	belTerm       int64
	dirty         bool
	buf           [stateLen]byte
}

// New returns a node for cfg. peers lists every participant, this node
// included, in ascending ID order; positions in it index Config.LastLogTerm
// and LastLogIndex. New panics if cfg is invalid (see Config.Validate) or
// peers is empty or unsorted.
func New(cfg Config, peers []sim.NodeID) (*Node, error) {
	if err := cfg.validateFor(len(peers)); err != nil {
		return nil, err
	}
	if len(peers) == 0 {
		return nil, fmt.Errorf("raftelect: no peers")
	}
	for i := 1; i < len(peers); i++ {
		if peers[i] <= peers[i-1] {
			return nil, fmt.Errorf("raftelect: peers must be ascending and distinct, got %v", peers)
		}
	}
	return &Node{cfg: cfg, peers: append([]sim.NodeID(nil), peers...)}, nil
}

// MustNew is New for configurations known to be valid (tests, fixed
// examples): it panics on the error New would return.
func MustNew(cfg Config, peers []sim.NodeID) *Node {
	n, err := New(cfg, peers)
	if err != nil {
		panic(err)
	}
	return n
}

// Start implements sim.Node: it rebuilds every volatile field and restores
// currentTerm and votedFor from the durable state.
func (n *Node) Start(env sim.Env, restored []byte) {
	*n = Node{cfg: n.cfg, peers: n.peers, env: env, self: -1, votedFor: sim.None, leader: sim.None, belLeader: sim.None}
	n.self = n.pos(env.ID())
	if n.self < 0 {
		panic(fmt.Sprintf("raftelect: node %d is not in its peers %v", env.ID(), n.peers))
	}
	n.votes = make([]int8, len(n.peers))
	n.active = make([]bool, len(n.peers))
	if n.cfg.LastLogTerm != nil {
		n.lastLogTerm = n.cfg.LastLogTerm[n.self]
	}
	if n.cfg.LastLogIndex != nil {
		n.lastLogIndex = n.cfg.LastLogIndex[n.self]
	}
	// A server's term is never below the term of its last log entry.
	n.term = n.lastLogTerm
	if term, vote, ok := restore(restored); ok && term >= n.term {
		n.term, n.votedFor = term, vote
	}
	n.belTerm = -1
	n.believe() // a restarted process knows no leader
	n.resetElectionTimer()
}

// Term returns currentTerm.
func (n *Node) Term() int64 { return n.term }

// VotedFor returns the candidate voted for in the current term (sim.None if none).
func (n *Node) VotedFor() sim.NodeID { return n.votedFor }

// Role returns the node's current role.
func (n *Node) Role() Role { return n.role }

// Leader returns the leader of the current term as far as this node knows
// (itself when leading, sim.None if unknown).
func (n *Node) Leader() sim.NodeID { return n.leader }

// pos returns id's position in peers, or -1. Peers are usually the IDs
// 0..n-1, where the position is the ID itself.
func (n *Node) pos(id sim.NodeID) int {
	if id >= 0 && int(id) < len(n.peers) && n.peers[id] == id {
		return int(id)
	}
	lo, hi := 0, len(n.peers)
	for lo < hi {
		m := (lo + hi) / 2
		switch {
		case n.peers[m] == id:
			return m
		case n.peers[m] < id:
			lo = m + 1
		default:
			hi = m
		}
	}
	return -1
}

func (n *Node) quorum() int { return len(n.peers)/2 + 1 }

// send transmits m after making any pending state change durable.
func (n *Node) send(m sim.Message) {
	n.flush()
	n.env.Send(m)
}

// broadcast sends m to every other peer.
func (n *Node) broadcast(m sim.Message) {
	n.flush()
	for i, p := range n.peers {
		if i != n.self {
			m.To = p
			n.env.Send(m)
		}
	}
}

// believe reports the node's belief about the leader when it changed.
func (n *Node) believe() {
	if n.leader == n.belLeader && n.term == n.belTerm {
		return
	}
	n.belLeader, n.belTerm = n.leader, n.term
	n.env.BelieveLeader(n.leader, n.term)
}

// resetElectionTimer (re)arms the election timer with a fresh random timeout
// from [ElectionTimeoutMin, ElectionTimeoutMax] (§5.2).
func (n *Node) resetElectionTimer() {
	d := n.env.Rand().DurationRange(n.cfg.ElectionTimeoutMin, n.cfg.ElectionTimeoutMax)
	if !n.env.ResetTimer(n.election, d) {
		n.election = n.env.SetTimer(d, tagElection)
	}
}

// OnTimer implements sim.Node.
func (n *Node) OnTimer(id sim.TimerID, tag int) {
	switch {
	case id == n.election && n.role != Leader:
		// Figure 2: no heartbeat from the current leader and no vote granted
		// within the timeout (or a campaign timed out): campaign again.
		if n.cfg.PreVote {
			n.preCampaign()
		} else {
			n.campaign()
		}
	case id == n.heartbeat && n.role == Leader:
		n.broadcastHeartbeat()
		n.heartbeat = n.env.SetTimer(n.cfg.HeartbeatInterval, tagHeartbeat)
	case id == n.quorumCheck && n.role == Leader:
		n.checkQuorum()
	}
	n.flush()
}

// OnMessage implements sim.Node.
func (n *Node) OnMessage(m sim.Message) {
	from := n.pos(m.From)
	if from < 0 || from == n.self {
		return
	}
	if n.observeTerm(&m) {
		switch m.Kind {
		case KindRequestVote:
			n.onRequestVote(&m)
		case KindRequestVoteResp:
			n.onRequestVoteResp(&m, from)
		case KindPreVote:
			n.onPreVote(&m)
		case KindPreVoteResp:
			n.onPreVoteResp(&m, from)
		case KindAppendEntries:
			n.onAppendEntries(&m)
		case KindAppendEntriesResp:
			if r := heartbeatRespOf(&m); n.role == Leader && r.Term == n.term {
				n.active[from] = true
			}
		}
	}
	n.flush()
}

// observeTerm applies the rules every server follows for a message's term
// (Figure 2 "Rules for Servers", with the thesis's PreVote and lease
// exceptions as in etcd raft's Step). It reports whether the message should
// still be handled.
func (n *Node) observeTerm(m *sim.Message) bool {
	switch {
	case m.Term > n.term:
		if m.Kind == KindRequestVote && n.cfg.CheckQuorum && n.inLease() {
			// Thesis §4.2.3: within the minimum election timeout of hearing
			// from a leader, neither update the term nor grant the vote.
			return false
		}
		if m.Kind == KindPreVote || (m.Kind == KindPreVoteResp && voteRespOf(m).VoteGranted) {
			// A pre-vote never changes anyone's term (thesis §9.6).
			return true
		}
		leader := sim.None
		if m.Kind == KindAppendEntries {
			leader = m.From
		}
		n.becomeFollower(m.Term, leader, "higher term")
		return true
	case m.Term < n.term:
		// Figure 2: reply false to stale requests, carrying our term so the
		// sender steps down; drop stale responses.
		switch m.Kind {
		case KindAppendEntries:
			n.send(heartbeatResp{Term: n.term}.message(m.From))
		case KindRequestVote:
			n.send(voteResp{Term: n.term}.message(KindRequestVoteResp, m.From))
		case KindPreVote:
			n.send(voteResp{Term: n.term}.message(KindPreVoteResp, m.From))
		}
		return false
	}
	return true
}

// becomeFollower moves to term as a follower of leader (sim.None if unknown).
// Under TimerFigure2 it does not restart a running election timer (only a
// heartbeat from the leader or a granted vote does that); under TimerEtcd it
// does, as etcd raft's becomeFollower → reset(term) does.
func (n *Node) becomeFollower(term int64, leader sim.NodeID, why string) {
	wasLeader := n.role == Leader
	if wasLeader {
		n.stepDown(why) // restarts the timer under either rule
	}
	if n.cfg.TimerReset == TimerEtcd && !wasLeader {
		n.resetElectionTimer()
	}
	n.role = Follower
	if term != n.term {
		n.term, n.votedFor = term, sim.None
		n.markDirty()
		n.reached(StateTermBumped)
	}
	n.leader = leader
	if leader != sim.None {
		n.leaderContact = n.env.Now()
	}
	n.believe()
}

// inLease reports whether this node heard from a current leader within the
// minimum election timeout (a leader always considers itself current).
func (n *Node) inLease() bool {
	if n.role == Leader {
		return true
	}
	return n.leader != sim.None && n.env.Now()-n.leaderContact < n.cfg.ElectionTimeoutMin
}
