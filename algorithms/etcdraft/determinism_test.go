package etcdraft_test

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/algorithms/etcdraft"
	"github.com/electsim/electsim/sim"
)

// chaosHash is one seeded run under the nemesis; the library draws election
// timeouts on every role change, so a run exercises many draws.
func chaosHash(seed uint64) uint64 {
	c := chaosRun(seed, 5, etcdraft.DefaultConfig(), 10*time.Second, time.Second)
	return c.s.TraceHash()
}

// The same seed gives the same trace, record for record, although the library
// takes its election timeouts from a process-global crypto/rand source
// (raft.go globalRand): the adapter routes it to the node's own stream.
func TestSameSeedSameTrace(t *testing.T) {
	a := chaosRun(42, 5, etcdraft.DefaultConfig(), 3*time.Second, time.Second)
	b := chaosRun(42, 5, etcdraft.DefaultConfig(), 3*time.Second, time.Second)
	require.Equal(t, len(a.rec.Records), len(b.rec.Records))
	for i := range a.rec.Records {
		require.Equal(t, a.rec.Records[i], b.rec.Records[i], "record %d", i)
	}
	require.Equal(t, a.s.TraceHash(), b.s.TraceHash())
	require.Greater(t, len(a.records(sim.RecTimer)), 1000)
}

// Runs in parallel goroutines of one process (as simrun's workers do) give
// the hashes of sequential runs: the adapter's lock keeps one node's stream
// from serving another Sim's library calls. Run with -race to check the lock.
func TestConcurrentSeedsMatchSequential(t *testing.T) {
	const n = 8
	var seq [n]uint64
	for i := range seq {
		seq[i] = chaosHash(uint64(100 + i))
	}
	var par [n]uint64
	var wg sync.WaitGroup
	for i := range par {
		wg.Add(1)
		go func() {
			defer wg.Done()
			par[i] = chaosHash(uint64(100 + i))
		}()
	}
	wg.Wait()
	assert.Equal(t, seq, par)
}

// Different seeds give different runs.
func TestDifferentSeedsDiffer(t *testing.T) {
	seen := map[uint64]uint64{}
	for seed := uint64(1); seed <= 8; seed++ {
		h := chaosHash(seed)
		prev, dup := seen[h]
		require.False(t, dup, "seeds %d and %d share hash %x", prev, seed, h)
		seen[h] = seed
	}
}
