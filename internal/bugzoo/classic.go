package bugzoo

import (
	"github.com/electsim/electsim/registry"
	"github.com/electsim/electsim/sim"
)

// classicBugs are the variants of the textbook algorithms (bully, ring).
func classicBugs() []Bug {
	return []Bug{
		{
			Name: "zoo-bully-deaf-to-answer", Base: "bully", Catches: "split_brain", NeedsContract: true,
			Summary:  "a bully candidate never hears ANSWER: it takes no higher node for alive and declares itself coordinator when its answer timeout fires",
			Citation: "nirvik/iWant#1 (a bully node \"thinks no one is there in the network\" and announces itself winner: split brain); exo-explore/exo#2197 (a bully implementation silently dropping replies it judged stale); Garcia-Molina 1982 §3 (a node that hears an answer within T must wait for the coordinator)",
			Scenario: "bully-deaf-to-answer.yaml",
			wrap: onBase(func(f registry.Factory, v registry.Values) registry.Factory {
				answer := kindNamed("bully.Answer")
				return wrapFactory(f, func(env sim.Env) layer { return plain{env} },
					func(_ layer, m *sim.Message) bool { return m.Kind != answer })
			}),
		},
	}
}

// kindNamed is the message kind an algorithm registered under name,
// found by name so the zoo needs no import of the algorithm.
func kindNamed(name string) sim.MsgKind {
	k, ok := sim.KindByName(name)
	if !ok {
		panic("bugzoo: message kind " + name + " is not registered")
	}
	return k
}
