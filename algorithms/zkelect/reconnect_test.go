package zkelect

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// firstAttempts cuts the leader off the server for good and returns, per
// seed, how long after SUSPENDED its first two reconnection attempts went
// out.
func firstAttempts(t *testing.T, servers int, seeds uint64) [][2]time.Duration {
	t.Helper()
	var out [][2]time.Duration
	for seed := uint64(1); seed <= seeds; seed++ {
		cfg := cfgT(PolicyStandard)
		cfg.ConnectServers = servers
		r := newRig(t, seed, 3, cfg)
		r.s.RunFor(5 * time.Second)
		l := r.s.Leaders()[0]
		nd := r.nodes[l]
		r.s.Cut(l, r.server)
		r.s.Cut(r.server, l)
		for nd.conn != connSuspended {
			r.s.RunFor(time.Millisecond)
		}
		from := r.s.Now()
		var at [2]time.Duration
		for i := range at {
			// attempts counts the attempts scheduled: the i-th has gone out
			// when the next one is scheduled.
			for nd.attempts < i+2 {
				r.s.RunFor(time.Millisecond)
			}
			at[i] = r.s.Now().Sub(from)
		}
		out = append(out, at)
	}
	return out
}

// TestZKReconnectSpinsOnOneServer reproduces ZooKeeper 3.8's
// ClientCnxn.SendThread.run, which takes each reconnection's server with
// hostProvider.next(1000), and StaticHostProvider.next, which sleeps that
// spin delay before it returns the server the client was last connected
// to: with one server in the connect string, every reconnection attempt
// waits 1 s and then startConnect's random back-off under a second. The
// real client against a standalone server reconnected 1.0–2.0 s after its
// Disconnected (docs/reality.md, zk-short-cut), where the model without
// the spin tried within a second.
func TestZKReconnectSpinsOnOneServer(t *testing.T) {
	for i, at := range firstAttempts(t, 1, 10) {
		assert.GreaterOrEqual(t, at[0], spinDelay, "seed %d: the first attempt spins", i+1)
		assert.Less(t, at[0], spinDelay+time.Second+5*time.Millisecond, "seed %d", i+1)
		assert.GreaterOrEqual(t, at[1]-at[0], spinDelay, "seed %d: so does every other", i+1)
	}
}

// TestZKReconnectTriesOtherServersFirst is its must-refute twin: with
// three servers the first two attempts go to the other two, without the
// spin, so in some seed the first comes within a second of SUSPENDED —
// the assertion above would fail — and the third returns to the first
// server after the spin.
func TestZKReconnectTriesOtherServersFirst(t *testing.T) {
	soon := 0
	for _, at := range firstAttempts(t, 3, 10) {
		require.Less(t, at[0], time.Second+5*time.Millisecond)
		if at[0] < spinDelay {
			soon++
		}
	}
	assert.Positive(t, soon, "no attempt spins before the third")
}
