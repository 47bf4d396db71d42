package hpe_test

import (
	"fmt"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"example.com/custom-election/hpe"

	"github.com/electsim/electsim/checker"
	"github.com/electsim/electsim/proptest"
	"github.com/electsim/electsim/registry"
	"github.com/electsim/electsim/scenario"
)

func init() { registry.Default.MustRegister(hpe.Descriptor()) }

// run draws a seed, a cluster size and a schedule of pauses and isolations,
// runs it as a scenario and returns the checker's report. Everything the
// run depends on is drawn, so rapid can shrink and replay it.
func run(t *rapid.T) checker.Report {
	nodes := rapid.IntRange(3, 5).Draw(t, "nodes")
	var faults strings.Builder
	for i, k := 0, rapid.IntRange(1, 4).Draw(t, "faults"); i < k; i++ {
		at := rapid.IntRange(1, 15).Draw(t, "at")
		dur := rapid.IntRange(100, 3000).Draw(t, "ms")
		kind := rapid.SampledFrom([]string{"pause: leader", "partition: isolate, target: leader", "pause: random"}).Draw(t, "kind")
		fmt.Fprintf(&faults, "  - {at: %ds, %s, for: %dms}\n", at, kind, dur)
	}
	src := fmt.Sprintf("name: prop\nduration: 20s\ncluster: {nodes: %d}\nalgorithm: {name: hpe}\nfaults:\n%s", nodes, faults.String())
	sc, err := scenario.Parse("prop.yaml", []byte(src))
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	r, err := sc.Run(scenario.RunOptions{Seed: rapid.Uint64().Draw(t, "seed")})
	if err != nil {
		t.Fatalf("%v", err)
	}
	return r.Report
}

// Election safety holds whatever the schedule: epochs are per candidate by
// construction (generation·N + position + 1). 100 cases by default;
// RAPID_CHECKS=N runs N.
func TestPropertyElectionSafety(t *testing.T) {
	proptest.Check(t, 100, func(t *rapid.T) {
		if c, _ := run(t).Check(checker.CheckElectionSafety); c.Status != checker.StatusOK {
			proptest.Fail(t, "election safety: %s", c.Summary)
		}
	})
}

// The property "no split-brain" must be refuted: pausing or isolating the
// leader makes the next candidate lead while the old one still believes it
// does. A suite whose checks never fire proves nothing. Refute passes only
// if rapid finds such a schedule within 100 cases, and writes no fail file.
func TestPropertyRefutedNoSplitBrain(t *testing.T) {
	proptest.Refute(t, 100, func(t *rapid.T) {
		if c, _ := run(t).Check(checker.CheckSplitBrain); c.Status == checker.StatusViolated {
			proptest.Fail(t, "split-brain: %s", c.Summary)
		}
	})
}
