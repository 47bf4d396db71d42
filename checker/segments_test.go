package checker

import (
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/electsim/electsim/cron"
	"github.com/electsim/electsim/sim"
)

// Deciding the fenced-store history segment by segment gives porcupine's
// verdict on the whole history, for random histories of overlapping and
// sequential writes, legal and illegal, under every partitioning. The
// property counts both verdicts so it cannot pass by never seeing one. It
// checks both ways the owners are kept: persistent with a story, in place
// without.
func TestSegmentedResourceCheckMatchesPorcupine(t *testing.T) {
	seen := map[porcupine.CheckResult]int{}
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 40).Draw(t, "n")
		var log []cron.LogEntry
		var sent []sim.Time
		at := int64(0)
		for i := 0; i < n; i++ {
			at += int64(rapid.IntRange(0, 3).Draw(t, "gap"))
			call := at - int64(rapid.IntRange(0, 4).Draw(t, "span"))
			log = append(log, cron.LogEntry{At: sim.Time(at), Job: "j", JobIndex: rapid.IntRange(0, 1).Draw(t, "job"),
				Slot: int64(rapid.IntRange(0, 4).Draw(t, "slot")), Token: int64(rapid.IntRange(1, 6).Draw(t, "token")),
				Node: sim.NodeID(rapid.IntRange(0, 2).Draw(t, "node")), Run: int64(rapid.IntRange(0, 3).Draw(t, "run")),
				Accepted: rapid.IntRange(0, 3).Draw(t, "accepted") > 0})
			sent = append(sent, sim.Time(max(call, 0)))
		}
		policy := cron.Policy{Fencing: rapid.Bool().Draw(t, "fencing")}
		if rapid.Bool().Draw(t, "global") {
			policy.FencingScope = "global"
		}
		// With a story every segment's starting state is kept (persistent
		// owners); without one the owners grow in place (ownerBase).
		story := rapid.Bool().Draw(t, "story")
		c := &checker{in: Input{PorcupineTimeout: 10 * time.Second, Resource: log, Policy: policy, KeepStory: story}.withDefaults(), tl: &timeline{}}
		name := func(id sim.NodeID) string { return c.in.name(id) }
		ops := resourceOps(log, sent)
		part, _ := resourcePartition(policy)
		whole := porcupine.CheckOperationsTimeout(fencedStoreModel(name, part), ops, 10*time.Second)
		got, bad, _, _ := c.checkResourceSegments(part(resourceOps(log, sent)))
		if got != whole {
			t.Fatalf("segmented %v, whole history %v (policy %v)", got, whole, policy)
		}
		if got == porcupine.Illegal && len(bad) == 0 {
			t.Fatalf("illegal without an unplaced write")
		}
		seen[got]++
	})
	require.Positive(t, seen[porcupine.Ok], "no linearizable history drawn")
	require.Positive(t, seen[porcupine.Illegal], "no illegal history drawn")
}

// A quiescent instant splits a history; operations that touch (one returns
// when the next is called) are concurrent for porcupine and stay together.
func TestSegments(t *testing.T) {
	op := func(call, ret int64) porcupine.Operation { return porcupine.Operation{Call: call, Return: ret} }
	ops := []porcupine.Operation{op(0, 5), op(1, 2), op(5, 6), op(7, 8), op(9, 12), op(10, 11), op(13, 13)}
	var got [][2]int
	for from, to := 0, 0; from < len(ops); from = to {
		to = segmentEnd(ops, from)
		got = append(got, [2]int{from, to})
	}
	require.Equal(t, [][2]int{{0, 3}, {3, 4}, {4, 6}, {6, 7}}, got)
}
