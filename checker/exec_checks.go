package checker

import "fmt"

// execChecks runs the queue-mode checks (Input.Exec), in QueueCheckNames order.
func (c *checker) execChecks() []Check {
	c.exec.finish(c.tl.end)
	c.workers, c.workersOmitted = c.exec.workers.report(c.in.name)
	c.redeliveries, c.redeliveriesOmitted = c.exec.workers.redel, c.exec.workers.nRedel-len(c.exec.workers.redel)
	return []Check{c.checkLostSlot(), c.checkDuplicateExecution(), c.checkOverlap(), c.checkLateStart()}
}

// jobName is job index j's name (from Input.Jobs), or "job<j>".
func (in *Input) jobName(j int) string {
	if j >= 0 && j < len(in.Jobs) {
		return in.Jobs[j].Name
	}
	return fmt.Sprintf("job%d", j)
}
