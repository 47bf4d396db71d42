package sim_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/sim"
)

// The trace hash of a fixed workload is pinned: the same seed must give the
// same trace on every machine, architecture and Go release, not only twice
// in one process. This test is what catches platform-dependent arithmetic
// (fused multiply-add, assembly math) or an accidental change of the event
// order. If an intended change to the engine's behaviour moves the hash,
// update the constant in the same commit and say why. (Checked on amd64 and
// on a 32-bit GOARCH=386 build, which has different word size and no FMA.)
func TestGoldenTraceHash(t *testing.T) {
	s, ids := newVoteCluster(1, 5)
	newCrashDriver(s, ids, 2)
	s.RunUntil(sim.Time(time.Minute))
	require.Equal(t, uint64(4270), s.Stats().Events)
	require.Equal(t, "8c43ec832068fdff", s.TraceHashHex())
}
