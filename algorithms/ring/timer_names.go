package ring

// TimerName implements sim.TimerNamer: traces name the node's timers.
func (n *Node) TimerName(tag int) string {
	switch tag {
	case tagAck:
		return "ring.ack"
	case tagHeartbeat:
		return "ring.heartbeat"
	case tagMonitor:
		return "ring.monitor"
	}
	return ""
}
