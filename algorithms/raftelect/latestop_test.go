package raftelect_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	_ "github.com/electsim/electsim/algorithms/builtin" // the scenarios' algorithms
	"github.com/electsim/electsim/algorithms/raftelect"
	"github.com/electsim/electsim/internal/contracttest"
)

// TestRaftContractRefutedByLateStop plants a bug just past the CheckQuorum
// bound (2·election_timeout_min + the latency spread, thesis §6.2): the
// application acts 400 ms (past the 300 ms bound at the defaults) longer than the cut-off leader
// believes it leads. Its overlap must be a breach in every seed of a
// cut-off leader, while the real raft's stays within the bound.
func TestRaftContractRefutedByLateStop(t *testing.T) {
	real, planted, err := contracttest.LateStopBreaches(raftelect.Descriptor(), 400*time.Millisecond, ", check_quorum: true", 5)
	require.NoError(t, err)
	assert.Empty(t, real)
	assert.Len(t, planted, 5)
}
