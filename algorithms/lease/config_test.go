package lease

import (
	"testing"
	"time"

	"github.com/electsim/electsim/registry"
	"github.com/electsim/electsim/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestValidate checks the defaults and client-go's NewLeaderElector rules
// (leaseDuration > renewDeadline > retryPeriod·JitterFactor).
func TestValidate(t *testing.T) {
	for _, f := range []string{FlavorK8s, FlavorTTL, FlavorWallTime} {
		cfg := DefaultConfig()
		cfg.Flavor = f
		require.NoError(t, cfg.Validate(), f)
	}
	bad := map[string]func(*Config){
		"Flavor":         func(c *Config) { c.Flavor = "zk" },
		"Key":            func(c *Config) { c.Key = "" },
		"RetryPeriod":    func(c *Config) { c.RetryPeriod = 0 },
		"RequestTimeout": func(c *Config) { c.RequestTimeout = -time.Second },
		"LeaseDuration":  func(c *Config) { c.LeaseDuration = c.RenewDeadline },
		"RenewDeadline":  func(c *Config) { c.RenewDeadline = 2400 * time.Millisecond },
	}
	for field, mutate := range bad {
		cfg := DefaultConfig()
		mutate(&cfg)
		err := cfg.Validate()
		require.Error(t, err, field)
		assert.Contains(t, err.Error(), field)
	}
	ttl := ttlConfig()
	ttl.RenewInterval = ttl.TTL
	assert.ErrorContains(t, ttl.Validate(), "RenewInterval")
	wall := wallConfig()
	wall.ExtendInterval = wall.LockAtMostFor
	assert.ErrorContains(t, wall.Validate(), "ExtendInterval")
	_, err := New(Config{}, nil, 0)
	assert.Error(t, err, "a constructor returns the configuration's error")
	assert.Panics(t, func() { MustNew(Config{}, nil, 0) })
}

// TestStableHour: with no faults, each flavour elects one leader that keeps
// the lease for an hour without a single step-down, and the message mix is
// the protocol's: the k8s leader renews with one fast-path Update per
// RetryPeriod (plus the immediate renewal after acquiring) and followers poll
// with Gets; the ttl leader renews every TTL/3; the walltime leader extends
// every LockAtMostFor/2.
func TestStableHour(t *testing.T) {
	for _, f := range []string{FlavorK8s, FlavorTTL, FlavorWallTime} {
		cfg := DefaultConfig()
		cfg.Flavor = f
		c := newCluster(t, 9, 3, cfg)
		c.s.RunUntil(sim.Time(time.Hour))
		c.leader(t)
		assert.Empty(t, c.records(sim.RecStepDown, sim.None, 0), f)
		assert.Len(t, c.records(sim.RecLead, sim.None, 0), 1, f)
		st := c.s.Stats()
		switch f {
		case FlavorK8s:
			// A round every RetryPeriod plus a round trip: just under 1800.
			assert.InDelta(t, 1795, st.Sent[KindOf(OpUpdate)], 10, f)
			assert.Zero(t, st.Sent[KindOf(OpSetNX)])
		case FlavorTTL:
			assert.InDelta(t, 1080, st.Sent[KindOf(OpCheckRenew)], 2, f)
		case FlavorWallTime:
			assert.InDelta(t, 240, st.Sent[KindOf(OpExtend)], 2, f)
		}
		t.Logf("%s: %v", f, perKind(st))
	}
}

func perKind(st *sim.Stats) map[string]uint64 {
	out := map[string]uint64{}
	for op := OpGet; op < numOps; op++ {
		if n := st.Sent[KindOf(op)]; n > 0 {
			out[op.String()] = n
		}
	}
	return out
}

// TestDeterministic: the same seed gives the same trace for every flavour.
func TestDeterministic(t *testing.T) {
	for _, f := range []string{FlavorK8s, FlavorTTL, FlavorWallTime} {
		var hashes [2]uint64
		for i := range hashes {
			cfg := DefaultConfig()
			cfg.Flavor = f
			c := newCluster(t, 42, 3, cfg)
			c.s.At(sim.Time(20*time.Second), func() { c.s.Crash(c.leader(t)) })
			c.s.RunUntil(sim.Time(60 * time.Second))
			hashes[i] = c.s.TraceHash()
		}
		assert.Equal(t, hashes[0], hashes[1], f)
	}
}

// TestValidationErrorsAreStructured: Validate's errors name Go fields for
// the Go API, and the descriptor's Build validates with the scenario's
// words, so a loader places the error by its Fields and prints its Text
// without rewriting any text.
func TestValidationErrorsAreStructured(t *testing.T) {
	c := DefaultConfig()
	c.LeaseDuration = 5 * time.Second
	var fe *registry.FieldError
	require.ErrorAs(t, c.Validate(), &fe)
	assert.Equal(t, []string{"LeaseDuration", "RenewDeadline"}, fe.Fields)
	assert.Equal(t, "LeaseDuration (5s) must be greater than RenewDeadline (10s)", fe.Text)
	assert.Equal(t, "lease: LeaseDuration (5s) must be greater than RenewDeadline (10s)", c.Validate().Error())

	require.ErrorAs(t, c.validate(registry.NameBy(fieldNames)), &fe)
	assert.Equal(t, []string{"LeaseDuration", "RenewDeadline"}, fe.Fields)
	assert.Equal(t, "lease_duration (5s) must be greater than renew_deadline (10s)", fe.Text)
	d := Descriptor()
	for _, f := range fe.Fields {
		key, ok := d.KeyOf(f)
		require.True(t, ok, f)
		_, isParam := d.Param(key)
		assert.True(t, isParam, "%s → %s", f, key)
	}
}
