package hunt

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/checker"
	"github.com/electsim/electsim/scenario"
)

// A breach a known bug of the configured release explains (CURATOR-696 on
// Curator 5.5, found by an earlier hunt: algorithms/zkelect/testdata) is
// not a finding of a hunt that names no checks, which draws library
// versions among the parameters; named in -checks, it is. The same run
// on 5.7 has no finding at all, and a breach with no label is a finding
// by default (the must-refute twin: the rule skips only labelled ones).
func TestKnownBugIsNotADefaultFinding(t *testing.T) {
	run := func(sets ...string) *scenario.Run {
		sc, err := scenario.LoadWith("../algorithms/zkelect/testdata/curator696-one-way.yaml", sets)
		require.NoError(t, err)
		r, err := sc.Run(scenario.RunOptions{Seed: sc.Seed})
		require.NoError(t, err)
		return r
	}
	r := run()
	c, ok := r.Report.Check(checker.CheckSplitBrain)
	require.True(t, ok)
	require.Equal(t, 1, c.Breaches)
	require.Equal(t, 1, c.KnownBugs)
	assert.Empty(t, findings(r, nil), "a known bug is the release's, not news")
	assert.Contains(t, findings(r, []string{checker.CheckSplitBrain}), checker.CheckSplitBrain, "asked for, it is found")
	assert.Empty(t, findings(run("algorithm.curator_version=5.7"), nil))

	for i := range r.Report.Checks {
		if r.Report.Checks[i].Name == checker.CheckSplitBrain {
			r.Report.Checks[i].KnownBugs = 0
		}
	}
	assert.Contains(t, findings(r, nil), checker.CheckSplitBrain, "an unlabelled breach is a finding")
}
