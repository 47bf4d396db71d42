package checker

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/electsim/electsim/faults"
	"github.com/electsim/electsim/sim"
)

// TestRelevantFaults: the one selection behind every finding's
// explanation (issue 38 point 8: "the faults that touched its nodes, most
// relevant first"). Nodes 0-2 are candidates, 3 is the resource.
func TestRelevantFaults(t *testing.T) {
	s := func(x float64) sim.Time { return sim.Time(x * float64(time.Second)) }
	fault := func(name string, kind string, from, to float64, nodes ...sim.NodeID) faults.Applied {
		a := faults.Applied{Source: name, Kind: kind, At: s(from), Nodes: nodes, Detail: name}
		if to >= 0 {
			a.Reverted, a.RevertedAt = true, s(to)
		}
		return a
	}
	cands := []sim.NodeID{0, 1, 2}
	applied := []faults.Applied{
		fault("early-own", faults.KindPause, 1, 2, 0),
		fault("heal", faults.KindHeal, 9, -1),
		fault("other-candidate", faults.KindCrash, 9.5, 10.5, 2),
		fault("recent-service", faults.KindCrash, 5, 8, 3),
		fault("during-service", faults.KindCrash, 10, 13, 3),
		fault("during-own-late", faults.KindPause, 12, 14, 1),
		fault("during-own", faults.KindPartition, 9, 11, 0, 2),
		fault("all-links", faults.KindLink, 3, 4),
		fault("after", faults.KindCrash, 20, 21, 0),
	}
	names := func(fs []faults.Applied) []string {
		var out []string
		for _, a := range fs {
			out = append(out, a.Source)
		}
		return out
	}

	// An overlap of n1 and n2 from 10 s to 15 s: acting during it first,
	// then before it; within each, on its own nodes (or every node)
	// before only on a service; then the nearest in time (acting when it
	// began, the sooner to begin, the later to end). Never a heal, a fault
	// only on another candidate, or one that began after it.
	overlap := Violation{Kind: CheckSplitBrain, At: s(10), End: s(15), NodeIDs: []sim.NodeID{0, 1}}
	assert.Equal(t, []string{"during-own", "during-own-late", "during-service", "all-links", "early-own", "recent-service"},
		names(RelevantFaults(applied, overlap, cands)))

	// A slot lost at 10 s names no node: every node is its own, and it
	// lasts to the end of the run, so a later fault may be its cause.
	// Ties (acting when it fell due) keep the injection order.
	lost := Violation{Kind: CheckLostSlot, At: s(10), End: s(10)}
	assert.Equal(t, []string{"other-candidate", "during-service", "during-own", "during-own-late", "after", "recent-service", "all-links", "early-own"},
		names(RelevantFaults(applied, lost, cands)))

	// A missed slot with a deadline (the contract's) ends there, and
	// involves the node due to run it: faults on the other candidates are
	// not its.
	missed := Violation{Kind: CheckMissedSlots, At: s(10), End: s(11), NodeIDs: []sim.NodeID{1}}
	assert.Equal(t, []string{"during-service", "all-links", "recent-service"},
		names(RelevantFaults(applied, missed, cands)))
}
