package bully

// TimerName implements sim.TimerNamer: traces name the node's timers.
func (n *Node) TimerName(tag int) string {
	switch tag {
	case tagAnswer:
		return "bully.answer"
	case tagCoordinator:
		return "bully.coordinator"
	case tagHeartbeat:
		return "bully.heartbeat"
	case tagMonitor:
		return "bully.monitor"
	}
	return ""
}
