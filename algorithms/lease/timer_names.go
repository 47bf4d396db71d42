package lease

// TimerName implements sim.TimerNamer: traces name the node's timers.
func (n *Node) TimerName(tag int) string {
	switch tag {
	case tagTick:
		return "lease.tick"
	case tagDeadline:
		return "lease.deadline"
	case tagRequest:
		return "lease.request"
	case tagValidity:
		return "lease.validity"
	case tagShutdown:
		return "lease.shutdown"
	case tagRejoin:
		return "lease.rejoin"
	case tagRound:
		return "lease.redlock_round"
	case tagTaskDone:
		return "lease.task"
	case tagTokenRead:
		return "lease.token_read"
	}
	if tag >= tagRedisCall && tag < tagRedisCall+MaxMasters {
		return "lease.redis_call"
	}
	return ""
}

// TimerName implements sim.TimerNamer: the store's one timer expires keys.
func (st *Store) TimerName(int) string { return "store.expiry" }
