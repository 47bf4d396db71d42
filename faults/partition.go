package faults

import (
	"fmt"
	"slices"

	"github.com/electsim/electsim/sim"
)

// PartitionShape says how a Partition splits the network.
type PartitionShape string

// The partition shapes: every shape the engine has (docs/engine.md,
// "Reachability faults").
const (
	// ShapeGroups cuts both directions between every pair of Groups; nodes in
	// no group keep their links.
	ShapeGroups PartitionShape = "groups"
	// ShapeIsolate cuts every link to and from each Target node.
	ShapeIsolate PartitionShape = "isolate"
	// ShapeMajorityMinority splits the candidates into a minority of
	// (len-1)/2 — the Target nodes, filled up at random — and the majority.
	ShapeMajorityMinority PartitionShape = "majority_minority"
	// ShapeBridge splits the other candidates, in ID order, into two halves
	// that cannot talk to each other while the bridge node (Target, default
	// a random candidate) talks to both (Jepsen's bridge).
	ShapeBridge PartitionShape = "bridge"
	// ShapeOneWay cuts the links from the Target nodes to the To nodes
	// (default every other node); the reverse direction keeps working.
	ShapeOneWay PartitionShape = "one_way"
)

var shapes = []PartitionShape{ShapeGroups, ShapeIsolate, ShapeMajorityMinority, ShapeBridge, ShapeOneWay}

// ServicePlacement says which side of a majority/minority split the service
// nodes (every node that is not a candidate: lease store, fenced resource)
// are on.
type ServicePlacement string

// The service placements.
const (
	// ServicesBoth (the default, also "") leaves the services reachable from
	// both sides.
	ServicesBoth ServicePlacement = "both"
	// ServicesMajority puts the services with the majority.
	ServicesMajority ServicePlacement = "majority"
	// ServicesMinority puts the services with the minority.
	ServicesMinority ServicePlacement = "minority"
)

// Partition cuts links in one of the shapes. Reverting restores exactly the
// links this fault cut and no other fault still holds cut; links that were
// already down for another reason when it fired stay down.
type Partition struct {
	// Shape is the partition's shape.
	Shape PartitionShape
	// Groups (shape groups) are two or more groups of targets. A node named
	// in several groups stays in the first.
	Groups [][]Target
	// Target: for isolate (required) the nodes to isolate; for
	// majority_minority (optional) nodes forced into the minority; for
	// bridge (optional) the bridge node (the first one resolved); for
	// one_way (required) the senders whose messages are lost.
	Target *Target
	// To (one_way, optional) are the receivers; default every node not in
	// Target.
	To *Target
	// Services (majority_minority) places the service nodes. Default both.
	Services ServicePlacement
}

// Validate checks the partition.
func (p *Partition) Validate() error {
	if !contains(shapes, p.Shape) {
		if p.Shape == "" {
			return fmt.Errorf("shape: missing (one of %v)", shapes)
		}
		return fmt.Errorf("shape: unknown %q (one of %v)", string(p.Shape), shapes)
	}
	if len(p.Groups) > 0 && p.Shape != ShapeGroups {
		return fmt.Errorf("groups: only for shape %q", string(ShapeGroups))
	}
	if p.To != nil && p.Shape != ShapeOneWay {
		return fmt.Errorf("to: only for shape %q", string(ShapeOneWay))
	}
	if p.Services != "" && p.Shape != ShapeMajorityMinority {
		return fmt.Errorf("services: only for shape %q", string(ShapeMajorityMinority))
	}
	switch p.Services {
	case "", ServicesBoth, ServicesMajority, ServicesMinority:
	default:
		return fmt.Errorf("services: unknown %q (both, majority or minority)", string(p.Services))
	}
	switch p.Shape {
	case ShapeGroups:
		if p.Target != nil {
			return fmt.Errorf("target: not for shape %q (use groups)", string(p.Shape))
		}
		if len(p.Groups) < 2 {
			return fmt.Errorf("groups: need at least 2, got %d", len(p.Groups))
		}
		for i, g := range p.Groups {
			if len(g) == 0 {
				return fmt.Errorf("groups[%d]: empty", i)
			}
			for j, t := range g {
				if err := t.Validate(); err != nil {
					return fmt.Errorf("groups[%d][%d].%w", i, j, err)
				}
			}
		}
	case ShapeIsolate, ShapeOneWay:
		if p.Target == nil {
			return fmt.Errorf("target: required for shape %q", string(p.Shape))
		}
	}
	if p.Target != nil {
		if err := p.Target.Validate(); err != nil {
			return prefix("target.", err)
		}
	}
	if p.To != nil {
		if err := p.To.Validate(); err != nil {
			return prefix("to.", err)
		}
	}
	return nil
}

// partitionPlan is what a partition fault will do once resolved.
type partitionPlan struct {
	links    []sim.Link // directed links the shape cuts (the engine's definition of the shape)
	cut      func()     // the engine call that cuts them (one trace record)
	concrete Partition  // the same partition with concrete node targets
	body     string
	nodes    []sim.NodeID // the nodes the shape was resolved around
}

