package checker

import (
	"fmt"
	"time"

	"github.com/electsim/electsim/cron"
	"github.com/electsim/electsim/sim"
)

// checkLateStart reports the slots whose first execution started more
// than ExecInput.StartDeadline (true time) after the slot.
func (c *checker) checkLateStart() Check {
	ch := Check{Name: CheckLateStart}
	deadline := c.in.Exec.StartDeadline
	for _, f := range c.exec.lates {
		r := f.r
		name := cron.SlotName(c.in.jobName(r.job), r.slot)
		c.add(&ch, Violation{At: r.start, End: r.start, Nodes: []string{c.in.name(r.node)}, NodeIDs: []sim.NodeID{r.node}, Slot: name,
			Details: fmt.Sprintf("%s first started on %s at t=%v, %v after it was due (deadline %v)", name, c.in.name(r.node), time.Duration(r.start), f.late.Round(time.Millisecond), deadline)})
	}
	return c.finish(ch, fmt.Sprintf("every slot's first execution started within %v (%d)", deadline, c.exec.started1), "%d slot(s) first started past their deadline")
}
