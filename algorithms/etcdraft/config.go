package etcdraft

import (
	"time"

	"github.com/electsim/electsim/registry"
)

// Config parameterises the adapter. Time in the library is counted in ticks;
// TickInterval converts ticks to the node's monotonic time, so the election
// timeout is ElectionTick..2*ElectionTick-1 ticks (drawn by the library) and
// the heartbeat interval HeartbeatTick ticks.
type Config struct {
	// TickInterval is how often the node calls RawNode.Tick, measured on its
	// monotonic clock. Default 10ms.
	TickInterval time.Duration
	// ElectionTick is raft.Config.ElectionTick: the minimum election timeout
	// in ticks (the library draws uniformly from [ElectionTick,
	// 2*ElectionTick-1]); also the CheckQuorum period. Default 10.
	ElectionTick int
	// HeartbeatTick is raft.Config.HeartbeatTick: ticks between leader
	// heartbeats. Must be less than ElectionTick. Default 1.
	HeartbeatTick int
	// PreVote is raft.Config.PreVote (Raft thesis §9.6). Default true, as in
	// etcd server (--pre-vote defaults to true since etcd 3.4).
	PreVote bool
	// CheckQuorum is raft.Config.CheckQuorum: a leader that has not heard
	// from a quorum within ElectionTick ticks steps down, and followers ignore
	// votes while they believe in a live leader. Default true, as in etcd
	// server, which always enables it.
	CheckQuorum bool
	// Persist writes HardState and log entries through Env.Persist before
	// messages that depend on them leave the node. Default true; false
	// demonstrates what forgetting to persist does to election safety.
	Persist bool
}

// Library knobs that only matter for log replication, which the adapter does
// not drive (the log holds just the leaders' empty entries). Values as in
// etcd server (server/etcdserver/raft.go).
const (
	maxSizePerMsgBytes = 1 << 20
	maxInflightMsgs    = 512
)

// DefaultConfig returns the defaults documented on Config's fields.
func DefaultConfig() Config {
	return Config{
		TickInterval:  10 * time.Millisecond,
		ElectionTick:  10,
		HeartbeatTick: 1,
		PreVote:       true,
		CheckQuorum:   true,
		Persist:       true,
	}
}

// Validate reports the first invalid field, mirroring the library's own
// checks (raft.Config.validate) so a bad scenario fails before the run.
func (c Config) Validate() error { return c.validate(registry.GoName) }

// validate is Validate with fields named by n (Build passes its scenario words).
func (c Config) validate(n registry.Namer) error {
	fail := func(fields []string, format string, args ...any) error {
		return registry.Fail("etcdraft", fields, format, args...)
	}
	switch {
	case c.TickInterval <= 0:
		return fail([]string{"TickInterval"}, "%s must be positive, got %v", n("TickInterval"), c.TickInterval)
	case c.HeartbeatTick <= 0:
		return fail([]string{"HeartbeatTick"}, "%s must be positive, got %d", n("HeartbeatTick"), c.HeartbeatTick)
	case c.ElectionTick <= c.HeartbeatTick:
		return fail([]string{"ElectionTick", "HeartbeatTick"}, "%s (%d) must be greater than %s (%d)", n("ElectionTick"), c.ElectionTick, n("HeartbeatTick"), c.HeartbeatTick)
	}
	return nil
}
