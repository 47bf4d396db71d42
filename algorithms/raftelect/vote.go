package raftelect

import "github.com/electsim/electsim/sim"

// upToDate is the election restriction (§5.4.1): a log whose last entry has a
// later term is more up-to-date; with equal last terms the longer log is.
func upToDate(candTerm, candIndex, ownTerm, ownIndex int64) bool {
	return candTerm > ownTerm || (candTerm == ownTerm && candIndex >= ownIndex)
}

// clearVotes resets the per-peer vote records and votes for self.
func (n *Node) clearVotes() {
	for i := range n.votes {
		n.votes[i] = voteUnknown
	}
	n.votes[n.self] = voteGranted
}

// tally counts granted and rejected votes. Records are per peer, so a
// duplicated response is never counted twice.
func (n *Node) tally() (granted, rejected int) {
	for _, v := range n.votes {
		switch v {
		case voteGranted:
			granted++
		case voteRejected:
			rejected++
		}
	}
	return granted, rejected
}

// campaign starts an election (§5.2): increment currentTerm, vote for self,
// reset the election timer, and ask every other server for its vote.
func (n *Node) campaign() {
	n.role = Candidate
	n.term++
	n.votedFor = n.env.ID()
	n.markDirty()
	n.reached(StateTermBumped)
	n.leader = sim.None
	n.believe()
	n.clearVotes()
	n.resetElectionTimer()
	if granted, _ := n.tally(); granted >= n.quorum() {
		n.becomeLeader() // a one-node cluster
		return
	}
	n.broadcast(voteReq{Term: n.term, LastLogIndex: n.lastLogIndex, LastLogTerm: n.lastLogTerm}.message(KindRequestVote, sim.None))
}

// preCampaign starts a pre-vote round (thesis §9.6): ask at currentTerm+1
// whether the others would vote, without changing currentTerm or votedFor.
func (n *Node) preCampaign() {
	n.role = PreCandidate
	n.leader = sim.None
	n.believe()
	n.clearVotes()
	n.resetElectionTimer()
	if granted, _ := n.tally(); granted >= n.quorum() {
		n.campaign()
		return
	}
	n.broadcast(voteReq{Term: n.term + 1, LastLogIndex: n.lastLogIndex, LastLogTerm: n.lastLogTerm}.message(KindPreVote, sim.None))
}

// onRequestVote is the RequestVote receiver (Figure 2); m.Term == currentTerm.
func (n *Node) onRequestVote(m *sim.Message) {
	req := voteReqOf(m)
	grant := (n.votedFor == sim.None || n.votedFor == m.From) &&
		upToDate(req.LastLogTerm, req.LastLogIndex, n.lastLogTerm, n.lastLogIndex)
	if grant {
		n.votedFor = m.From
		n.markDirty()
		n.resetElectionTimer() // Figure 2: granting a vote restarts the wait
	}
	// send persists the vote before the response leaves.
	n.send(voteResp{Term: n.term, VoteGranted: grant}.message(KindRequestVoteResp, m.From))
	if grant {
		n.reached(StateVoteGranted)
	}
}

// onPreVote answers a pre-vote (thesis §9.6): grant if this node would vote
// for the sender at m.Term — its log is up-to-date, and this node has not
// heard from a current leader within ElectionTimeoutMin. Granting changes
// nothing here. m.Term >= currentTerm.
func (n *Node) onPreVote(m *sim.Message) {
	req := voteReqOf(m)
	canVote := req.Term > n.term || n.votedFor == sim.None || n.votedFor == m.From
	grant := canVote && upToDate(req.LastLogTerm, req.LastLogIndex, n.lastLogTerm, n.lastLogIndex) && (!n.inLease() || n.cfg.zooPreVoteNoLease)
	term := n.term
	if grant {
		term = req.Term // the pre-candidate matches grants by the term it asked for
	}
	n.send(voteResp{Term: term, VoteGranted: grant}.message(KindPreVoteResp, m.From))
}

// onRequestVoteResp counts a vote; m.Term == currentTerm.
func (n *Node) onRequestVoteResp(m *sim.Message, from int) {
	if n.role != Candidate {
		return
	}
	if voteRespOf(m).VoteGranted {
		n.votes[from] = voteGranted
	} else {
		n.votes[from] = voteRejected
	}
	// Figure 2: a rejected candidate keeps waiting for its timeout. etcd
	// raft (stepCandidate, VoteLost): it returns to follower at its term,
	// which restarts the timer.
	granted, rejected := n.tally()
	switch {
	case granted >= n.quorum():
		n.becomeLeader()
	case rejected >= n.quorum() && n.cfg.TimerReset == TimerEtcd:
		n.becomeFollower(n.term, sim.None, "vote lost")
	}
}

// onPreVoteResp counts a pre-vote. Grants carry currentTerm+1; rejections
// carry the responder's term (<= currentTerm here: higher terms were adopted
// by observeTerm).
func (n *Node) onPreVoteResp(m *sim.Message, from int) {
	if n.role != PreCandidate {
		return
	}
	resp := voteRespOf(m)
	switch {
	case resp.VoteGranted && resp.Term == n.term+1:
		n.votes[from] = voteGranted
	case !resp.VoteGranted:
		n.votes[from] = voteRejected
	default:
		return // a grant from an older round
	}
	granted, rejected := n.tally()
	switch {
	case granted >= n.quorum():
		n.campaign()
	case rejected >= n.quorum():
		// As etcd raft: a lost pre-vote returns to follower at the same term.
		// Under TimerFigure2 the running election timer starts the next
		// round; under TimerEtcd becomeFollower restarts it first.
		if n.cfg.TimerReset == TimerEtcd {
			n.becomeFollower(n.term, sim.None, "pre-vote lost")
			return
		}
		n.role = Follower
	}
}
