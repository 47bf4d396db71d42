package lease

import "github.com/electsim/electsim/registry"

// params are lease's scenario parameters (algorithm.params), each with
// what it models; a fresh slice per call, as each Descriptor's own.
func params() []registry.Param {
	return []registry.Param{
		{Key: "flavor", Kind: registry.Enum, Enum: Flavors, Doc: "k8s (client-go), ttl (Redis SET NX PX, one instance), walltime (ShedLock lock_until) or redlock (go-redsync over independent masters); default k8s"},
		{Key: "masters", Kind: registry.Int, Min: 1, Max: MaxMasters, Single: true, Doc: "redlock: independent Redis masters (store, store2, …), default 5"},
		{Key: "set_nx_on_extend", Kind: registry.Bool, Doc: "redlock: extensions also set the key where it is absent (go-redsync WithSetNXOnExtend), default false"},
		{Key: "timeout_factor", Kind: registry.Float, Min: 0, Max: 1, Doc: "redlock: an acquisition round's timeout as a fraction of ttl, default 0.05"},
		{Key: "redis_read_timeout", Kind: registry.Duration, Doc: "redlock: each master's go-redis ReadTimeout, default 5s (go-redis v9.22.0; 3s before)"},
		{Key: "redis_dial_timeout", Kind: registry.Duration, Doc: "redlock: go-redis DialTimeout per dial, default 5s"},
		{Key: "redis_max_retries", Kind: registry.Int, Min: 0, Max: 100, Doc: "redlock: go-redis MaxRetries (0: none), default 3"},
		{Key: "redis_dialer_retries", Kind: registry.Int, Min: 1, Max: 100, Doc: "redlock: go-redis DialerRetries, dials per attempt 100ms apart, default 5 (v9.16.0 and later; 1 before)"},
		{Key: "context_timeout_enabled", Kind: registry.Bool, Doc: "redlock: go-redis ContextTimeoutEnabled: a round's context deadline also cuts a socket read short; default false (the deadline only stops retries and dials)"},
		{Key: "lease_duration", Kind: registry.Duration, Doc: "k8s LeaseDuration, default 15s"},
		{Key: "renew_deadline", Kind: registry.Duration, Doc: "k8s RenewDeadline, default 10s"},
		{Key: "retry_period", Kind: registry.Duration, Doc: "RetryPeriod (all flavours), default 2s"},
		{Key: "jitter_factor", Kind: registry.Float, Min: 0, Max: 100, Doc: "JitterFactor, default 1.2"},
		{Key: "release_on_cancel", Kind: registry.Bool, Doc: "release the lease on resign, default false"},
		{Key: "identity", Kind: registry.Enum, Enum: []string{IdentityNode, IdentityProcess}, Doc: "k8s: the holder identity: node (the node's name: a restarted candidate resumes its own lease) or process (name_UUID drawn at each boot, as kube-controller-manager's hostname_UUID: a restarted candidate waits out the lease it observes); default node"},
		{Key: "ttl", Kind: registry.Duration, Doc: "ttl: key TTL by the store's clock, default 10s"},
		{Key: "expiry_clock", Kind: registry.Enum, Enum: []string{string(ExpiryWall), string(ExpiryMonotonic)}, Doc: "ttl: the store clock that expires the key: wall (Redis) or monotonic; default wall"},
		{Key: "renew_interval", Kind: registry.Duration, Doc: "ttl: renewal interval, default ttl/3"},
		{Key: "clock_drift_factor", Kind: registry.Float, Min: 0, Max: 1, Doc: "ttl: Redlock drift factor, default 0.01"},
		{Key: "clock_drift_margin", Kind: registry.Duration, Doc: "ttl: Redlock constant margin, default 2ms"},
		{Key: "validity_check", Kind: registry.Enum, Enum: []string{string(CheckNever), string(CheckBeforeEachAction), string(CheckEvery)}, Doc: "ttl, redlock: when the application compares its clock with the lock's validity (go-redsync Mutex.Until): never (stops only when an extension fails), before_each_action (stops at the validity deadline when it next runs) or every (each validity_check_interval); default never, the go-redsync README's usage"},
		{Key: "validity_check_interval", Kind: registry.Duration, Doc: "ttl, redlock: the check interval of validity_check every"},
		{Key: "persistence", Kind: registry.Enum, Enum: persistenceWords(), Doc: "ttl, redlock: every Redis store's persistence: none, rdb (snapshots by save 3600 1 300 100 60 10000), aof_everysec (loses the last second) or aof_always; default rdb, Redis's shipped configuration (a key set seconds before a restart is lost)"},
		{Key: "persistence_override", Kind: registry.Enum, Enum: persistenceWords(), Doc: "ttl, redlock: the persistence of the stores persistence_override_stores lists"},
		{Key: "persistence_override_stores", Kind: registry.Ints, Doc: "ttl, redlock: 1-based store indexes (1 = store, 2 = store2, …) that use persistence_override"},
		{Key: "lock_at_most_for", Kind: registry.Duration, Doc: "walltime: lock_until ahead of the holder's wall clock, default 30s"},
		{Key: "lock_at_least_for", Kind: registry.Duration, Doc: "walltime: minimum hold on release, default 0"},
		{Key: "extend_interval", Kind: registry.Duration, Doc: "walltime: extension interval, default lock_at_most_for/2"},
		{Key: "unlock", Kind: registry.Enum, Enum: []string{UnlockByName, UnlockByHolder}, Doc: "walltime: the unlock statement's condition: by_name (UPDATE … WHERE name = :name, ShedLock before 7.0.0 and its Mongo, Cassandra, Neo4j, Couchbase, ArangoDB and DynamoDB providers: a holder whose lock expired frees its successor's) or by_holder (… AND locked_by = :lockedBy, ShedLock 7's SQL providers); default by_name"},
		{Key: "task_duration", Kind: registry.Duration, Doc: "walltime: how long the leader's locked task runs before it unlocks and competes again (a failed extension does not stop it), default until the process stops"},
		{Key: "token", Kind: registry.Enum, Enum: []string{TokenNone, TokenFence}, Doc: "the fencing token the leader writes with: none (no library here hands one) or fence, an application addition: ttl, redlock and walltime read a counter the application's acquire script increments (it comes back with the acquire answer); k8s Gets the Lease's leaseTransitions, one more round trip before it acts; default none"},
		{Key: "request_timeout", Kind: registry.Duration, Doc: "store request timeout, default k8s max(1s, renew_deadline/2) (client-go NewFromKubeconfig), ttl and walltime 1s; redlock: the application's own deadline on an extension (ExtendContext), default none (go-redsync's Extend)"},
		{Key: "rejoin_delay", Kind: registry.Duration, Doc: "wait before competing again after losing the lease, default 0"},
		{Key: "shutdown_at", Kind: registry.Duration, Doc: "graceful shutdown (resign) at this monotonic reading, default never"},
	}
}
