package hunt

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A celery or shedlock mode scenario is a hunt base with no algorithm to
// draw (before, the hunt looked up an algorithm named "celery" and
// refused it); -algo with it is refused in one line, as the sweep refuses
// it (before: "internal: redis got node ID 4, want 3").
func TestNoElectionScenariosAreHuntBases(t *testing.T) {
	for _, f := range []string{"../scenarios/celery-beat-killed.yaml", "../scenarios/shedlock-offset.yaml"} {
		res, err := Search(context.Background(), Options{Scenario: f, Runs: 2, Seed: 1, Workers: 1, Quiet: true})
		require.NoError(t, err, f)
		assert.Equal(t, 2, res.Runs, f)
	}
	_, err := Search(context.Background(), Options{Scenario: "../scenarios/celery-beat-killed.yaml", Algo: "lease", Runs: 1, Seed: 1, Workers: 1, Quiet: true})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "celery-mode scenario (no election algorithm); it cannot run under lease")
}
