package faults

import (
	"fmt"
	"slices"

	"github.com/electsim/electsim/sim"
)

// planPartition resolves p's targets and works out its links: one planner
// per shape, each filling the plan or saying why the fault is skipped.
func (in *Injector) planPartition(p *Partition, c *ctx) (pl partitionPlan, skip string) {
	pl.concrete = Partition{Shape: p.Shape}
	switch p.Shape {
	case ShapeGroups:
		skip = in.planGroups(p, c, &pl)
	case ShapeIsolate:
		skip = in.planIsolate(p, c, &pl)
	case ShapeMajorityMinority:
		skip = in.planMajorityMinority(p, c, &pl)
	case ShapeBridge:
		skip = in.planBridge(p, c, &pl)
	case ShapeOneWay:
		skip = in.planOneWay(p, c, &pl)
	}
	return pl, skip
}

// planGroups cuts between the resolved groups. A node resolved into
// several groups stays in the first, and a group left empty is dropped:
// a partition needs two groups that are not.
func (in *Injector) planGroups(p *Partition, c *ctx, pl *partitionPlan) (skip string) {
	s := in.s
	var groups [][]sim.NodeID
	var whys []string
	seen := make([]bool, s.NumNodes())
	for _, g := range p.Groups {
		var ids []sim.NodeID
		for _, t := range g {
			nodes, why, sk := in.resolve(t, c)
			if sk != "" {
				return sk
			}
			if why != "" {
				whys = append(whys, in.describe(nodes, why))
			}
			for _, id := range nodes {
				if !seen[id] {
					seen[id] = true
					ids = append(ids, id)
				}
			}
		}
		slices.Sort(ids)
		if len(ids) > 0 {
			groups = append(groups, ids)
		}
	}
	if len(groups) < 2 {
		return "fewer than two non-empty groups"
	}
	pl.links = sim.CrossLinks(groups)
	pl.cut = func() { s.Partition(groups...) }
	pl.concrete.Groups = make([][]Target, len(groups))
	for i, g := range groups {
		pl.concrete.Groups[i] = []Target{Nodes(g...)}
	}
	pl.nodes = groups[0]
	pl.body = "partition " + in.groupsText(groups) + whyList(whys)
	return ""
}

// planIsolate cuts every link to and from each target node.
func (in *Injector) planIsolate(p *Partition, c *ctx, pl *partitionPlan) (skip string) {
	nodes, why, sk := in.resolve(*p.Target, c)
	if sk != "" {
		return sk
	}
	for _, x := range nodes {
		pl.links = append(pl.links, sim.IsolateLinks(x, in.s.NumNodes())...)
	}
	pl.cut = func() {
		for _, x := range nodes {
			in.s.Isolate(x)
		}
	}
	t := Nodes(nodes...)
	pl.concrete.Target = &t
	pl.nodes = nodes
	pl.body = "partition isolate " + in.describe(nodes, why)
	return ""
}

// planMajorityMinority splits the candidates into a minority of (k-1)/2
// and the rest, and puts the service nodes on the side p.Services asks
// for. Explicitly, the split is the two groups it drew.
func (in *Injector) planMajorityMinority(p *Partition, c *ctx, pl *partitionPlan) (skip string) {
	minority, note, skip := in.drawMinority(p, c)
	if skip != "" {
		return skip
	}
	var majority []sim.NodeID
	for _, id := range in.env.Candidates {
		if !slices.Contains(minority, id) {
			majority = append(majority, id)
		}
	}
	switch p.Services {
	case ServicesMajority:
		majority = append(majority, in.services...)
	case ServicesMinority:
		minority = append(minority, in.services...)
	}
	groups := [][]sim.NodeID{minority, majority}
	pl.links = sim.CrossLinks(groups)
	pl.cut = func() { in.s.Partition(groups...) }
	pl.concrete = Partition{Shape: ShapeGroups, Groups: [][]Target{{Nodes(minority...)}, {Nodes(majority...)}}}
	pl.nodes = minority // with the services if they are on its side
	pl.body = "partition majority_minority " + in.groupsText(groups) + note
	return ""
}

