package checker

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/cron"
)

// docs/engine.md, "Randomness": the same seed gives the same trace, and the same
// trace must give the same report (porcupine's timeout aside).
func TestRunDeterministic(t *testing.T) {
	a, err := json.Marshal(Run(runGCPause(t, 2, cron.Policy{}).input))
	require.NoError(t, err)
	b, err := json.Marshal(Run(runGCPause(t, 2, cron.Policy{}).input))
	require.NoError(t, err)
	assert.Equal(t, string(a), string(b))
}

func TestRunEmptyTrace(t *testing.T) {
	r := Run(Input{})
	for _, c := range r.Checks {
		assert.Contains(t, []Status{StatusOK, StatusSkipped}, c.Status, c.Name)
	}
	assert.Equal(t, CheckNames, func() []string {
		var n []string
		for _, c := range r.Checks {
			n = append(n, c.Name)
		}
		return n
	}())
	assert.False(t, r.HasLeader)
	assert.Empty(t, r.Failovers)
}

// The human summary has one line per check and every explanation with its
// replay command.
func TestReportString(t *testing.T) {
	r := Run(runGCPause(t, 1, cron.Policy{Fencing: true}).input)
	s := r.String()
	assert.Contains(t, s, "split_brain             violated (harmless) 1 overlap(s) of two acting leaders, 0 harmful\n")
	assert.Contains(t, s, "double_execution        ok ")
	assert.Contains(t, s, "replay: go test ./checker -run TestGCPause\n")
	assert.Equal(t, len(CheckNames), strings.Count(s[:strings.Index(s, "failover")], "\n"))
}