// planPartition resolves p's targets and works out its links.
func (in *Injector) planPartition(p *Partition, c *ctx) (pl partitionPlan, skip string) {
	s := in.s
	pl.concrete = Partition{Shape: p.Shape}
	switch p.Shape {
	case ShapeGroups:
		var groups [][]sim.NodeID
		var whys []string
		seen := make([]bool, s.NumNodes())
		for _, g := range p.Groups {
			var ids []sim.NodeID
			for _, t := range g {
				nodes, why, sk := in.resolve(t, c)
				if sk != "" {
					return pl, sk
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
			return pl, "fewer than two non-empty groups"
		}
		pl.links = sim.CrossLinks(groups)
		pl.cut = func() { s.Partition(groups...) }
		pl.concrete.Groups = make([][]Target, len(groups))
		for i, g := range groups {
			pl.concrete.Groups[i] = []Target{Nodes(g...)}
		}
		pl.nodes = groups[0]
		pl.body = "partition " + in.groupsText(groups) + whyList(whys)
	case ShapeIsolate:
		nodes, why, sk := in.resolve(*p.Target, c)
		if sk != "" {
			return pl, sk
		}
		for _, x := range nodes {
			pl.links = append(pl.links, sim.IsolateLinks(x, s.NumNodes())...)
		}
		pl.cut = func() {
			for _, x := range nodes {
				s.Isolate(x)
			}
		}
		t := Nodes(nodes...)
		pl.concrete.Target = &t
		pl.nodes = nodes
		pl.body = "partition isolate " + in.describe(nodes, why)
	case ShapeMajorityMinority:
		k := len(in.env.Candidates)
		m := (k - 1) / 2
		if m == 0 {
			return pl, fmt.Sprintf("%d candidates have no minority", k)
		}
		var forced []sim.NodeID
		note := ""
		if p.Target != nil {
			nodes, why, sk := in.resolve(*p.Target, c)
			if sk != "" {
				return pl, sk
			}
			for _, id := range nodes {
				if in.isCand[id] {
					forced = append(forced, id)
				}
			}
			if len(forced) > m {
				return pl, fmt.Sprintf("target %s is more than a minority of %d", in.names(forced), m)
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
		minority := append(slices.Clone(forced), pick(c.res, rest, m-len(forced))...)
		slices.Sort(minority)
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
		pl.cut = func() { s.Partition(groups...) }
		// Explicitly, a majority/minority split is the two groups it drew.
		pl.concrete = Partition{Shape: ShapeGroups, Groups: [][]Target{{Nodes(minority...)}, {Nodes(majority...)}}}
		pl.nodes = minority // with the services if they are on its side
		pl.body = "partition majority_minority " + in.groupsText(groups) + note
	case ShapeBridge:
		var bridge sim.NodeID
		why := "random"
		if p.Target != nil {
			nodes, w, sk := in.resolve(*p.Target, c)
			if sk != "" {
				return pl, sk
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
			return pl, "a bridge needs at least three candidates"
		}
		left, right := others[:len(others)/2], others[len(others)/2:]
		pl.links = sim.BridgeLinks(left, right, bridge)
		pl.cut = func() { s.Bridge(left, right, bridge) }
		t := Nodes(bridge)
		pl.concrete.Target = &t
		pl.nodes = []sim.NodeID{bridge}
		pl.body = fmt.Sprintf("partition bridge {%s} | {%s} via %s", in.names(left), in.names(right), in.describe([]sim.NodeID{bridge}, why))
	case ShapeOneWay:
		from, why, sk := in.resolve(*p.Target, c)
		if sk != "" {
			return pl, sk
		}
		var to []sim.NodeID
		toWhy := ""
		if p.To != nil {
			var sk string
			to, toWhy, sk = in.resolve(*p.To, c)
			if sk != "" {
				return pl, sk
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
			return pl, "no link from target to receivers"
		}
		pl.cut = func() { s.OneWay(from, to) }
		t, u := Nodes(from...), Nodes(to...)
		pl.concrete.Target, pl.concrete.To = &t, &u
		pl.nodes = from
		pl.body = fmt.Sprintf("partition one_way %s -/-> %s", in.describe(from, why), in.describe(to, toWhy))
	}
	return pl, ""
}

// cutLinks takes hold of the plan's links and cuts them. A link is held if it
// is up or already held by another partition fault; a link down for another
// reason is not this fault's to restore.
func (in *Injector) cutLinks(pl partitionPlan) (held []sim.Link) {
	n := in.s.NumNodes()
	for _, l := range pl.links {
		i := int(l.From)*n + int(l.To)
		if in.s.Reachable(l.From, l.To) || in.holds[i] > 0 {
			if slices.Contains(held, l) {
				continue
			}
			in.holds[i]++
			held = append(held, l)
		}
	}
	pl.cut()
	return held
}

// releaseLinks drops the fault's hold on its links and restores those no
// other fault holds.
func (in *Injector) releaseLinks(held []sim.Link) string {
	n := in.s.NumNodes()
	var up []sim.Link
	healed := 0
	for _, l := range held {
		i := int(l.From)*n + int(l.To)
		if in.holds[i] == 0 {
			healed++ // released by a heal meanwhile
			continue
		}
		in.holds[i]--
		if in.holds[i] == 0 {
			up = append(up, l)
		}
	}
	if len(up) > 0 {
		in.s.ConnectLinks(up)
	}
	if healed == len(held) {
		return "links already restored by a heal"
	}
	return fmt.Sprintf("%d of %d links restored", len(up), len(held))
}
