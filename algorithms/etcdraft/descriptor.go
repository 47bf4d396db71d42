package etcdraft

import (
	"github.com/electsim/electsim/contract"
	"github.com/electsim/electsim/registry"
	"github.com/electsim/electsim/sim"
)

// fieldNames are the scenario words for Config's fields (registry.NameBy).
var fieldNames = map[string]string{"TickInterval": "tick", "ElectionTick": "election_tick", "HeartbeatTick": "heartbeat_tick"}

// Descriptor describes the etcd raft adapter for the scenario grammar
// (registry).
func Descriptor() registry.Algorithm {
	return registry.Algorithm{
		Name: "etcdraft", Doc: "the real go.etcd.io/raft/v3 library (algorithms/etcdraft)", Package: "etcdraft",
		FieldNames: fieldNames,
		States:     States,
		// rand.go: library calls hold a process-wide lock while
		// crypto/rand.Reader points at the calling node's stream.
		ProcessWide: true,
		Params: []registry.Param{
			{Key: "tick", Kind: registry.Duration, Doc: "tick interval on the node's monotonic clock, default 10ms"},
			{Key: "election_tick", Kind: registry.Int, Min: 1, Max: 1e6, Doc: "ElectionTick, default 10"},
			{Key: "heartbeat_tick", Kind: registry.Int, Min: 1, Max: 1e6, Doc: "HeartbeatTick, default 1"},
			{Key: "prevote", Kind: registry.Bool, Doc: "PreVote, default true (as etcd server)"},
			{Key: "check_quorum", Kind: registry.Bool, Doc: "CheckQuorum, default true (as etcd server)"},
			{Key: "persist", Kind: registry.Bool, Doc: "persist HardState and entries, default true"},
		},
		Build: func(v registry.Values, n int, _ *sim.Rand) (registry.Factory, error) {
			c := configOf(v)
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

// configOf is the configuration a scenario's values describe: the defaults
// with every value the scenario sets.
func configOf(v registry.Values) Config {
	c := DefaultConfig()
	registry.SetDuration(v, "tick", &c.TickInterval)
	registry.SetInt(v, "election_tick", &c.ElectionTick)
	registry.SetInt(v, "heartbeat_tick", &c.HeartbeatTick)
	registry.SetBool(v, "prevote", &c.PreVote)
	registry.SetBool(v, "check_quorum", &c.CheckQuorum)
	registry.SetBool(v, "persist", &c.Persist)
	return c
}
