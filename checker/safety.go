package checker

import (
	"fmt"
	"sort"
	"strings"

	"github.com/electsim/electsim/sim"
)

// checkElectionSafety: no two different nodes acted as leader for the same
// epoch (Raft's Election Safety: at most one leader per term), whenever
// their tenures happened.
func (c *checker) checkElectionSafety() Check {
	ch := Check{Name: CheckElectionSafety}
	ts := c.tl.tenures
	order := make([]int, len(ts))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool { return ts[order[i]].epoch < ts[order[j]].epoch })
	var found [][]int // per offending epoch: tenure indexes of distinct nodes
	for i := 0; i < len(order); {
		j := i
		var group []int
		for j < len(order) && ts[order[j]].epoch == ts[order[i]].epoch {
			k := order[j]
			dup := false
			for _, g := range group {
				dup = dup || ts[g].node == ts[k].node
			}
			if !dup {
				group = append(group, k)
			}
			j++
		}
		if len(group) > 1 {
			found = append(found, group)
		}
		i = j
	}
	sort.SliceStable(found, func(i, j int) bool { return ts[found[i][1]].start < ts[found[j][1]].start })
	for _, g := range found {
		var nodes []string
		var tokens, epochs []int64
		var ids []sim.NodeID
		var parts []string
		for _, k := range g {
			t := &ts[k]
			nodes = append(nodes, c.in.name(t.node))
			tokens = append(tokens, t.token)
			epochs = append(epochs, t.epoch)
			ids = append(ids, t.node)
			parts = append(parts, fmt.Sprintf("%s from t=%v", c.in.name(t.node), t.start))
		}
		second := &ts[g[1]]
		v := Violation{Kind: CheckElectionSafety, At: second.start, End: second.start, Nodes: nodes, Tokens: tokens, NodeIDs: ids, Epochs: epochs,
			Details: fmt.Sprintf("epoch %d had %d leaders: %s", second.epoch, len(g), strings.Join(parts, ", "))}
		if c.wants(&ch) {
			v.Explanation = c.story(c.context(ts[g[0]].start, second.start, ids, nil), fmt.Sprintf("two leaders in epoch %d", second.epoch))
		}
		c.add(&ch, v)
	}
	return c.finish(ch, fmt.Sprintf("every epoch had at most one leader (%d tenures)", len(ts)), "%d epoch(s) with more than one leader")
}

// overlap is a split-brain finding: tenures a (started first) and b acting
// as leader at the same time, over [from, to).
type overlap struct {
	a, b     int
	from, to sim.Time
}

// overlaps finds every pair of tenures of different nodes that overlap for
// a positive duration. Tenures that touch (one ends when the other starts)
// do not overlap.
func (c *checker) overlaps() []overlap {
	ts := c.tl.tenures
	var out []overlap
	for i := range ts {
		for j := i + 1; j < len(ts) && ts[j].start < ts[i].end; j++ {
			if ts[j].node == ts[i].node {
				continue
			}
			to := ts[i].end
			if ts[j].end < to {
				to = ts[j].end
			}
			if to > ts[j].start {
				out = append(out, overlap{a: i, b: j, from: ts[j].start, to: to})
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].from < out[j].from })
	return out
}

// harm judges an overlap at the resource: it did damage if the resource
// applied one slot from both tenures, or applied one tenure's token after
// the other's higher token. It returns the damaging log entries, if any.
func (c *checker) harm(a, b *tenure) (harmful, assessed bool, why string, idx []int) {
	if !c.in.hasResource() {
		return false, false, "harm not assessed: no fenced resource in this run", nil
	}
	log := c.in.Resource
	of := func(i int, t *tenure) bool { return log[i].Node == t.node && log[i].Token == t.token }
	for _, d := range c.writes.dups {
		var ra, rb *runRef
		for k := range d.runs {
			r := &d.runs[k]
			if r.node == a.node && r.token == a.token && ra == nil {
				ra = r
			}
			if r.node == b.node && r.token == b.token && rb == nil {
				rb = r
			}
		}
		if ra != nil && rb != nil {
			return true, true, fmt.Sprintf("the resource applied %s from both leaders (%s token %d and %s token %d)",
				d.name, c.in.name(a.node), a.token, c.in.name(b.node), b.token), []int{ra.first, rb.first}
		}
	}
	if i, p, ok := c.staleBetween(a, b); ok {
		e, q := &log[i], &log[p]
		return true, true, fmt.Sprintf("the resource applied %s's token %d after %s's token %d",
			c.in.name(e.Node), e.Token, c.in.name(q.Node), q.Token), []int{p, i}
	}
	var rejected []string
	n := 0
	for i := range log {
		if !log[i].Accepted && (of(i, a) || of(i, b)) {
			n++
			r := fmt.Sprintf("%s token %d: %s", c.in.name(log[i].Node), log[i].Token, log[i].Reason)
			dup := false
			for _, x := range rejected {
				dup = dup || x == r
			}
			if !dup {
				rejected = append(rejected, r)
			}
		}
	}
	if n > 0 {
		return false, true, fmt.Sprintf("harmless: the resource rejected %d write(s) (%s; policy: %s) and applied no slot from both leaders and no stale token",
			n, strings.Join(rejected, ", "), c.in.Policy), nil
	}
	return false, true, "harmless: no slot was applied from both leaders and no stale token was applied", nil
}

