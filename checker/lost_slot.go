package checker

import (
	"fmt"
	"time"

	"github.com/electsim/electsim/cron"
)

// checkLostSlot finds the slots of the cron window that came due (on the
// true-time axis) while some scheduler acted as leader and that no
// execution completed by the end of the run.
func (c *checker) checkLostSlot() Check {
	ch := Check{Name: CheckLostSlot}
	if c.in.CronTo.IsZero() || len(c.in.Jobs) == 0 {
		return skipped(ch, "no cron window to judge")
	}
	x := c.exec
	due := 0
	for j := range c.in.Jobs {
		job := &c.in.Jobs[j]
		for _, t := range cron.SlotsBetween(job.Sched(), c.in.CronFrom, c.in.CronTo) {
			s := t.UnixNano()
			at := c.in.trueTimeOf(s)
			if !x.ledAt(at) {
				continue
			}
			due++
			if x.done[slotID{j, s}] {
				continue
			}
			why := "no execution of it started"
			if _, started := x.first[slotID{j, s}]; started {
				why = "executions started but none completed"
			}
			name := cron.SlotName(job.Name, s)
			c.add(&ch, Violation{At: at, End: at, Slot: name,
				Details: fmt.Sprintf("%s came due at t=%v while a scheduler led; %s by the end of the run", name, time.Duration(at), why)})
		}
	}
	return c.finish(ch, fmt.Sprintf("every slot due while a scheduler led completed (%d)", due), "%d slot(s) due while a scheduler led never completed")
}
