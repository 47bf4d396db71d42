package lease

import (
	"time"

	"github.com/electsim/electsim/registry"
	"github.com/electsim/electsim/sim"
)

// fieldNames are the scenario words for Config's fields (registry.NameBy).
var fieldNames = map[string]string{
	"Flavor":        "flavor",
	"LeaseDuration": "lease_duration", "RenewDeadline": "renew_deadline", "RetryPeriod": "retry_period",
	"JitterFactor": "jitter_factor", "Identity": "identity", "RequestTimeout": "request_timeout", "RejoinDelay": "rejoin_delay",
	"ShutdownAt": "shutdown_at", "TTL": "ttl", "RenewInterval": "renew_interval",
	"ClockDriftFactor": "clock_drift_factor", "ExpiryClock": "expiry_clock", "Masters": "masters", "TimeoutFactor": "timeout_factor", "SetNXOnExtend": "set_nx_on_extend", "RedisReadTimeout": "redis_read_timeout", "RedisDialTimeout": "redis_dial_timeout", "RedisMaxRetries": "redis_max_retries", "RedisDialerRetries": "redis_dialer_retries", "ContextTimeoutEnabled": "context_timeout_enabled", "ClockDriftMargin": "clock_drift_margin",
	"ValidityCheck": "validity_check", "ValidityCheckInterval": "validity_check_interval",
	"Persistence": "persistence", "PersistenceOverride": "persistence_override", "PersistenceOverrideStores": "persistence_override_stores",
	"Token": "token", "LockAtMostFor": "lock_at_most_for", "LockAtLeastFor": "lock_at_least_for", "ExtendInterval": "extend_interval", "TaskDuration": "task_duration", "Unlock": "unlock",
}

// Descriptor describes lease-based election for the scenario grammar
// (registry): its runs get a lease store.
func Descriptor() registry.Algorithm {
	return registry.Algorithm{
		Name: "lease", Doc: "lease-based election against the lease store (algorithms/lease)", Package: "lease", LeaseStore: true,
		LeaseStores: leaseStores,
		FieldNames:  fieldNames,
		States:      States,
		Timescale:   timescale,
		Params:      params(),
		DriftMargin: k8sDriftMargin,
		Contract:    Contract,
		Token:       tokenOf,
		NewLeaseStore: func(v registry.Values, k int) sim.Node {
			return NewStore(StoreConfig{Persistence: configOf(v).StorePersistence(k)})
		},
		// client-go's requests are HTTP over TCP (rest.Client). go-redis
		// and JDBC use TCP too, but their flavors keep the datagram
		// model for now: a loss or a duplicate there is the pessimistic
		// reading (docs/algorithms/lease.md, "Differences").
		StoreStreams: func(v registry.Values) bool { return configOf(v).Flavor == FlavorK8s },
		Build:        build,
	}
}

// leaseStores is how many lease stores a run needs: Redlock's masters,
// else the one store.
func leaseStores(v registry.Values) int {
	if !v.Has("flavor") || v.String("flavor") != FlavorRedlock {
		return 1
	}
	if v.Has("masters") {
		return v.Int("masters")
	}
	return DefaultConfig().Masters
}

// timescale is how long a holder must be cut off to lose its lease.
func timescale(v registry.Values) time.Duration {
	c := configOf(v)
	switch c.Flavor {
	case FlavorK8s:
		return c.LeaseDuration
	case FlavorWallTime:
		return c.LockAtMostFor
	}
	return c.TTL
}

// tokenOf says where the leader's fencing token comes from and what it
// costs: none unless the scenario adds the application's counter.
func tokenOf(v registry.Values) registry.Token {
	if !v.Has("token") || v.String("token") != TokenFence {
		return registry.Token{Source: registry.TokenNone, Add: "algorithm.token: fence (an application addition: a counter its acquire script increments; k8s: one extra Get of the Lease before the leader acts)"}
	}
	cost := "no extra round trip: its own acquire script increments the counter and returns it"
	if !v.Has("flavor") || v.String("flavor") == FlavorK8s {
		cost = "one Get of the Lease (leaseTransitions) after OnStartedLeading, before the leader acts"
	}
	return registry.Token{Source: TokenFence, AppRead: true, Cost: cost}
}

