package hpe_test

import (
	"fmt"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"example.com/custom-election/hpe"

	"github.com/electsim/electsim/checker"
	"github.com/electsim/electsim/registry"
	"github.com/electsim/electsim/scenario"
)

func init() { registry.Default.MustRegister(hpe.Descriptor()) }

// run draws a seed, a cluster size and a schedule of pauses and isolations,
// runs it as a scenario and returns the checker's report.
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
// construction (generation·N + position + 1).
func TestPropertyElectionSafety(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		if c, _ := run(t).Check(checker.CheckElectionSafety); c.Status != checker.StatusOK {
			t.Fatalf("election safety: %s", c.Summary)
		}
	})
}

// The property "no split-brain" must be refuted: pausing or isolating the
// leader makes the next candidate lead while the old one still believes it
// does. A suite whose checks never fire proves nothing.
func TestPropertyRefutedNoSplitBrain(t *testing.T) {
	rec := &recordingTB{name: t.Name()}
	rapid.Check(rec, func(t *rapid.T) {
		if c, _ := run(t).Check(checker.CheckSplitBrain); c.Status == checker.StatusViolated {
			t.Fatalf("split-brain: %s", c.Summary)
		}
	})
	if !rec.failed {
		t.Fatal("rapid found no split-brain: the check has no teeth")
	}
	t.Logf("refuted as expected: %s", strings.Join(rec.errors, "\n"))
}

// recordingTB is a rapid.TB that records a failure instead of failing the
// test, so a property that must be refuted can be asserted refuted.
type recordingTB struct {
	name   string
	failed bool
	errors []string
}

func (r *recordingTB) Helper()                  {}
func (r *recordingTB) Name() string             { return r.name }
func (r *recordingTB) Logf(string, ...any)      {}
func (r *recordingTB) Log(...any)               {}
func (r *recordingTB) Skipf(f string, a ...any) { r.Errorf(f, a...) }
func (r *recordingTB) Skip(a ...any)            { r.Error(a...) }
func (r *recordingTB) SkipNow()                 { r.failed = true }
func (r *recordingTB) Errorf(f string, a ...any) {
	r.failed = true
	r.errors = append(r.errors, fmt.Sprintf(f, a...))
}
func (r *recordingTB) Error(a ...any)            { r.failed = true; r.errors = append(r.errors, fmt.Sprint(a...)) }
func (r *recordingTB) Fatalf(f string, a ...any) { r.Errorf(f, a...) }
func (r *recordingTB) Fatal(a ...any)            { r.Error(a...) }
func (r *recordingTB) FailNow()                  { r.failed = true }
func (r *recordingTB) Fail()                     { r.failed = true }
func (r *recordingTB) Failed() bool              { return r.failed }
