package bully

import (
	"fmt"
	"time"

	"github.com/electsim/electsim/registry"
	"github.com/electsim/electsim/sim"
)

// Config holds the parameters of one bully node. Every node of a cluster has
// its own Config (tests give one node a shorter HeartbeatTimeout so that it is
// the one that detects a crash), but Priorities must be the same everywhere.
// Start from DefaultConfig: a Config literal that omits ElectOnStart or
// PersistEpoch turns them off.
type Config struct {
	// AnswerTimeout is T in Garcia-Molina's bully algorithm: how long a node
	// that sent ELECTION waits for an ANSWER from a higher node before it
	// declares itself coordinator. It must exceed a round trip. Default 100ms.
	AnswerTimeout time.Duration
	// CoordinatorTimeout is T': after an ANSWER, how long the node waits for
	// the COORDINATOR announcement before it starts the election again.
	// Default 200ms.
	CoordinatorTimeout time.Duration
	// HeartbeatInterval is how often the coordinator pushes HEARTBEAT to every
	// lower-priority node (the failure detector). Default 50ms.
	HeartbeatInterval time.Duration
	// HeartbeatTimeout is how long a follower waits without hearing its
	// coordinator before it suspects a crash and starts an election. It must
	// exceed HeartbeatInterval. Default 150ms.
	HeartbeatTimeout time.Duration
	// ElectOnStart makes a node run an election whenever it starts or
	// restarts, which is how a recovered higher node bullies its way back.
	// Off, a (re)started node waits HeartbeatTimeout for a coordinator first.
	// Default true.
	ElectOnStart bool
	// PersistEpoch writes the highest epoch the node knows (and who minted it)
	// to stable storage whenever it grows, so a restarted node does not mint
	// an epoch it has already seen. Off, a restarted node remembers nothing and
	// its first claim is rejected as stale, costing an extra election.
	// Default true.
	PersistEpoch bool
	// Priorities optionally gives each node's priority, indexed by the node's
	// position in the peers slice passed to New (higher wins; values must be
	// distinct). nil means priority = NodeID, the textbook "highest ID wins".
	// Default nil.
	Priorities []int
}

// DefaultConfig returns T = 100ms, T' = 200ms, heartbeats every 50ms with a
// 150ms timeout, election on start, persisted epochs, priority = NodeID.
func DefaultConfig() Config {
	return Config{
		AnswerTimeout:      100 * time.Millisecond,
		CoordinatorTimeout: 200 * time.Millisecond,
		HeartbeatInterval:  50 * time.Millisecond,
		HeartbeatTimeout:   150 * time.Millisecond,
		ElectOnStart:       true,
		PersistEpoch:       true,
	}
}

// Validate reports the first invalid field.
func (c Config) Validate() error { return c.validate(registry.GoName) }

// validate is Validate with fields named by n (Build passes its scenario words).
func (c Config) validate(n registry.Namer) error {
	fail := func(fields []string, format string, args ...any) error {
		return registry.Fail("bully", fields, format, args...)
	}
	switch {
	case c.AnswerTimeout <= 0:
		return fail([]string{"AnswerTimeout"}, "%s must be positive, got %v", n("AnswerTimeout"), c.AnswerTimeout)
	case c.CoordinatorTimeout <= 0:
		return fail([]string{"CoordinatorTimeout"}, "%s must be positive, got %v", n("CoordinatorTimeout"), c.CoordinatorTimeout)
	case c.HeartbeatInterval <= 0:
		return fail([]string{"HeartbeatInterval"}, "%s must be positive, got %v", n("HeartbeatInterval"), c.HeartbeatInterval)
	case c.HeartbeatTimeout <= c.HeartbeatInterval:
		return fail([]string{"HeartbeatTimeout", "HeartbeatInterval"}, "%s (%v) must exceed %s (%v), or followers suspect a live coordinator between heartbeats", n("HeartbeatTimeout"), c.HeartbeatTimeout, n("HeartbeatInterval"), c.HeartbeatInterval)
	}
	for i, p := range c.Priorities {
		for j := 0; j < i; j++ {
			if c.Priorities[j] == p {
				return fail([]string{"Priorities"}, "%s[%d] and %s[%d] are both %d; priorities must be distinct", n("Priorities"), j, n("Priorities"), i, p)
			}
		}
	}
	return nil
}

// ValidatePeers is Validate plus the checks that need the peer list New gets.
func (c Config) ValidatePeers(peers []sim.NodeID) error {
	if err := c.Validate(); err != nil {
		return err
	}
	if len(peers) == 0 {
		return fmt.Errorf("bully: peers is empty")
	}
	for i := 1; i < len(peers); i++ {
		if peers[i] <= peers[i-1] {
			return fmt.Errorf("bully: peers must be ascending and distinct, got %v", peers)
		}
	}
	if c.Priorities != nil && len(c.Priorities) != len(peers) {
		return fmt.Errorf("bully: Priorities has %d entries for %d peers", len(c.Priorities), len(peers))
	}
	return nil
}
