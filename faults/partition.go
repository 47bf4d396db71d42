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
