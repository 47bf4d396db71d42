package ring

import (
	"github.com/electsim/electsim/contract"
	"strings"

	"github.com/electsim/electsim/registry"
	"github.com/electsim/electsim/sim"
)

// fieldNames are the scenario words for Config's fields (registry.NameBy).
var fieldNames = map[string]string{
	"AckTimeout": "ack_timeout", "HeartbeatInterval": "heartbeat", "HeartbeatTimeout": "heartbeat_timeout",
	"Order": "order", "Initiators": "initiators", "peers": "candidates",
}

// Descriptor describes the ring elections for the scenario grammar
// (registry).
func Descriptor() registry.Algorithm {
	return registry.Algorithm{
		Name: "ring", Doc: "Chang–Roberts ring election and the collect-all variant (algorithms/ring)", Package: "ring",
		FieldNames: fieldNames,
		Params: []registry.Param{
			{Key: "variant", Kind: registry.Enum, Enum: []string{"chang_roberts", "collect_all"}, Doc: "Chang–Roberts (forward only IDs higher than your own) or collect-all (the message collects every ID and the highest wins), default chang_roberts"},
			{Key: "arrangement", Kind: registry.Enum, Enum: []string{"sorted", "reversed", "random"}, Doc: "ring order of the IDs: sorted (IDs increase along the ring, best case), reversed (worst case) or random (drawn from the run's seed); default sorted"},
			{Key: "order", Kind: registry.Nodes, Doc: "explicit ring order, e.g. [n3, n1, n2]; overrides arrangement"},
			{Key: "all_initiate", Kind: registry.Bool, Doc: "every node starts an election at start, default true"},
			{Key: "initiators", Kind: registry.Nodes, Doc: "the nodes that initiate when all_initiate is false"},
			{Key: "ack_timeout", Kind: registry.Duration, Doc: "per-hop acknowledgement timeout before skipping a dead successor, default 50ms"},
			{Key: "heartbeat", Kind: registry.Duration, Doc: "leader heartbeat interval, default 50ms"},
			{Key: "heartbeat_timeout", Kind: registry.Duration, Doc: "follower timeout, default 150ms"},
			{Key: "persist_epoch", Kind: registry.Bool, Doc: "persist the round number, default true"},
		},
		Build: func(v registry.Values, n int, r *sim.Rand) (registry.Factory, error) {
			c := DefaultConfig()
			if v.Has("variant") {
				// The grammar spells names with underscores, this package
				// with hyphens.
				vv, err := ParseVariant(strings.ReplaceAll(v.String("variant"), "_", "-"))
				if err != nil {
					return nil, err
				}
				c.Variant = vv
			}
			if v.Has("arrangement") {
				a, err := ParseArrangement(v.String("arrangement"))
				if err != nil {
					return nil, err
				}
				c.Order = Arrange(a, registry.CandidateIDs(n), r)
			}
			if v.Has("order") {
				if err := registry.PerNode("order", len(v.Nodes("order")), n); err != nil {
					return nil, err
				}
				c.Order = v.Nodes("order")
			}
			registry.SetBool(v, "all_initiate", &c.AllInitiate)
			if v.Has("initiators") {
				c.Initiators = v.Nodes("initiators")
			}
			timingOf(v, &c)
			if err := c.validate(registry.NameBy(fieldNames)); err != nil {
				return nil, err
			}
			// New validates once for this cluster; the factory cannot fail.
			if _, err := New(c, registry.CandidateIDs(n)); err != nil {
				return nil, err
			}
			return func(p []sim.NodeID, _ registry.Services) sim.Node { return MustNew(c, p) }, nil
		},
		Contract: func(v registry.Values) contract.Contract {
			c := DefaultConfig()
			timingOf(v, &c)
			return Contract(c)
		},
		// A random arrangement becomes the order it drew, so a
		// materialized scenario builds the same ring without the draw.
		Concrete: func(v registry.Values, n int, r *sim.Rand) []registry.Setting {
			if !v.Has("arrangement") || v.String("arrangement") != "random" || v.Has("order") {
				return nil
			}
			return []registry.Setting{{Key: "arrangement", Remove: true}, {Key: "order", Nodes: Arrange(Random, registry.CandidateIDs(n), r)}}
		},
	}
}

// timingOf sets c's timeouts and persistence from the scenario's values
// (the ring's order and initiators need the cluster: Build sets them).
func timingOf(v registry.Values, c *Config) {
	registry.SetDuration(v, "ack_timeout", &c.AckTimeout)
	registry.SetDuration(v, "heartbeat", &c.HeartbeatInterval)
	registry.SetDuration(v, "heartbeat_timeout", &c.HeartbeatTimeout)
	registry.SetBool(v, "persist_epoch", &c.PersistEpoch)
}
