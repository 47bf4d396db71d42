package zkelect

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The session_timeout range the descriptor declares for hunt's extremes
// (registry.Param.MinDur, MaxDur) is what a server at the default tickTime
// negotiates a request into: ZooKeeperServer.processConnectRequest clamps
// it to [minSessionTimeout, maxSessionTimeout], 2 and 20 ticks by default
// (Server.OnMessage, OpConnect, here).
func TestDeclaredSessionTimeoutRangeIsTheNegotiableOne(t *testing.T) {
	for _, p := range Descriptor().Params {
		if p.Key != "session_timeout" {
			assert.Zero(t, p.MaxDur, "%s declares a range this test does not check", p.Key)
			continue
		}
		assert.Equal(t, 2*defaultTickTime, p.MinDur)
		assert.Equal(t, 20*defaultTickTime, p.MaxDur)
	}
}
