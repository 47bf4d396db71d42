package ring

import (
	"fmt"
	"time"

	"github.com/electsim/electsim/registry"
	"github.com/electsim/electsim/sim"
)

// Variant selects the election algorithm run on the ring.
type Variant uint8

// The variants.
const (
	// ChangRoberts forwards only identifiers larger than the receiver's own
	// (Chang & Roberts 1979): best case 2n−1, worst case n(n+1)/2 messages.
	ChangRoberts Variant = iota
	// CollectAll circulates a list every node appends its identifier to; the
	// initiator picks the maximum when the list returns and circulates
	// COORDINATOR (LeLann 1977; the ring algorithm in Tanenbaum & van Steen):
	// n ELECTION and n COORDINATOR messages per initiator.
	CollectAll
)

var variantNames = [...]string{"chang-roberts", "collect-all"}

// String returns the variant's name as used in scenario files.
func (v Variant) String() string {
	if int(v) < len(variantNames) {
		return variantNames[v]
	}
	return fmt.Sprintf("variant(%d)", uint8(v))
}

// ParseVariant parses "chang-roberts" or "collect-all".
func ParseVariant(s string) (Variant, error) {
	for i, name := range variantNames {
		if s == name {
			return Variant(i), nil
		}
	}
	return 0, fmt.Errorf("ring: unknown variant %q (want chang-roberts or collect-all)", s)
}

// Config holds the parameters of one ring node. Order, Variant and the
// initiator settings must be identical on every node; build Order once with
// Arrange and give every node the same slice. Start from DefaultConfig: a
// Config literal that omits AllInitiate or PersistEpoch turns them off.
type Config struct {
	// Variant is the election algorithm. Default ChangRoberts.
	Variant Variant
	// Order is the ring: a message travels from Order[i] to Order[i+1] and
	// from the last entry to Order[0]. It must hold every peer exactly once.
	// nil means peers in ascending ID order (Arrange(Sorted, …)), so IDs
	// increase along the ring direction. Default nil.
	Order []sim.NodeID
	// AllInitiate makes every node start an election when it starts or
	// restarts. Off, only the nodes in Initiators do; any node still starts
	// one when its leader falls silent. Default true.
	AllInitiate bool
	// Initiators lists the nodes that start an election when they start or
	// restart, used when AllInitiate is off. Default nil.
	Initiators []sim.NodeID
	// AckTimeout is how long a node waits for its successor to acknowledge a
	// ring message before it marks the successor dead and resends to the next
	// node. It must exceed a round trip. Default 50ms.
	AckTimeout time.Duration
	// HeartbeatInterval is how often the leader sends HEARTBEAT directly to
	// every other node. Default 50ms.
	HeartbeatInterval time.Duration
	// HeartbeatTimeout is how long a node waits without hearing its leader —
	// or, during an election, without any election progress — before it
	// starts a new election round. It must exceed HeartbeatInterval.
	// Default 150ms.
	HeartbeatTimeout time.Duration
	// PersistEpoch writes the highest election round the node has seen to
	// stable storage, so a restarted node never reuses a round number.
	// Default true.
	PersistEpoch bool
}

// DefaultConfig returns Chang–Roberts on a sorted ring, every node initiating,
// 50ms acknowledgement timeout, heartbeats every 50ms with a 150ms timeout,
// persisted rounds.
func DefaultConfig() Config {
	return Config{
		Variant:           ChangRoberts,
		AllInitiate:       true,
		AckTimeout:        50 * time.Millisecond,
		HeartbeatInterval: 50 * time.Millisecond,
		HeartbeatTimeout:  150 * time.Millisecond,
		PersistEpoch:      true,
	}
}

// Validate reports the first invalid field.
func (c Config) Validate() error { return c.validate(registry.GoName) }

// validate is Validate with fields named by n (Build passes its scenario words).
func (c Config) validate(n registry.Namer) error {
	fail := func(fields []string, format string, args ...any) error {
		return registry.Fail("ring", fields, format, args...)
	}
	switch {
	case c.Variant > CollectAll:
		return fail([]string{"Variant"}, "%s %d is unknown", n("Variant"), c.Variant)
	case c.AckTimeout <= 0:
		return fail([]string{"AckTimeout"}, "%s must be positive, got %v", n("AckTimeout"), c.AckTimeout)
	case c.HeartbeatInterval <= 0:
		return fail([]string{"HeartbeatInterval"}, "%s must be positive, got %v", n("HeartbeatInterval"), c.HeartbeatInterval)
	case c.HeartbeatTimeout <= c.HeartbeatInterval:
		return fail([]string{"HeartbeatTimeout", "HeartbeatInterval"}, "%s (%v) must exceed %s (%v), or followers suspect a live leader between heartbeats", n("HeartbeatTimeout"), c.HeartbeatTimeout, n("HeartbeatInterval"), c.HeartbeatInterval)
	}
	if err := distinct(n, "Order", c.Order); err != nil {
		return err
	}
	return distinct(n, "Initiators", c.Initiators)
}

func distinct(n registry.Namer, field string, ids []sim.NodeID) error {
	for i, id := range ids {
		for j := 0; j < i; j++ {
			if ids[j] == id {
				return registry.Fail("ring", []string{field}, "%s[%d] and %s[%d] are both node %d", n(field), j, n(field), i, id)
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
		return fmt.Errorf("ring: peers is empty")
	}
	for i := 1; i < len(peers); i++ {
		if peers[i] <= peers[i-1] {
			return fmt.Errorf("ring: peers must be ascending and distinct, got %v", peers)
		}
	}
	if c.Order != nil {
		if len(c.Order) != len(peers) {
			return fmt.Errorf("ring: Order has %d nodes for %d peers", len(c.Order), len(peers))
		}
		for i, id := range c.Order {
			if !has(peers, id) {
				return fmt.Errorf("ring: Order[%d] = %d is not a peer", i, id)
			}
		}
	}
	if !c.AllInitiate {
		for i, id := range c.Initiators {
			if !has(peers, id) {
				return fmt.Errorf("ring: Initiators[%d] = %d is not a peer", i, id)
			}
		}
	}
	return nil
}

func has(ids []sim.NodeID, id sim.NodeID) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}
