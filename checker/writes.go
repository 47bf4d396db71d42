package checker

import (
	"fmt"
	"strings"
	"time"

	"github.com/electsim/electsim/cron"
	"github.com/electsim/electsim/sim"
)

// runRef is one run whose writes the resource applied: the node, its run ID
// and token, and the log index of its first applied write.
type runRef struct {
	node  sim.NodeID
	run   int64
	token int64
	first int
}

// dupSlot is a slot the resource applied from two or more runs.
type dupSlot struct {
	job  int
	name string // cron.SlotName
	runs []runRef
}

// staleWrite is an applied write whose token was lower than one applied
// before in the same fencing scope.
type staleWrite struct {
	idx   int // the stale write's log index
	prior int // the applied write holding the higher token
}

// writes is the analysis of the resource log.
type writes struct {
	dups   []dupSlot
	stales []staleWrite
}

type slotID struct {
	job  int
	slot int64
}

// scopeOf is the fencing scope of a job under p: the job, or -1 for global.
func scopeOf(p cron.Policy, job int) int {
	if p.FencingScope == "global" {
		return -1
	}
	return job
}

// analyseWrites finds the slots applied from more than one run and the
// applied writes with stale tokens. Groups come out in the order of their
// first applied write.
func analyseWrites(log []cron.LogEntry, p cron.Policy) writes {
	var w writes
	type group struct {
		runs []runRef
	}
	var groups []group
	var keys []slotID
	index := map[slotID]int{} // lookups only; output follows the groups slice
	highest := map[int]int{}  // fencing scope → log index of its highest applied token
	for i := range log {
		e := &log[i]
		if !e.Accepted {
			continue
		}
		k := slotID{e.JobIndex, e.Slot}
		g, ok := index[k]
		if !ok {
			g = len(groups)
			index[k] = g
			groups = append(groups, group{})
			keys = append(keys, k)
		}
		found := false
		for _, r := range groups[g].runs {
			if r.node == e.Node && r.run == e.Run {
				found = true
				break
			}
		}
		if !found {
			groups[g].runs = append(groups[g].runs, runRef{node: e.Node, run: e.Run, token: e.Token, first: i})
		}
		sc := scopeOf(p, e.JobIndex)
		if h, ok := highest[sc]; ok {
			if e.Token < log[h].Token {
				w.stales = append(w.stales, staleWrite{idx: i, prior: h})
			} else if e.Token > log[h].Token {
				highest[sc] = i
			}
		} else {
			highest[sc] = i
		}
	}
	for g := range groups {
		if len(groups[g].runs) > 1 {
			k := keys[g]
			w.dups = append(w.dups, dupSlot{job: k.job, name: cron.SlotName(log[groups[g].runs[0].first].Job, k.slot), runs: groups[g].runs})
		}
	}
	// Report duplicates in the order the second run's first write landed.
	for i := 1; i < len(w.dups); i++ {
		for j := i; j > 0 && w.dups[j].runs[1].first < w.dups[j-1].runs[1].first; j-- {
			w.dups[j], w.dups[j-1] = w.dups[j-1], w.dups[j]
		}
	}
	return w
}

// checkDoubleExecution turns the duplicate slots into the double_execution check.
func (c *checker) checkDoubleExecution() Check {
	ch := Check{Name: CheckDoubleExecution}
	if !c.in.hasResource() {
		return skipped(ch, "no fenced resource in this run")
	}
	log := c.in.Resource
	for _, d := range c.writes.dups {
		second := &log[d.runs[1].first]
		c.doubled = append(c.doubled, SlotRef{Job: d.job, Slot: log[d.runs[0].first].Slot})
		var nodes []string
		var ids []sim.NodeID
		var tokens []int64
		var parts []string
		for _, r := range d.runs {
			nodes = append(nodes, c.in.name(r.node))
			ids = append(ids, r.node)
			tokens = append(tokens, r.token)
			parts = append(parts, fmt.Sprintf("%s run@%v token %d", c.in.name(r.node), time.Duration(r.run), r.token))
		}
		v := Violation{Kind: CheckDoubleExecution, At: second.At, End: second.At, Nodes: nodes, NodeIDs: ids, Tokens: tokens, Slot: d.name,
			Details: fmt.Sprintf("%s was applied from %d runs: %s (policy %s)", d.name, len(d.runs), strings.Join(parts, ", "), c.in.Policy)}
		if c.wants(&ch) {
			var idx []int
			for _, r := range d.runs {
				idx = append(idx, c.runEntries(d.job, log[r.first].Slot, r)...)
			}
			v.Explanation = c.story(c.writeStory(idx, d.job, log[d.runs[0].first].Slot), "double execution")
		}
		c.add(&ch, v)
	}
	return c.finish(ch, fmt.Sprintf("no slot applied from two runs (%d writes applied)", c.accepted()),
		"%d slot(s) applied from more than one run")
}

// checkStaleWrite turns the stale writes into the stale_write check.
func (c *checker) checkStaleWrite() Check {
	ch := Check{Name: CheckStaleWrite}
	if !c.in.hasResource() {
		return skipped(ch, "no fenced resource in this run")
	}
	log := c.in.Resource
	scope := "job"
	if c.in.Policy.FencingScope == "global" {
		scope = "global"
	}
	for _, s := range c.writes.stales {
		e, p := &log[s.idx], &log[s.prior]
		v := Violation{Kind: CheckStaleWrite, At: e.At, End: e.At,
			Nodes: []string{c.in.name(e.Node), c.in.name(p.Node)}, NodeIDs: []sim.NodeID{e.Node, p.Node},
			Tokens: []int64{e.Token, p.Token}, Slot: cron.SlotName(e.Job, e.Slot),
			Details: fmt.Sprintf("the resource applied %s's write of %s with token %d at t=%v after applying token %d from %s at t=%v (fencing scope %s, policy %s)",
				c.in.name(e.Node), cron.SlotName(e.Job, e.Slot), e.Token, e.At, p.Token, c.in.name(p.Node), p.At, scope, c.in.Policy)}
		if c.wants(&ch) {
			job, slot := e.JobIndex, e.Slot
			if p.Slot != e.Slot || p.JobIndex != e.JobIndex {
				job, slot = -1, 0
			}
			v.Explanation = c.story(c.writeStory([]int{s.prior, s.idx}, job, slot), "stale write")
		}
		c.add(&ch, v)
	}
	return c.finish(ch, fmt.Sprintf("no applied token was lower than one applied before (fencing scope %s)", scope),
		"%d write(s) applied with a stale token")
}

// runEntries returns the log indexes of the applied writes of run r to slot.
func (c *checker) runEntries(job int, slot int64, r runRef) []int {
	var out []int
	for i := range c.in.Resource {
		e := &c.in.Resource[i]
		if e.Accepted && e.JobIndex == job && e.Slot == slot && e.Node == r.node && e.Run == r.run {
			out = append(out, i)
		}
	}
	return out
}

func (c *checker) accepted() int {
	n := 0
	for i := range c.in.Resource {
		if c.in.Resource[i].Accepted {
			n++
		}
	}
	return n
}
