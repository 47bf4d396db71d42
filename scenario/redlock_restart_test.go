package scenario

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/checker"
)

// TestRedlockMasterRestartPersistence: in redlock-master-restart.yaml a
// master of the holder's majority crashes and restarts. With Redis's shipped
// persistence (redis.conf of 7.4.1: appendonly no, save 3600 1 300 100 60
// 10000; the scenario default rdb) it comes back without the key set seconds
// before, a second client wins a majority and two clients hold the lock
// (Kleppmann, "How to do distributed locking"). With appendfsync always
// (flushAppendOnlyFile in src/aof.c fsyncs before the reply) it keeps the key
// and no run split-brains. The old store was durable on every write and could
// not lose the key: the default case fails there.
func TestRedlockMasterRestartPersistence(t *testing.T) {
	for _, tc := range []struct {
		sets  []string
		split bool
	}{
		{nil, true},
		{[]string{"algorithm.persistence=aof_always"}, false},
		{[]string{"algorithm.persistence_override=aof_always", "algorithm.persistence_override_stores=[3]"}, false},
		{[]string{"algorithm.persistence_override=aof_always", "algorithm.persistence_override_stores=[1, 2]"}, true},
	} {
		sc, err := LoadWith(shipped("redlock-master-restart.yaml"), tc.sets)
		require.NoError(t, err)
		for seed := uint64(1); seed <= 5; seed++ {
			r, err := sc.Run(RunOptions{Seed: seed})
			require.NoError(t, err)
			c, _ := r.Report.Check(checker.CheckSplitBrain)
			assert.Equal(t, tc.split, c.Status == checker.StatusViolated, "sets %v seed %d: %s", tc.sets, seed, c.Summary)
		}
	}
}
