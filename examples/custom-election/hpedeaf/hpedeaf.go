// Package hpedeaf is a broken copy of hpe, as a copied example with a bug
// would be: the second candidate never hears the first, so both lead, in
// epochs of their own (election_safety alone would not see it;
// split_brain does). docs/extending.md and docs/hunting.md hunt it
// ("Hunting a broken copy"); template_test.go runs example.yaml with it.
package hpedeaf

import (
	"example.com/custom-election/hpe"

	"github.com/electsim/electsim/registry"
	"github.com/electsim/electsim/sim"
)

// Descriptor is hpe's, named hpe-deaf, with the bug.
func Descriptor() registry.Algorithm {
	a := hpe.Descriptor()
	a.Name, a.Doc = "hpe-deaf", "hpe with a bug: the second candidate never hears the first (examples/custom-election/hpedeaf)"
	build := a.Build
	a.Build = func(v registry.Values, candidates int, r *sim.Rand) (registry.Factory, error) {
		f, err := build(v, candidates, r)
		if err != nil {
			return nil, err
		}
		return func(p []sim.NodeID, s registry.Services) sim.Node {
			return &deaf{Node: f(p, s), peers: p}
		}, nil
	}
	return a
}

// deaf drops every message from the first candidate to the second.
type deaf struct {
	sim.Node
	peers []sim.NodeID
	self  sim.NodeID
}

// Start remembers the node's own ID.
func (d *deaf) Start(env sim.Env, restored []byte) {
	d.self = env.ID()
	d.Node.Start(env, restored)
}

// OnMessage drops the first candidate's messages to the second.
func (d *deaf) OnMessage(m sim.Message) {
	if len(d.peers) > 1 && d.self == d.peers[1] && m.From == d.peers[0] {
		return
	}
	d.Node.OnMessage(m)
}
