package raftelect

import "github.com/electsim/electsim/sim"

// becomeLeader starts acting as leader of currentTerm: report it, send the
// initial heartbeats at once (Figure 2, "Upon election"), and start the
// heartbeat and (with CheckQuorum) quorum-check timers.
func (n *Node) becomeLeader() {
	n.role = Leader
	n.leader = n.env.ID()
	n.env.CancelTimer(n.election)
	n.env.ActAsLeader(n.term, n.term) // the term is the fencing token
	n.believe()
	n.broadcastHeartbeat()
	n.heartbeat = n.env.SetTimer(n.cfg.HeartbeatInterval, tagHeartbeat)
	if n.cfg.CheckQuorum {
		n.clearActive()
		n.quorumCheck = n.env.SetTimer(n.cfg.ElectionTimeoutMin, tagCheckQuorum)
	}
}

// stepDown stops acting as leader and restarts the election timer.
func (n *Node) stepDown(why string) {
	n.env.StopLeading(why)
	n.env.CancelTimer(n.heartbeat)
	n.env.CancelTimer(n.quorumCheck)
	n.role = Follower
	n.leader = sim.None
	n.resetElectionTimer()
}

func (n *Node) broadcastHeartbeat() {
	n.broadcast(heartbeat{Term: n.term}.message(sim.None))
}

func (n *Node) clearActive() {
	for i := range n.active {
		n.active[i] = false
	}
	n.active[n.self] = true
}

// checkQuorum runs every ElectionTimeoutMin while leading: unless a majority
// (self included) answered a heartbeat since the last check, step down
// (thesis §6.2; etcd raft's MsgCheckQuorum).
func (n *Node) checkQuorum() {
	heard := 0
	for _, a := range n.active {
		if a {
			heard++
		}
	}
	if n.cfg.zooLeaderTwice {
		heard++ // internal/bugzoo's planted off-by-one (zoohook.go)
	}
	if heard < n.quorum() {
		n.stepDown("check quorum")
		n.believe()
		return
	}
	n.clearActive()
	n.quorumCheck = n.env.SetTimer(n.cfg.ElectionTimeoutMin, tagCheckQuorum)
}

// onAppendEntries is the AppendEntries receiver for a heartbeat of
// currentTerm: a candidate recognises the leader and returns to follower
// (§5.2); a follower records the leader and restarts its election timer.
func (n *Node) onAppendEntries(m *sim.Message) {
	if n.role == Leader {
		// Another leader of this very term: Election Safety is already broken
		// (only possible with Persist off). Refuse; both keep leading.
		n.send(heartbeatResp{Term: n.term}.message(m.From))
		return
	}
	n.role = Follower
	n.leader = m.From
	n.leaderContact = n.env.Now()
	n.believe()
	n.resetElectionTimer()
	n.send(heartbeatResp{Term: n.term, Success: true}.message(m.From))
}