// drawMinority is the minority of a majority/minority split, in ID order:
// the candidates among p's targets, filled up at random from the other
// candidates. note says why the targets are in it, for the trace.
func (in *Injector) drawMinority(p *Partition, c *ctx) (minority []sim.NodeID, note, skip string) {
	k := len(in.env.Candidates)
	m := (k - 1) / 2
	if m == 0 {
		return nil, "", fmt.Sprintf("%d candidates have no minority", k)
	}
	var forced []sim.NodeID
	if p.Target != nil {
		nodes, why, sk := in.resolve(*p.Target, c)
		if sk != "" {
			return nil, "", sk
		}
		for _, id := range nodes {
			if in.isCand[id] {
				forced = append(forced, id)
			}
		}
		if len(forced) > m {
			return nil, "", fmt.Sprintf("target %s is more than a minority of %d", in.names(forced), m)
		}
		if why != "" {
			note = " (minority holds " + in.names(forced) + ": " + why + ")"
		}
	}
	var rest []sim.NodeID
	for _, id := range in.env.Candidates {
		if !slices.Contains(forced, id) {
			rest = append(rest, id)
		}
	}
	minority = append(slices.Clone(forced), pick(c.res, rest, m-len(forced))...)
	slices.Sort(minority)
	return minority, note, ""
}

// planBridge splits the other candidates, in ID order, into two halves
// that only the bridge node (the target's first, else a random
// candidate) still talks to.
func (in *Injector) planBridge(p *Partition, c *ctx, pl *partitionPlan) (skip string) {
	var bridge sim.NodeID
	why := "random"
	if p.Target != nil {
		nodes, w, sk := in.resolve(*p.Target, c)
		if sk != "" {
			return sk
		}
		bridge, why = nodes[0], w
	} else {
		bridge = pick(c.res, in.env.Candidates, 1)[0]
	}
	var others []sim.NodeID
	for _, id := range in.env.Candidates {
		if id != bridge {
			others = append(others, id)
		}
	}
	if len(others) < 2 {
		return "a bridge needs at least three candidates"
	}
	left, right := others[:len(others)/2], others[len(others)/2:]
	pl.links = sim.BridgeLinks(left, right, bridge)
	pl.cut = func() { in.s.Bridge(left, right, bridge) }
	t := Nodes(bridge)
	pl.concrete.Target = &t
	pl.nodes = []sim.NodeID{bridge}
	pl.body = fmt.Sprintf("partition bridge {%s} | {%s} via %s", in.names(left), in.names(right), in.describe([]sim.NodeID{bridge}, why))
	return ""
}

// planOneWay cuts the links from the target nodes to the receivers (p.To,
// else every other node); the reverse direction keeps working.
func (in *Injector) planOneWay(p *Partition, c *ctx, pl *partitionPlan) (skip string) {
	s := in.s
	from, why, sk := in.resolve(*p.Target, c)
	if sk != "" {
		return sk
	}
	var to []sim.NodeID
	toWhy := ""
	if p.To != nil {
		var sk string
		to, toWhy, sk = in.resolve(*p.To, c)
		if sk != "" {
			return sk
		}
	} else {
		for i := 0; i < s.NumNodes(); i++ {
			if !slices.Contains(from, sim.NodeID(i)) {
				to = append(to, sim.NodeID(i))
			}
		}
	}
	pl.links = sim.OneWayLinks(from, to)
	if len(pl.links) == 0 {
		return "no link from target to receivers"
	}
	pl.cut = func() { s.OneWay(from, to) }
	t, u := Nodes(from...), Nodes(to...)
	pl.concrete.Target, pl.concrete.To = &t, &u
	pl.nodes = from
	pl.body = fmt.Sprintf("partition one_way %s -/-> %s", in.describe(from, why), in.describe(to, toWhy))
	return ""
}
