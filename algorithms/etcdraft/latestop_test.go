package etcdraft_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	_ "github.com/electsim/electsim/algorithms/builtin" // the scenarios' algorithms
	"github.com/electsim/electsim/algorithms/etcdraft"
	"github.com/electsim/electsim/internal/contracttest"
)

// TestEtcdraftContractRefutedByLateStop plants a bug just past the bound
// of go.etcd.io/raft's CheckQuorum (2 check-quorum periods, raft.go
// tickHeartbeat): the application acts one bound longer than the cut-off
// leader believes it leads. Its overlap must be a breach in every seed of
// a cut-off leader, while the real library's stays within the bound.
func TestEtcdraftContractRefutedByLateStop(t *testing.T) {
	real, planted, err := contracttest.LateStopBreaches(etcdraft.Descriptor(), 400*time.Millisecond, ", check_quorum: true", 5)
	require.NoError(t, err)
	assert.Empty(t, real)
	assert.Len(t, planted, 5)
}
