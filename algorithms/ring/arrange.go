package ring

import (
	"fmt"
	"slices"

	"github.com/electsim/electsim/sim"
)

// Arrangement says how identifiers are laid out along the ring direction.
type Arrangement uint8

// The arrangements. For Chang–Roberts with every node initiating at once,
// Sorted is the best case (2n−1 ELECTION messages) and Reversed the worst
// (n(n+1)/2).
const (
	// Sorted: IDs increase along the ring direction (each node's successor
	// has the next higher ID; the highest wraps to the lowest).
	Sorted Arrangement = iota
	// Reversed: IDs decrease along the ring direction.
	Reversed
	// Random: a permutation drawn from a caller-supplied stream.
	Random
)

var arrangementNames = [...]string{"sorted", "reversed", "random"}

// String returns the arrangement's name as used in scenario files.
func (a Arrangement) String() string {
	if int(a) < len(arrangementNames) {
		return arrangementNames[a]
	}
	return fmt.Sprintf("arrangement(%d)", uint8(a))
}

// ParseArrangement parses "sorted", "reversed" or "random".
func ParseArrangement(s string) (Arrangement, error) {
	for i, name := range arrangementNames {
		if s == name {
			return Arrangement(i), nil
		}
	}
	return 0, fmt.Errorf("ring: unknown arrangement %q (want sorted, reversed or random)", s)
}

// Arrange returns a ring order (for Config.Order) holding ids arranged as
// kind says. ids may be in any order; it is not modified. Random draws the
// permutation from r — use a stream derived from the run's seed, e.g.
// s.Stream("ring/order"), so the order is the same for a seed and identical
// on every node. r is unused for Sorted and Reversed; Random panics if r is nil.
func Arrange(kind Arrangement, ids []sim.NodeID, r *sim.Rand) []sim.NodeID {
	out := slices.Clone(ids)
	slices.Sort(out)
	switch kind {
	case Sorted:
	case Reversed:
		slices.Reverse(out)
	case Random:
		if r == nil {
			panic("ring: Arrange(Random) needs a random stream")
		}
		sorted := slices.Clone(out)
		for i, j := range r.Perm(len(sorted)) {
			out[i] = sorted[j]
		}
	default:
		panic(fmt.Sprintf("ring: unknown arrangement %d", kind))
	}
	return out
}
