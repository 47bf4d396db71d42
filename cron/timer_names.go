package cron

import "github.com/electsim/electsim/sim"

// timerName names a cron-layer timer tag (at or above base).
func timerName(base, tag int) string {
	switch rel := tag - base; {
	case rel < tagRun:
		return "cron.slot"
	case rel < tagRetry:
		return "cron.run_step"
	default:
		return "cron.write_retry"
	}
}

// TimerName implements sim.TimerNamer: the cron layer's timers by their
// role, the wrapped algorithm's by its own names.
func (n *Node) TimerName(tag int) string {
	if tag >= n.cfg.TagBase {
		return timerName(n.cfg.TagBase, tag)
	}
	if tn, ok := n.inner.(sim.TimerNamer); ok {
		return tn.TimerName(tag)
	}
	return ""
}

// TimerName implements sim.TimerNamer.
func (n *ShedLockNode) TimerName(tag int) string {
	if tag >= n.cfg.TagBase {
		return timerName(n.cfg.TagBase, tag)
	}
	return ""
}