// staleBetween finds a write of one tenure that the resource applied after
// the other tenure's higher token in the same fencing scope: the log index
// of the first such write and of the other tenure's first write in that
// scope before it. The higher token need not be the highest applied before
// (a third leader's even higher token does not hide the damage between these
// two), so the stale writes' priors are not enough.
func (c *checker) staleBetween(a, b *tenure) (idx, prior int, ok bool) {
	lo, hi := a, b
	if a.token > b.token {
		lo, hi = b, a
	}
	if lo.token == hi.token {
		return 0, 0, false
	}
	log := c.in.Resource
	first := map[int]int{} // lookups only: fencing scope → hi's first applied write in it
	for i := range log {
		e := &log[i]
		if !e.Accepted {
			continue
		}
		sc := scopeOf(c.in.Policy, e.JobIndex)
		switch {
		case e.Node == hi.node && e.Token == hi.token:
			if _, seen := first[sc]; !seen {
				first[sc] = i
			}
		case e.Node == lo.node && e.Token == lo.token:
			if p, seen := first[sc]; seen {
				return i, p, true
			}
		}
	}
	return 0, 0, false
}

// checkSplitBrain: no two nodes acted as leader at the same instant of true
// time (belief level: a paused leader still believes it leads). Every
// overlap is reported with its start, end and duration, and judged harmful
// or harmless at the resource.
func (c *checker) checkSplitBrain() Check {
	ch := Check{Name: CheckSplitBrain}
	ts := c.tl.tenures
	harmful := 0
	for _, o := range c.overlaps() {
		a, b := &ts[o.a], &ts[o.b]
		bad, assessed, why, idx := c.harm(a, b)
		if bad {
			harmful++
		}
		still := ""
		if a.open() && b.open() && o.to == c.tl.end {
			still = ", still overlapping at the end"
		}
		c.allOverlaps = append(c.allOverlaps, Overlap{From: o.from, To: o.to, Nodes: [2]sim.NodeID{a.node, b.node}})
		v := Violation{Kind: CheckSplitBrain, At: o.from, End: o.to, Duration: o.to.Sub(o.from),
			Nodes: []string{c.in.name(a.node), c.in.name(b.node)}, Tokens: []int64{a.token, b.token},
			NodeIDs: []sim.NodeID{a.node, b.node}, Epochs: []int64{a.epoch, b.epoch},
			Harmless: assessed && !bad, Why: why,
			Details: fmt.Sprintf("%s (epoch %d, token %d) and %s (epoch %d, token %d) both acted as leader from t=%v to t=%v (%v%s); %s",
				c.in.name(a.node), a.epoch, a.token, c.in.name(b.node), b.epoch, b.token, o.from, o.to, ms(o.to.Sub(o.from)), still, why)}
		if c.wants(&ch) {
			items := c.context(a.start, o.to, []sim.NodeID{a.node, b.node}, c.tenureSlots(a, b))
			if a.start < o.from { // the older tenure's start is the first thing told
				items = append(items, item{at: a.start, seq: a.startSeq, node: a.node, wall: a.startWall,
					text: fmt.Sprintf("%s acts as leader, epoch %d, token %d", c.in.name(a.node), a.epoch, a.token)})
			}
			for _, i := range idx {
				items = append(items, c.writeItem(i))
			}
			if len(idx) == 0 {
				items = append(items, c.tenureWrites(a, b, o)...)
			}
			verdict := "split brain, " + why
			if bad {
				verdict = "split brain with damage: " + why
			}
			v.Explanation = c.story(items, verdict)
		}
		c.add(&ch, v)
	}
	c.harmfulOverlaps = harmful
	verdict := fmt.Sprintf("%%d overlap(s) of two acting leaders, %d harmful", harmful)
	if !c.in.hasResource() {
		verdict = "%d overlap(s) of two acting leaders (harm not assessed: no fenced resource)"
	}
	return c.finish(ch, fmt.Sprintf("no two nodes acted as leader at once (%d tenures)", len(ts)), verdict)
}

// tenureSlots lists the slots the two tenures wrote (for their run starts).
func (c *checker) tenureSlots(a, b *tenure) []slotID {
	var out []slotID
	for i := range c.in.Resource {
		e := &c.in.Resource[i]
		if (e.Node == a.node && e.Token == a.token) || (e.Node == b.node && e.Token == b.token) {
			s := slotID{e.JobIndex, e.Slot}
			dup := false
			for _, x := range out {
				dup = dup || x == s
			}
			if !dup {
				out = append(out, s)
			}
		}
	}
	return out
}

// tenureWrites tells the writes of the two tenures that the resource
// received during the overlap or within a second after it.
func (c *checker) tenureWrites(a, b *tenure, o overlap) []item {
	var out []item
	for i := range c.in.Resource {
		e := &c.in.Resource[i]
		if e.At < o.from || e.At > o.to+sim.Time(1e9) {
			continue
		}
		if (e.Node == a.node && e.Token == a.token) || (e.Node == b.node && e.Token == b.token) {
			out = append(out, c.writeItem(i))
		}
	}
	return out
}
