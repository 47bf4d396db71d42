package etcdraft

import (
	crand "crypto/rand"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/sim"
)

// expectedTimeout replays what crypto/rand.Int(r, big.NewInt(10)) does
// (Go src/crypto/rand/util.go: read ceil(bitlen(9)/8) = 1 byte, keep its low
// 4 bits, retry while >= 10) over a copy of the node's stream, as
// streamReader serves it (low byte of each 64-bit draw). It returns the
// election timeout in ticks, ElectionTick + Intn(ElectionTick)
// (raft.go resetRandomizedElectionTimeout), and the bytes consumed.
func expectedTimeout(r *sim.Rand) (ticks int, bytes uint64) {
	for {
		bytes++
		if b := int(byte(r.Uint64()) & 0x0f); b < 10 {
			return 10 + b, bytes
		}
	}
}

// The library's randomized election timeout comes from the node's own sim
// stream and nothing else: for each seed the first campaign (MsgPreVote to
// both peers) leaves exactly on the tick predicted by replaying crypto/rand.Int
// over a copy of the stream, and exactly the predicted bytes were drawn.
func TestElectionTimeoutDrawnFromNodeStream(t *testing.T) {
	seen := map[int]bool{}
	for seed := uint64(1); seed <= 40; seed++ {
		want, wantBytes := expectedTimeout(sim.NewRand(seed, "stream"))
		seen[want] = true
		env := &fakeEnv{id: 0, rng: sim.NewRand(seed, "stream")}
		n := MustNew(DefaultConfig(), []sim.NodeID{0, 1, 2})
		n.Start(env, nil)
		require.Equal(t, wantBytes, n.rr.bytes, "seed %d: bytes drawn at start", seed)
		got := 0
		for tick := 1; tick <= 30 && got == 0; tick++ {
			env.tick(n)
			if len(env.sent) > 0 {
				got = tick
			}
		}
		require.Equal(t, want, got, "seed %d: campaign tick", seed)
		require.Len(t, env.sent, 2)
		for i, m := range env.sent {
			assert.Equal(t, KindPreVote, m.Kind)
			assert.Equal(t, sim.NodeID(i+1), m.To)
			assert.Equal(t, int64(1), m.Term, "pre-vote for the next term")
		}
		assert.Equal(t, wantBytes, n.rr.bytes, "seed %d: pre-candidacy draws nothing", seed)
	}
	assert.Greater(t, len(seen), 5, "timeouts vary across seeds")
}

// The swap is confined to library calls: afterwards crypto/rand.Reader is the
// process's reader again and the lock is free.
func TestCryptoReaderRestored(t *testing.T) {
	orig := crand.Reader
	env := &fakeEnv{id: 0, rng: sim.NewRand(1, "x")}
	n := MustNew(DefaultConfig(), []sim.NodeID{0, 1, 2})
	n.Start(env, nil)
	for i := 0; i < 25; i++ {
		env.tick(n)
	}
	assert.True(t, orig == crand.Reader, "crypto/rand.Reader restored")
	_, isStream := crand.Reader.(*streamReader)
	assert.False(t, isStream)
	require.True(t, libMu.TryLock())
	libMu.Unlock()
}

// streamReader hands out the little-endian bytes of successive draws.
func TestStreamReader(t *testing.T) {
	r := &streamReader{r: sim.NewRand(3, "x")}
	ref := sim.NewRand(3, "x")
	p := make([]byte, 10)
	n, err := r.Read(p)
	require.NoError(t, err)
	require.Equal(t, 10, n)
	v := ref.Uint64()
	for i := 0; i < 8; i++ {
		assert.Equal(t, byte(v>>(8*i)), p[i])
	}
	w := ref.Uint64()
	assert.Equal(t, []byte{byte(w), byte(w >> 8)}, p[8:])
	assert.Equal(t, uint64(10), r.bytes)
}
