package scenario

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/checker"
	"github.com/electsim/electsim/sim"
)

const fencedSrc = `name: fenced
duration: 30s
cluster: {nodes: 3}
algorithm: {name: %s}
cron:
  jobs: [{name: r, schedule: "* * * * *", duration: 1s}]
  policy: [fencing]
`

// TestFencingNeedsAToken: Curator's LeaderLatch, Consul's api.Lock and the
// lease libraries hand the application no fencing token, so by default
// their leaders write with none (token 0) and a fenced resource would
// reject nothing. The loader refuses cron.policy [fencing] then, naming
// the field and the application read that adds one; with the token set it
// loads, and the scenario's Token says it is an application addition.
// etcd (Election.Rev) and raft (the term) hand one out: no token
// parameter, fencing loads as before. Fails on the old code, which loaded
// every one of them.
func TestFencingNeedsAToken(t *testing.T) {
	for _, tc := range []struct{ algo, add string }{
		{"zookeeper", "czxid"}, {"consul", "lock_index"}, {"lease, flavor: ttl", "fence"}, {"lease", "fence"},
	} {
		_, err := ParseWith("f.yaml", []byte(fmt.Sprintf(fencedSrc, tc.algo)), nil)
		require.Error(t, err, tc.algo)
		assert.Contains(t, err.Error(), "f.yaml:7:")
		assert.Contains(t, err.Error(), "cron.policy: fencing needs a fencing token")
		assert.Contains(t, err.Error(), "add algorithm.token: "+tc.add+" (an application addition")

		sc, err := ParseWith("f.yaml", []byte(fmt.Sprintf(fencedSrc, tc.algo)), []string{"algorithm.token=" + tc.add})
		require.NoError(t, err, tc.algo)
		tok, ok := sc.Algorithm.Token()
		require.True(t, ok)
		assert.Equal(t, tc.add, tok.Source)
		assert.True(t, tok.AppRead, "%s: the token is an application addition", tc.algo)
		assert.NotEmpty(t, tok.Cost)
	}
	for _, algo := range []string{"etcd", "raft"} {
		sc, err := ParseWith("f.yaml", []byte(fmt.Sprintf(fencedSrc, algo)), nil)
		require.NoError(t, err, algo)
		_, ok := sc.Algorithm.Token()
		assert.False(t, ok, "%s hands its application a token", algo)
	}
}

// TestAppReadTokenRisesAcrossLeaders: with the application's token read,
// a 30 s run of each service with a leader crash at 10 s acts with tokens
// from the store (never 0) that rise from one leader to the next, so the
// fenced resource never applies a lower token after a higher one.
func TestAppReadTokenRisesAcrossLeaders(t *testing.T) {
	for _, tc := range []struct{ algo, token string }{{"zookeeper", "czxid"}, {"consul", "lock_index"}, {"lease", "fence"}} {
		src := fmt.Sprintf(fencedSrc, tc.algo) + "faults:\n  - {at: 10s, crash: leader}\n"
		sc, err := ParseWith("f.yaml", []byte(src), []string{"algorithm.token=" + tc.token, "duration=3m"})
		require.NoError(t, err, tc.algo)
		for seed := uint64(1); seed <= 3; seed++ {
			r, err := sc.Run(RunOptions{Seed: seed, Recorder: &sim.Recorder{}})
			require.NoError(t, err)
			var tokens []int64
			for _, x := range r.Recorder.Records {
				if x.Type == sim.RecLead {
					tokens = append(tokens, x.Token)
				}
			}
			require.GreaterOrEqual(t, len(tokens), 2, "%s seed %d: a second leader", tc.algo, seed)
			assert.IsIncreasing(t, tokens, "%s seed %d", tc.algo, seed)
			c, _ := r.Report.Check(checker.CheckStaleWrite)
			assert.Zero(t, c.Count, "%s seed %d", tc.algo, seed)
		}
	}
}
