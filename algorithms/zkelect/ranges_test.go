package zkelect

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// The session_timeout range the descriptor declares for hunt's extremes
// (registry.Param.MinDur, MaxDur) is what a server at the default tickTime
// negotiates a request into: ZooKeeperServer.processConnectRequest clamps
// it to [minSessionTimeout, maxSessionTimeout], 2 and 20 ticks by default
// (negotiate, which Server.OnMessage applies to OpConnect).
func TestDeclaredSessionTimeoutRangeIsTheNegotiableOne(t *testing.T) {
	for _, p := range Descriptor().Params {
		if p.Key != "session_timeout" {
			assert.Zero(t, p.MaxDur, "%s declares a range this test does not check", p.Key)
			continue
		}
		// Both edges are granted as asked; beyond them the server clamps
		// back to them.
		for _, d := range []time.Duration{p.MinDur, p.MaxDur} {
			assert.Equal(t, d, negotiate(d, defaultTickTime))
		}
		assert.Equal(t, p.MinDur, negotiate(p.MinDur-1, defaultTickTime))
		assert.Equal(t, p.MaxDur, negotiate(p.MaxDur+1, defaultTickTime))
	}
}
