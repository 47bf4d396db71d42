package checker

import (
	"fmt"
	"time"

	"github.com/electsim/electsim/cron"
	"github.com/electsim/electsim/sim"
)

// checkOverlap reports the executions of a job that started while another
// execution of the same job ran (a positive stretch of true time; a paused
// worker's run goes on). They are violations only under a policy that
// forbids them (ExecInput.ForbidOverlap); otherwise the check holds and
// its summary counts them.
func (c *checker) checkOverlap() Check {
	ch := Check{Name: CheckOverlap}
	x := c.exec
	if !c.in.Exec.ForbidOverlap {
		ch.Status, ch.Summary = StatusOK, fmt.Sprintf("%d overlap(s) of two executions of one job, allowed (concurrency allow)", len(x.overlaps))
		return ch
	}
	for _, f := range x.overlaps {
		a, b := f.a, f.b
		job := c.in.jobName(b.job)
		c.add(&ch, Violation{At: b.start, End: f.end, Duration: time.Duration(f.end - b.start),
			Nodes: []string{c.in.name(a.node), c.in.name(b.node)}, NodeIDs: []sim.NodeID{a.node, b.node},
			Slot: cron.SlotName(job, b.slot),
			Details: fmt.Sprintf("%s's %s (run@%v) started at t=%v while %s's %s (run@%v, started t=%v) ran; together until t=%v (concurrency forbid)",
				c.in.name(b.node), cron.SlotName(job, b.slot), time.Duration(b.run), time.Duration(b.start),
				c.in.name(a.node), cron.SlotName(job, a.slot), time.Duration(a.run), time.Duration(a.start), time.Duration(f.end))})
	}
	return c.finish(ch, "no two executions of one job ran at once", "%d overlap(s) of two executions of one job (concurrency forbid)")
}
