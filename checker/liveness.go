package checker

import (
	"fmt"
	"sort"
	"time"

	"github.com/electsim/electsim/cron"
	"github.com/electsim/electsim/sim"
)

// firstRecognisedFrom returns the first instant at or after t at which some
// node was a recognised leader, and the span that holds it.
func (c *checker) firstRecognisedFrom(t sim.Time) (sim.Time, recogSpan, bool) {
	best, found := sim.Never, false
	var bs recogSpan
	for _, s := range c.rp.spans {
		if s.to == s.from && s.to != c.tl.end {
			continue // recognised and lost at the same instant
		}
		at := s.from
		if at < t {
			if s.to <= t {
				continue
			}
			at = t
		}
		if at < best {
			best, bs, found = at, s, true
		}
	}
	return best, bs, found
}

// jobs returns the job table with parsed schedules.
func (c *checker) jobs() cron.Table {
	out := make(cron.Table, len(c.in.Jobs))
	copy(out, c.in.Jobs)
	for i := range out {
		if out[i].Sched() == nil {
			_ = out[i].Validate()
		}
	}
	return out
}

// checkLiveness: in the settle phase a leader is recognised within the
// bound, and cron resumes (the resource applies a write after the settle
// phase began, if a slot fell due early enough in it to have run).
func (c *checker) checkLiveness() Check {
	ch := Check{Name: CheckLiveness}
	if c.in.SettleBound <= 0 {
		return skipped(ch, "no settle phase (no settle bound given)")
	}
	start, deadline := c.in.SettleStart, c.in.SettleStart.Add(c.in.SettleBound)
	at, s, ok := c.firstRecognisedFrom(start)
	summary := ""
	switch {
	case ok && at <= deadline:
		summary = fmt.Sprintf("%s recognised as leader at t=%v, %v into the settle phase (bound %v)",
			c.in.name(s.node), at, ms(at.Sub(start)), c.in.SettleBound)
	default:
		end := deadline
		d := fmt.Sprintf("no leader was recognised between t=%v and t=%v (settle bound %v)", start, deadline, c.in.SettleBound)
		if c.tl.end < deadline {
			end = c.tl.end
			d = fmt.Sprintf("no leader was recognised from t=%v until the trace ended at t=%v (settle bound %v)", start, c.tl.end, c.in.SettleBound)
		}
		if ok {
			d += fmt.Sprintf("; the first came at t=%v (%s)", at, c.in.name(s.node))
		}
		v := Violation{Kind: CheckLiveness, At: end, End: end, Details: d}
		from := start - sim.Time(10*time.Second)
		if c.in.FaultEnd > 0 && c.in.FaultEnd < from {
			from = c.in.FaultEnd
		}
		if c.wants(&ch) {
			v.Explanation = c.story(c.context(from, end, c.in.Candidates, nil), "no leader within the settle bound")
		}
		c.add(&ch, v)
	}
	if c.in.hasResource() && len(c.in.Jobs) > 0 {
		js := c.jobs()
		var slack time.Duration
		for i := range js {
			if js[i].RunMax > slack {
				slack = js[i].RunMax
			}
		}
		slack += c.in.SettleBound
		from := c.in.WallStart.Add(start.Duration())
		to := c.in.WallStart.Add(c.tl.end.Duration() - slack)
		due := 0
		for i := range js {
			if to.After(from) {
				due += len(cron.SlotsBetween(js[i].Sched(), from.Add(-1), to))
			}
		}
		first := sim.Never
		for i := range c.in.Resource {
			e := &c.in.Resource[i]
			if e.Accepted && e.At >= start {
				first = e.At
				break
			}
		}
		switch {
		case due == 0:
			summary += "; no cron slot fell due early enough in the settle phase to judge cron"
		case first == sim.Never:
			v := Violation{Kind: CheckLiveness, At: c.tl.end, End: c.tl.end,
				Details: fmt.Sprintf("cron did not resume: %d slot(s) fell due in the settle phase but the resource applied no write after t=%v", due, start)}
			if c.wants(&ch) {
				v.Explanation = c.story(c.context(start, c.tl.end, c.in.Candidates, nil), "cron did not resume")
			}
			c.add(&ch, v)
		default:
			summary += fmt.Sprintf("; cron resumed (first write applied at t=%v)", first)
		}
	}
	return c.finish(ch, summary, "%d liveness violation(s)")
}

