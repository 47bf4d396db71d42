package checker

import (
	"fmt"
	"time"

	"github.com/electsim/electsim/cron"
)

// checkLostSlot reports the slots of the cron window that came due (on
// the true-time axis) while some scheduler acted as leader and that no
// execution completed by the end of the run (execState judges them as
// the records stream by).
func (c *checker) checkLostSlot() Check {
	ch := Check{Name: CheckLostSlot}
	if c.in.CronTo.IsZero() || len(c.in.Jobs) == 0 {
		return skipped(ch, "no cron window to judge")
	}
	for _, p := range c.exec.lost() {
		why := "no execution of it started"
		if p.started {
			why = "executions started but none completed"
		}
		name := cron.SlotName(c.in.jobName(p.k.job), p.k.slot)
		c.add(&ch, Violation{At: p.at, End: p.at, Slot: name,
			Details: fmt.Sprintf("%s came due at t=%v while a scheduler led; %s by the end of the run", name, time.Duration(p.at), why)})
	}
	return c.finish(ch, fmt.Sprintf("every slot due while a scheduler led completed (%d due while one led, in the run)", c.exec.dueLed), "%d slot(s) due while a scheduler led never completed")
}