// build validates the values once for the cluster and returns a factory
// that cannot fail for it.
func build(v registry.Values, n int, _ *sim.Rand) (registry.Factory, error) {
	c := configOf(v)
	if err := c.validate(registry.NameBy(fieldNames)); err != nil {
		return nil, err
	}
	// NewWithStores validates once for this cluster; the factory
	// cannot fail.
	placeholder := make([]sim.NodeID, max(1, c.Masters))
	if _, err := NewWithStores(c, registry.CandidateIDs(n), placeholder); err != nil {
		return nil, err
	}
	return func(p []sim.NodeID, svc registry.Services) sim.Node {
		stores := svc.LeaseStores
		if len(stores) == 0 {
			stores = []sim.NodeID{svc.LeaseStore}
		}
		nd, err := NewWithStores(c, p, stores)
		if err != nil {
			panic(err) // the run gave fewer stores than LeaseStores asked for
		}
		return nd
	}, nil
}

// configOf is the configuration the values set (defaults elsewhere).
func configOf(v registry.Values) Config {
	c := DefaultConfig()
	if v.Has("flavor") {
		c.Flavor = v.String("flavor")
	}
	registry.SetDuration(v, "lease_duration", &c.LeaseDuration)
	registry.SetDuration(v, "renew_deadline", &c.RenewDeadline)
	registry.SetDuration(v, "retry_period", &c.RetryPeriod)
	registry.SetFloat(v, "jitter_factor", &c.JitterFactor)
	registry.SetBool(v, "release_on_cancel", &c.ReleaseOnCancel)
	if v.Has("identity") {
		c.Identity = v.String("identity")
	}
	registry.SetDuration(v, "ttl", &c.TTL)
	if v.Has("masters") {
		c.Masters = v.Int("masters")
	}
	registry.SetFloat(v, "timeout_factor", &c.TimeoutFactor)
	registry.SetBool(v, "set_nx_on_extend", &c.SetNXOnExtend)
	registry.SetDuration(v, "redis_read_timeout", &c.RedisReadTimeout)
	registry.SetDuration(v, "redis_dial_timeout", &c.RedisDialTimeout)
	if v.Has("redis_max_retries") {
		c.RedisMaxRetries = v.Int("redis_max_retries")
	}
	if v.Has("redis_dialer_retries") {
		c.RedisDialerRetries = v.Int("redis_dialer_retries")
	}
	registry.SetBool(v, "context_timeout_enabled", &c.ContextTimeoutEnabled)
	if v.Has("expiry_clock") {
		c.ExpiryClock = ExpiryClock(v.String("expiry_clock"))
	}
	if v.Has("validity_check") {
		c.ValidityCheck = ValidityCheck(v.String("validity_check"))
	}
	registry.SetDuration(v, "validity_check_interval", &c.ValidityCheckInterval)
	if v.Has("persistence") {
		c.Persistence = Persistence(v.String("persistence"))
	}
	if v.Has("persistence_override") {
		c.PersistenceOverride = Persistence(v.String("persistence_override"))
	}
	if v.Has("persistence_override_stores") {
		for _, k := range v.Ints("persistence_override_stores") {
			c.PersistenceOverrideStores = append(c.PersistenceOverrideStores, int(k))
		}
	}
	registry.SetDuration(v, "renew_interval", &c.RenewInterval)
	registry.SetFloat(v, "clock_drift_factor", &c.ClockDriftFactor)
	registry.SetDuration(v, "clock_drift_margin", &c.ClockDriftMargin)
	registry.SetDuration(v, "lock_at_most_for", &c.LockAtMostFor)
	registry.SetDuration(v, "lock_at_least_for", &c.LockAtLeastFor)
	registry.SetDuration(v, "extend_interval", &c.ExtendInterval)
	registry.SetDuration(v, "task_duration", &c.TaskDuration)
	if v.Has("unlock") {
		c.Unlock = v.String("unlock")
	}
	registry.SetDuration(v, "request_timeout", &c.RequestTimeout)
	registry.SetDuration(v, "rejoin_delay", &c.RejoinDelay)
	registry.SetDuration(v, "shutdown_at", &c.ShutdownAt)
	if v.Has("token") {
		c.Token = v.String("token")
	}
	return c
}

// persistenceWords are the scenario words of Persistences.
func persistenceWords() []string {
	out := make([]string, len(Persistences))
	for i, p := range Persistences {
		out[i] = string(p)
	}
	return out
}
