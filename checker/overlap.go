package checker

import (
	"fmt"
	"sort"
	"time"

	"github.com/electsim/electsim/cron"
	"github.com/electsim/electsim/sim"
)

// checkOverlap finds pairs of executions of one job that ran at once (a
// positive stretch of true time; a paused worker's run goes on). They are
// violations only under a policy that forbids them (ExecInput.ForbidOverlap);
// otherwise the check holds and its summary counts them.
func (c *checker) checkOverlap() Check {
	ch := Check{Name: CheckOverlap}
	x := c.exec
	idx := make([]int, len(x.runs))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		ra, rb := &x.runs[idx[a]], &x.runs[idx[b]]
		if ra.job != rb.job {
			return ra.job < rb.job
		}
		return ra.start < rb.start
	})
	found := 0
	longest := -1 // index of the run of the current job reaching furthest
	for n, i := range idx {
		r := &x.runs[i]
		if n == 0 || x.runs[idx[n-1]].job != r.job {
			longest = i
			continue
		}
		l := &x.runs[longest]
		if r.start < l.end {
			found++
			if c.in.Exec.ForbidOverlap {
				end := min(r.end, l.end)
				job := c.in.jobName(r.job)
				c.add(&ch, Violation{At: r.start, End: end, Duration: time.Duration(end - r.start),
					Nodes: []string{c.in.name(l.node), c.in.name(r.node)}, NodeIDs: []sim.NodeID{l.node, r.node},
					Slot: cron.SlotName(job, r.slot),
					Details: fmt.Sprintf("%s's %s (run@%v) ran from t=%v while %s's %s (run@%v) ran until t=%v (concurrency forbid)",
						c.in.name(r.node), cron.SlotName(job, r.slot), time.Duration(r.run), time.Duration(r.start),
						c.in.name(l.node), cron.SlotName(job, l.slot), time.Duration(l.run), time.Duration(l.end))})
			}
		}
		if r.end > l.end {
			longest = i
		}
	}
	if !c.in.Exec.ForbidOverlap {
		ch.Status, ch.Summary = StatusOK, fmt.Sprintf("%d overlap(s) of two executions of one job, allowed (concurrency allow)", found)
		return ch
	}
	return c.finish(ch, "no two executions of one job ran at once", "%d overlap(s) of two executions of one job (concurrency forbid)")
}
