package checker

import (
	"fmt"
	"strings"
	"time"

	"github.com/electsim/electsim/cron"
	"github.com/electsim/electsim/sim"
)

// maxExecsTold bounds the executions one duplicate_execution finding
// names and tells (a message redelivered on every visibility timeout can
// make thousands of one slot); the first ones are the story.
const maxExecsTold = 8

// checkDuplicateExecution finds the slots two or more executions (worker
// runs, told apart by node and run ID) made writes for, accepted or not.
// A finding is harmless when the resource applied writes from at most one
// of them: its policy stopped the others.
func (c *checker) checkDuplicateExecution() Check {
	ch := Check{Name: CheckDuplicateExecution}
	if !c.in.hasResource() {
		return skipped(ch, "no fenced resource in this run")
	}
	log := c.in.Resource
	type exec struct {
		node    sim.NodeID
		run     int64
		token   int64
		applied bool
		first   int
		writes  []int // the execution's first and last write, for the story
	}
	groups := map[slotID][]exec{} // lookups only; output follows order
	var order []slotID
	for i := range log {
		e := &log[i]
		k := slotID{e.JobIndex, e.Slot}
		g, seen := groups[k]
		if !seen {
			order = append(order, k)
		}
		found := false
		for n := range g {
			if g[n].node == e.Node && g[n].run == e.Run {
				g[n].applied = g[n].applied || e.Accepted
				g[n].writes = append(g[n].writes[:1], i)
				found = true
			}
		}
		if !found {
			g = append(g, exec{node: e.Node, run: e.Run, token: e.Token, applied: e.Accepted, first: i, writes: []int{i}})
		}
		groups[k] = g
	}
	for _, k := range order {
		g := groups[k]
		if len(g) < 2 {
			continue
		}
		applied := 0
		var nodes, parts []string
		var ids []sim.NodeID
		var tokens []int64
		for _, x := range g {
			if x.applied {
				applied++
			}
			nodes = append(nodes, c.in.name(x.node))
			ids = append(ids, x.node)
			tokens = append(tokens, x.token)
			if len(parts) < maxExecsTold {
				parts = append(parts, fmt.Sprintf("%s run@%v token %d (applied: %v)", c.in.name(x.node), time.Duration(x.run), x.token, x.applied))
			}
		}
		if len(g) > maxExecsTold {
			parts = append(parts, fmt.Sprintf("… %d more", len(g)-maxExecsTold))
		}
		second := &log[g[1].first]
		name := cron.SlotName(second.Job, k.slot)
		details := fmt.Sprintf("%s was written by %d executions: %s (policy %s)", name, len(g), strings.Join(parts, ", "), c.in.Policy)
		if w := c.workersText(ids); w != "" {
			details += "; executions per worker: " + w
		}
		v := Violation{At: second.At, End: second.At, Nodes: nodes, NodeIDs: ids, Tokens: tokens, Slot: name, Harmless: applied <= 1, Details: details}
		if v.Harmless {
			v.Why = "the resource applied the writes of one execution only"
		}
		if c.hasStory() && c.listed(&ch) {
			var idx []int
			for _, x := range g[:min(len(g), maxExecsTold)] {
				idx = append(idx, x.writes...)
			}
			verdict := "duplicate execution"
			if v.Harmless {
				verdict += " (harmless: " + v.Why + ")"
			}
			v.Explanation = c.story(c.writeStory(idx, k.job, k.slot), verdict)
			if w := c.workersText(ids); w != "" {
				v.Explanation += " · executions per worker: " + w
			}
		}
		c.add(&ch, v)
	}
	return c.finish(ch, "no slot written by two executions", "%d slot(s) written by more than one execution")
}
