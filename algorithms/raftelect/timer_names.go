package raftelect

// TimerName implements sim.TimerNamer: traces name the node's timers.
func (n *Node) TimerName(tag int) string {
	switch tag {
	case tagElection:
		return "raft.election"
	case tagHeartbeat:
		return "raft.heartbeat"
	case tagCheckQuorum:
		return "raft.check_quorum"
	}
	return ""
}
