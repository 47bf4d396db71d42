package etcdraft

// TimerName implements sim.TimerNamer: traces name the node's timers.
func (n *Node) TimerName(tag int) string {
	switch tag {
	case tagTick:
		return "etcdraft.tick"
	}
	return ""
}
