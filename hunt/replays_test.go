package hunt

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/checker"
	"github.com/electsim/electsim/registry"
	"github.com/electsim/electsim/scenario"
)

// hunt-test-nocontract is bully with no contract: a hunt holds it to the
// election's own promise, two leaders at once, fenced resource or not
// (docs/hunting.md, "What a hunt judges"), so its findings are often
// harmless overlaps the resource absorbed.
func init() {
	d, ok := registry.Default.Lookup("bully")
	if !ok {
		panic("bully is not registered")
	}
	cp := *d
	cp.Name, cp.Doc, cp.Contract = "hunt-test-nocontract", "bully without a contract (hunt tests)", nil
	registry.Default.MustRegister(cp)
}

// Every hunt finding replays to the same finding (issue 38 point 2): the
// repro file, run as `simrun -scenario repro.yaml` runs it, fails with
// every check the hunt reported. Each hunt here makes a finding of a kind
// whose repro used to pass or fail otherwise: an algorithm without a
// contract whose two leaders at once the fenced base absorbed (harmless,
// so allowed by the file), a -checks finding the base allows (liveness,
// election_safety), a scenario that expects another violation than the
// one found (the check hunted was never judged: the base allowed or
// expected it). Search itself refuses to report a finding that does not
// replay (NotReplayedError), so a defect fails here either way.
func TestEveryFindingReplays(t *testing.T) {
	for _, o := range []Options{
		{Algo: "hunt-test-nocontract", Runs: 50},
		{Scenario: "../scenarios/partition.yaml", Algo: "bully", Sets: []string{"bully.answer_timeout=1ms"}, Checks: []string{"election_safety"}, Runs: 20},
		{Algo: "raft", Checks: []string{"liveness"}, Runs: 100}, // the built-in base allows liveness
		{Scenario: "../scenarios/gc-pause-unfenced.yaml", Checks: []string{"double_execution"}, Runs: 30},
		{Scenario: "../scenarios/leader-dies-with-its-job.yaml", Checks: []string{"lost_slot"}, Runs: 30}, // expects lost_slot
		{Scenario: "../scenarios/queue-worker-crash.yaml", Checks: []string{"missed_slots"}, Runs: 30},
	} {
		o.Seed, o.Workers, o.ShrinkBudget = 1, 1, 5*time.Second
		name := fmt.Sprintf("%s%s%v", o.Algo, o.Scenario, o.Checks)
		t.Run(name, func(t *testing.T) {
			res, err := Search(context.Background(), o)
			var nr *NotReplayedError
			require.False(t, errors.As(err, &nr), "%v\n%s", err, errRepro(nr))
			require.NoError(t, err)
			require.True(t, res.Found, "nothing found in %d runs: a -checks hunt must find the check its base allows or expects", res.Runs)
			sc, err := scenario.Parse("repro.yaml", res.Repro)
			require.NoError(t, err, "%s", res.Repro)
			r, err := sc.Run(scenario.RunOptions{Seed: sc.Seed})
			require.NoError(t, err)
			got := scenario.Failure(r)
			for _, f := range res.Failure {
				assert.Contains(t, got, f, "the repro replays to %v, the hunt found %v:\n%s", got, res.Failure, res.Repro)
			}
			assert.NotContains(t, string(res.Repro), "cannot shrink", "the header says it replays; so must the note")
			// The explanation is the finding's own, in at most a dozen
			// lines (issue 38 point 8: a split_brain finding was
			// explained by a liveness story).
			lines := strings.Split(res.Explanation, "\n")
			check, _, _ := strings.Cut(lines[0], ":")
			assert.Contains(t, res.Failure, check, "explained by another check: %s", res.Explanation)
			assert.LessOrEqual(t, len(lines), checker.MaxExplainLines, res.Explanation)
			t.Logf("%v\n%s", res.Failure, res.Explanation)
		})
	}
}

func errRepro(e *NotReplayedError) string {
	if e == nil {
		return ""
	}
	return string(e.Repro)
}
