package scenario

import (
	"os"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/checker"
)

// TestExplain is the golden test of a failing run's explanation
// (Run.Explain: what simrun's summary and a hunt print for it; issue 38
// point 8): testdata/explain.txt holds the exact text for shipped stories
// that miss or lose a slot, or run it twice, under a fault. Rewrite with
// go test ./scenario -run TestExplain -rewrite, and review the diff.
//
// Command:
//
//	explain <file> seed=N   runs the shipped scenario ../scenarios/<file>
//	                        at seed N with its story, the input lines as
//	                        -set overrides, and prints its explanation
//
// Whatever the golden text says, every explanation is headed by a check
// the run failed, is at most checker.MaxExplainLines long, and never tells
// a no-op (a skipped fault, the settle phase's count) as a step.
func TestExplain(t *testing.T) {
	datadriven.RunTest(t, "testdata/explain.txt", func(t *testing.T, td *datadriven.TestData) string {
		require.Equal(t, "explain", td.Cmd)
		require.Len(t, td.CmdArgs, 2, "usage: explain <file> seed=N")
		var seed uint64
		td.ScanArgs(t, "seed", &seed)
		var sets []string
		for _, line := range strings.Split(td.Input, "\n") {
			if line != "" {
				sets = append(sets, line)
			}
		}
		src, err := os.ReadFile(shipped(td.CmdArgs[0].Key))
		require.NoError(t, err)
		sc, err := ParseWith(td.CmdArgs[0].Key, src, sets)
		require.NoError(t, err)
		r, err := sc.Run(RunOptions{Seed: seed, Story: true})
		require.NoError(t, err)
		require.False(t, r.OK, "the run must fail to be explained")
		out := r.Explain(nil)
		lines := strings.Split(out, "\n")
		check, _, _ := strings.Cut(lines[0], ": ")
		assert.Contains(t, Failure(r), check, "headed by a check the run did not fail:\n%s", out)
		assert.LessOrEqual(t, len(lines), checker.MaxExplainLines, out)
		assert.NotContains(t, out, "settle: reverting", "a no-op is never a cause")
		assert.NotContains(t, out, "[fault.skip]", "a skipped fault is never a cause")
		return out + "\n"
	})
}
