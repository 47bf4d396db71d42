package consulelect

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The duration ranges the descriptor declares for hunt's extremes
// (registry.Param.MinDur, MaxDur) are exactly the ones Session.Apply
// accepts (Config.Validate: SessionTTLMin 10s, SessionTTLMax 24h,
// structs.MaxLockDelay 60s): both edges are valid, a nanosecond beyond
// either is refused.
func TestDeclaredRangesAreTheValidOnes(t *testing.T) {
	set := map[string]func(*Config, time.Duration){
		"session_ttl": func(c *Config, d time.Duration) { c.SessionTTL = d },
		"lock_delay":  func(c *Config, d time.Duration) { c.LockDelay = d },
	}
	seen := 0
	for _, p := range Descriptor().Params {
		apply, ok := set[p.Key]
		if !ok {
			assert.Zero(t, p.MaxDur, "%s declares a range this test does not check", p.Key)
			continue
		}
		seen++
		require.Positive(t, p.MaxDur, p.Key)
		for _, d := range []time.Duration{p.MinDur, p.MaxDur} {
			c := DefaultConfig()
			apply(&c, d)
			assert.NoError(t, c.Validate(), "%s = %v", p.Key, d)
		}
		for _, d := range []time.Duration{p.MinDur - 1, p.MaxDur + 1} {
			c := DefaultConfig()
			apply(&c, d)
			assert.Error(t, c.Validate(), "%s = %v", p.Key, d)
		}
	}
	assert.Equal(t, len(set), seen)
}
