package consulelect

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/sim"
)

// tokenRun runs three candidates with Config.Token token, crashes the
// first leader once it acts and returns the first two leaders' lead
// records and the key's LockIndex and ModifyIndex under the second.
func tokenRun(t *testing.T, seed uint64, token string) (first, second sim.Record, pair Pair) {
	t.Helper()
	c := ttlOnly()
	c.Token = token
	r := newRig(t, seed, 3, c)
	r.s.RunFor(5 * time.Second)
	leads := r.records(sim.RecLead, sim.None)
	require.NotEmpty(t, leads, "seed %d token %s", seed, token)
	first = leads[0]
	r.s.Crash(first.Node)
	r.s.RunFor(2 * time.Minute)
	second = r.nextLead(first.Node, first.At)
	require.NotZero(t, second.At, "seed %d token %s: no second leader", seed, token)
	return first, second, r.srv.pair(c.Key)
}

// TestConsulTokenIsAnApplicationRead: api.Lock's Lock returns only a
// <-chan struct{} that closes when the lock is lost (api/lock.go, Lock and
// monitorLock, hashicorp/consul): no index. So by default the leader acts
// at once with no token (0); fails on the old model, which handed it the
// key's ModifyIndex. With token lock_index (or modify_index) the
// application reads the lock key with a KV Get after Lock returns and acts
// with KVPair.LockIndex (ModifyIndex) when the answer arrives: one round
// trip (two one-way latencies of 1..10 ms) later than with none, the same
// seed running the same events up to then. The next holder's token is
// higher, so a fenced resource rejects the old holder's late write.
func TestConsulTokenIsAnApplicationRead(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		n1, n2, _ := tokenRun(t, seed, TokenNone)
		assert.Zero(t, n1.Token, "seed %d: api.Lock hands no token", seed)
		assert.Zero(t, n2.Token, "seed %d", seed)
		assert.Positive(t, n1.Epoch, "seed %d: the tenure is still the acquisition's ModifyIndex", seed)

		for _, tok := range []string{TokenLockIndex, TokenModifyIndex} {
			l1, l2, pair := tokenRun(t, seed, tok)
			assert.Equal(t, n1.Node, l1.Node, "%s seed %d", tok, seed)
			d := l1.At.Sub(n1.At)
			assert.GreaterOrEqual(t, d, 2*time.Millisecond, "%s seed %d: one KV Get round trip later", tok, seed)
			assert.LessOrEqual(t, d, 20*time.Millisecond, "%s seed %d: one KV Get round trip later", tok, seed)
			assert.Greater(t, l2.Token, l1.Token, "%s seed %d: the next holder's token is higher", tok, seed)
			want := pair.LockIndex
			if tok == TokenModifyIndex {
				want = pair.ModifyIndex
			}
			assert.Equal(t, want, l2.Token, "%s seed %d: the key's field as the Get read it", tok, seed)
		}
	}
}
