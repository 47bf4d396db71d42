package raftelect

import (
	"github.com/electsim/electsim/contract"
	"github.com/electsim/electsim/registry"
	"github.com/electsim/electsim/sim"
)

// fieldNames are the scenario words for Config's fields (registry.NameBy).
var fieldNames = map[string]string{
	"ElectionTimeoutMin": "election_timeout's minimum", "ElectionTimeoutMax": "election_timeout's maximum",
	"HeartbeatInterval": "heartbeat", "LastLogTerm": "last_log_term", "LastLogIndex": "last_log_index",
	"peers": "candidates", "TimerReset": "timer_reset",
}

// Descriptor describes Raft leader election for the scenario grammar
// (registry): its parameters and how to build its nodes.
func Descriptor() registry.Algorithm {
	return registry.Algorithm{
		Name: "raft", Doc: "Raft leader election (algorithms/raftelect)", Package: "raftelect",
		FieldNames: fieldNames,
		States:     States,
		Params: []registry.Param{
			{Key: "election_timeout", Kind: registry.DurationRange, Fields: []string{"ElectionTimeoutMin", "ElectionTimeoutMax"}, Doc: "randomized election timeout range, default 150ms..300ms"},
			{Key: "heartbeat", Kind: registry.Duration, Doc: "leader heartbeat interval, default 50ms"},
			{Key: "prevote", Kind: registry.Bool, Doc: "PreVote (thesis §9.6), default false"},
			{Key: "check_quorum", Kind: registry.Bool, Doc: "CheckQuorum (thesis §6.2), default false"},
			{Key: "timer_reset", Kind: registry.Enum, Enum: []string{string(TimerFigure2), string(TimerEtcd)}, Doc: "when the election timer restarts: figure2 (leader contact or a granted vote) or etcd (also every adoption of a higher term and a lost election); default figure2"},
			{Key: "persist", Kind: registry.Bool, Doc: "persist term and vote, default true"},
			{Key: "last_log_term", Kind: registry.Ints, Doc: "per-candidate last log term, default all 0"},
			{Key: "last_log_index", Kind: registry.Ints, Doc: "per-candidate last log index, default all 0"},
		},
		Build: func(v registry.Values, n int, _ *sim.Rand) (registry.Factory, error) {
			c := configOf(v)
			if err := registry.PerNode("last_log_term", len(c.LastLogTerm), n); err != nil {
				return nil, err
			}
			if err := registry.PerNode("last_log_index", len(c.LastLogIndex), n); err != nil {
				return nil, err
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

// configOf is the configuration a scenario's values describe: the defaults
// with every value the scenario sets.
func configOf(v registry.Values) Config {
	c := DefaultConfig()
	if v.Has("election_timeout") {
		c.ElectionTimeoutMin, c.ElectionTimeoutMax = v.DurationRange("election_timeout")
	}
	registry.SetDuration(v, "heartbeat", &c.HeartbeatInterval)
	registry.SetBool(v, "prevote", &c.PreVote)
	registry.SetBool(v, "check_quorum", &c.CheckQuorum)
	registry.SetBool(v, "persist", &c.Persist)
	if v.Has("timer_reset") {
		c.TimerReset = TimerReset(v.String("timer_reset"))
	}
	if v.Has("last_log_term") {
		c.LastLogTerm = v.Ints("last_log_term")
	}
	if v.Has("last_log_index") {
		c.LastLogIndex = v.Ints("last_log_index")
	}
	return c
}
