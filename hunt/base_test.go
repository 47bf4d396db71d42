package hunt

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/checker"
	"github.com/electsim/electsim/scenario"
)

// The built-in base expects no stale write only when it fences: without
// fencing nothing refuses a stale token's write, so a stale write found
// after the extremes strategy handed the leaders a token (zookeeper's
// token=czxid under the unfenced base) is no finding.
func TestBaseAllowsStaleWritesOnlyUnfenced(t *testing.T) {
	fenced, err := scenario.Parse("hunt-raft", BaseYAML("raft", true))
	require.NoError(t, err)
	assert.NotContains(t, fenced.Expect.Allow, checker.CheckStaleWrite)
	unfenced, err := scenario.Parse("hunt-zookeeper", BaseYAML("zookeeper", false))
	require.NoError(t, err)
	assert.Contains(t, unfenced.Expect.Allow, checker.CheckStaleWrite)
	for _, sc := range []*scenario.Scenario{fenced, unfenced} {
		assert.Contains(t, sc.Expect.Allow, checker.CheckLiveness)
		assert.NotContains(t, sc.Expect.Allow, checker.CheckElectionSafety)
	}
}
