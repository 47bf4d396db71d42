package bully

import (
	"github.com/electsim/electsim/contract"
	"github.com/electsim/electsim/registry"
	"github.com/electsim/electsim/sim"
)

// fieldNames are the scenario words for Config's fields (registry.NameBy).
var fieldNames = map[string]string{
	"AnswerTimeout": "answer_timeout", "CoordinatorTimeout": "coordinator_timeout", "HeartbeatInterval": "heartbeat",
	"HeartbeatTimeout": "heartbeat_timeout", "Priorities": "priorities", "peers": "candidates",
}

// Descriptor describes the bully algorithm for the scenario grammar
// (registry).
func Descriptor() registry.Algorithm {
	return registry.Algorithm{
		Name: "bully", Doc: "Garcia-Molina bully (algorithms/bully)", Package: "bully",
		FieldNames: fieldNames,
		Params: []registry.Param{
			{Key: "answer_timeout", Kind: registry.Duration, Doc: "wait for ANSWER, default 100ms"},
			{Key: "coordinator_timeout", Kind: registry.Duration, Doc: "wait for COORDINATOR after an ANSWER, default 200ms"},
			{Key: "heartbeat", Kind: registry.Duration, Doc: "coordinator heartbeat interval, default 50ms"},
			{Key: "heartbeat_timeout", Kind: registry.Duration, Doc: "follower failure-detection timeout, default 150ms"},
			{Key: "elect_on_start", Kind: registry.Bool, Doc: "run an election on (re)start, default true"},
			{Key: "persist_epoch", Kind: registry.Bool, Doc: "persist the epoch counter, default true"},
			{Key: "priorities", Kind: registry.Ints, Doc: "per-candidate priority (higher wins), default the node number"},
		},
		Build: func(v registry.Values, n int, _ *sim.Rand) (registry.Factory, error) {
			c := configOf(v)
			if v.Has("priorities") {
				ps := v.Ints("priorities")
				if err := registry.PerNode("priorities", len(ps), n); err != nil {
					return nil, err
				}
				c.Priorities = make([]int, len(ps))
				for i, p := range ps {
					c.Priorities[i] = int(p)
				}
			}
			if err := c.validate(registry.NameBy(fieldNames)); err != nil {
				return nil, err
			}
			// New validates once for this cluster; the factory cannot fail.
			if _, err := New(c, registry.CandidateIDs(n)); err != nil {
				return nil, err
			}
			return func(p []sim.NodeID, _ registry.Services) sim.Node { return MustNew(c, p) }, nil
		},
		Contract: func(v registry.Values) contract.Contract { return Contract(configOf(v)) },
	}
}

// configOf is the configuration a scenario's values describe, but for the
// priorities (Build checks them against the cluster).
func configOf(v registry.Values) Config {
	c := DefaultConfig()
	registry.SetDuration(v, "answer_timeout", &c.AnswerTimeout)
	registry.SetDuration(v, "coordinator_timeout", &c.CoordinatorTimeout)
	registry.SetDuration(v, "heartbeat", &c.HeartbeatInterval)
	registry.SetDuration(v, "heartbeat_timeout", &c.HeartbeatTimeout)
	registry.SetBool(v, "elect_on_start", &c.ElectOnStart)
	registry.SetBool(v, "persist_epoch", &c.PersistEpoch)
	return c
}
