package checker

import (
	"fmt"
	"sort"
	"time"

	"github.com/electsim/electsim/cron"
	"github.com/electsim/electsim/sim"
)

// checkLostSlot reports the slots of the cron window that no execution
// completed by the end of the run and that either came due (on the
// true-time axis) while some scheduler acted as leader, or were started
// by some execution whatever the leadership when they came due — a slot
// due in a failover gap, started late by the new leader and killed
// half-done (Kubernetes' Replace, a crash at most once) and never run
// again (execState judges them as the records stream by).
func (c *checker) checkLostSlot() Check {
	ch := Check{Name: CheckLostSlot}
	if c.in.CronTo.IsZero() || len(c.in.Jobs) == 0 {
		return skipped(ch, "no cron window to judge")
	}
	type finding struct {
		k    slotID
		at   sim.Time
		why  string
		when string
	}
	var found []finding
	reported := map[slotID]bool{} // lookups only
	for _, p := range c.exec.lost() {
		why := "no execution of it started"
		if p.started {
			why = "executions started but none completed"
		}
		reported[p.k] = true
		found = append(found, finding{p.k, p.at, why, "while a scheduler led"})
	}
	unled := 0
	for _, u := range c.exec.unfinished.startedNeverCompleted(c.in.CronFrom.UnixNano(), c.in.CronTo.UnixNano()) {
		if reported[u.k] {
			continue
		}
		unled++
		found = append(found, finding{u.k, c.in.trueTimeOf(u.k.slot),
			fmt.Sprintf("an execution started at t=%v, none completed and none ran it again", time.Duration(u.start)), "while no scheduler led"})
	}
	sort.SliceStable(found, func(i, j int) bool {
		if found[i].k.slot != found[j].k.slot {
			return found[i].k.slot < found[j].k.slot
		}
		return found[i].k.job < found[j].k.job
	})
	for _, f := range found {
		name := cron.SlotName(c.in.jobName(f.k.job), f.k.slot)
		v := Violation{At: f.at, End: f.at, Slot: name,
			Details: fmt.Sprintf("%s came due at t=%v %s; %s by the end of the run", name, time.Duration(f.at), f.when, f.why)}
		if c.wants(&ch) {
			v.Explanation = c.story(c.context(f.at-slotStoryWindow, f.at+slotStoryWindow, c.everyNode(), []slotID{f.k}), "slot lost")
		}
		c.add(&ch, v)
	}
	return c.finish(ch, fmt.Sprintf("every slot due while a scheduler led, and every slot started, completed (%d due while one led, in the run)", c.exec.dueLed),
		"%d slot(s) due while a scheduler led, or started, never completed")
}