// checkMissedSlots: every slot due in (CronFrom, CronTo] was applied by at
// least one run.
func (c *checker) checkMissedSlots() (Check, *cron.Results) {
	ch := Check{Name: CheckMissedSlots}
	if !c.in.hasResource() {
		return skipped(ch, "no fenced resource in this run"), nil
	}
	if c.in.CronTo.IsZero() {
		return skipped(ch, "no cron window given"), nil
	}
	res := cron.Compute(c.jobs(), c.in.Resource, c.in.CronFrom, c.in.CronTo)
	for _, m := range res.MissedSlots {
		job := 0
		for j := range c.in.Jobs {
			if c.in.Jobs[j].Name == m.Job {
				job = j
			}
		}
		due := c.in.trueTimeOf(m.Slot)
		v := Violation{Kind: CheckMissedSlots, At: due, End: due, Slot: cron.SlotName(m.Job, m.Slot),
			Details: fmt.Sprintf("%s (due at t≈%v by an exact clock) was never applied; %s", cron.SlotName(m.Job, m.Slot), due, c.leaderAt(due))}
		if g, ok := c.in.Contract.For(CheckMissedSlots); ok {
			// Under the contract the finding lasts until the slot's
			// deadline and involves the nodes due to run it.
			v.End, v.NodeIDs = c.slotDeadline(due, g)
			v.Duration = (v.End - due).Duration()
			for _, n := range v.NodeIDs {
				v.Nodes = append(v.Nodes, c.in.name(n))
			}
			v.Details += fmt.Sprintf("; deadline t=%v", v.End)
		}
		if c.wants(&ch) {
			v.Explanation = c.story(c.context(due-slotStoryWindow, slotStoryEnd(due, v.End), c.everyNode(), []slotID{{job, m.Slot}}), "slot missed")
		}
		c.add(&ch, v)
	}
	return c.finish(ch, fmt.Sprintf("all %d slots due in the window were applied (%d more than once)", res.Due, res.MoreThanOnce),
		fmt.Sprintf("%%d of %d due slot(s) missed", res.Due)), &res
}

// leaderAt says who was a recognised leader at t.
func (c *checker) leaderAt(t sim.Time) string {
	for _, s := range c.rp.spans {
		if s.from <= t && t < s.to {
			return fmt.Sprintf("%s was the recognised leader then", c.in.name(s.node))
		}
	}
	return "no leader was recognised then"
}

// flapping counts tenure starts after the first: overall per minute, and the
// most in any 60 s window.
func (c *checker) flapping(r *Report) {
	ts := c.tl.tenures
	if len(ts) < 2 {
		return
	}
	r.LeaderChanges = len(ts) - 1
	if c.tl.end > 0 {
		r.FlapsPerMinute = float64(r.LeaderChanges) / (float64(c.tl.end) / float64(time.Minute))
	}
	starts := make([]sim.Time, 0, len(ts)-1)
	for _, t := range ts[1:] {
		starts = append(starts, t.start)
	}
	sort.Slice(starts, func(i, j int) bool { return starts[i] < starts[j] })
	lo := 0
	for hi := range starts {
		for starts[hi]-starts[lo] >= sim.Time(time.Minute) {
			lo++
		}
		if n := hi - lo + 1; n > r.MaxChangesPerMinute {
			r.MaxChangesPerMinute = n
		}
	}
}

// finishFailovers adds message counts and the first fenced run to each
// failover.
func (c *checker) finishFailovers() []Failover {
	fos := c.rp.failovers
	if len(fos) == 0 {
		return nil
	}
	for k := range fos {
		f := &fos[k]
		f.Messages, f.MessagesByKind = 0, nil
		for _, kc := range c.rp.counts[k] {
			f.Messages += kc.n
			f.MessagesByKind = append(f.MessagesByKind, KindCount{Kind: kc.kind.String(), Count: kc.n})
		}
		sort.Slice(f.MessagesByKind, func(i, j int) bool { return f.MessagesByKind[i].Kind < f.MessagesByKind[j].Kind })
		if t := c.rp.newTenure[k]; t >= 0 && f.Completed {
			tn := &c.tl.tenures[t]
			from := tn.start
			if f.FaultAt > from {
				from = f.FaultAt
			}
			for i := range c.in.Resource {
				e := &c.in.Resource[i]
				if e.Accepted && e.Node == tn.node && e.Token == tn.token && e.At >= from {
					f.FencedRun, f.FirstFencedRunAt, f.ToFencedRun = true, e.At, e.At.Sub(f.FaultAt)
					break
				}
			}
		}
	}
	return fos
}
