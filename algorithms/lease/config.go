package lease

import (
	"slices"
	"time"

	"github.com/electsim/electsim/registry"
)

// The flavours (Config.Flavor).
const (
	// FlavorK8s imitates client-go tools/leaderelection.
	FlavorK8s = "k8s"
	// FlavorTTL imitates a Redis SET NX PX lock renewed by check-and-PEXPIRE.
	FlavorTTL = "ttl"
	// FlavorWallTime imitates ShedLock's lock_until with KeepAliveLockProvider.
	FlavorWallTime = "walltime"
	// FlavorRedlock imitates Redlock over independent Redis masters, as
	// go-redsync implements it (mutex.go).
	FlavorRedlock = "redlock"
)

// Flavors lists the flavours.
var Flavors = []string{FlavorK8s, FlavorTTL, FlavorWallTime, FlavorRedlock}

// Config holds a lease candidate's parameters. Start from DefaultConfig; a
// literal that omits fields gets zero values, which Validate rejects.
type Config struct {
	// Flavor selects the mechanism: "k8s", "ttl" or "walltime". Default "k8s".
	Flavor string
	// Key names the lease record in the store. Default "leader".
	Key string

	// LeaseDuration (k8s) is how long a non-leader waits, by its own
	// monotonic clock, after it last saw the record change before it may
	// take the lease. The record carries it in whole seconds, as client-go
	// writes leaseDurationSeconds. Default 15s (client-go's core clients).
	LeaseDuration time.Duration
	// RenewDeadline (k8s) is how long a leader's renewal round may retry
	// before the leader gives up. Default 10s.
	RenewDeadline time.Duration
	// RetryPeriod is the base wait between acquisition attempts (all
	// flavours) and between a k8s leader's renewals. Default 2s.
	RetryPeriod time.Duration
	// JitterFactor stretches each wait between acquisition attempts to
	// RetryPeriod + U[0,1)·JitterFactor·RetryPeriod (apimachinery
	// wait.Jitter). Default 1.2 (client-go's JitterFactor).
	JitterFactor float64
	// ReleaseOnCancel makes Resign (and, for k8s, a lost renewal) release
	// the lease: k8s writes an empty holder with a 1s lease duration, ttl
	// deletes the key if still ours, walltime sets lock_until to
	// max(now, locked_at + LockAtLeastFor). Default false: the lease is
	// left to expire.
	ReleaseOnCancel bool
	// Identity (k8s) is the holder identity a candidate writes:
	// IdentityNode (default: the node's name, as a client-go application
	// passing its pod or host name: a restarted candidate is the same
	// holder and renews its lease at once) or IdentityProcess (the name
	// and a UUID drawn at every boot, as kube-controller-manager's
	// hostname_UUID: a restarted candidate is a new one and waits until
	// the lease it observes has not been renewed for its duration).
	Identity string

	// TTL (ttl) is the key's time to live, counted by the store's clock.
	// Default 10s.
	TTL time.Duration
	// ExpiryClock (ttl) is the store clock that judges the key's TTL:
	// ExpiryWall (Redis, the default) or ExpiryMonotonic (a lease service on
	// monotonic time, for comparison).
	ExpiryClock ExpiryClock
	// RenewInterval (ttl) is how often the holder renews. Default TTL/3.
	RenewInterval time.Duration
	// ClockDriftFactor (ttl) shortens the holder's own estimate of its
	// lease: it believes it leads until TTL − TTL·ClockDriftFactor −
	// ClockDriftMargin after it sent the last successful SET or renewal
	// (Redlock's validity time). Default 0.01.
	ClockDriftFactor float64
	// ClockDriftMargin (ttl) is the constant part of that margin. Default
	// 2ms (the Redlock reference implementations).
	ClockDriftMargin time.Duration

	// ValidityCheck (ttl, redlock) is when the application compares its
	// clock with the lock's validity (go-redsync's Mutex.Until; the
	// library starts no timer). The holder stops acting when a check
	// finds the validity over, or when an extension fails (Extend returns
	// false). Default CheckNever: the go-redsync README's usage (Lock, do
	// the work, Unlock) never looks at Until.
	ValidityCheck ValidityCheck
	// ValidityCheckInterval (ttl, redlock) is D of CheckEvery: the
	// application checks every D from the start of its tenure.
	ValidityCheckInterval time.Duration
	// Persistence (ttl, redlock) is every Redis store's persistence mode
	// (a scenario's stores; StoreConfig.Persistence). Default PersistRDB,
	// Redis's shipped configuration. The k8s and walltime flavours' stores
	// are durable (etcd, a database) and ignore it.
	Persistence Persistence
	// PersistenceOverride (ttl, redlock), if set, is the persistence mode
	// of the stores PersistenceOverrideStores lists.
	PersistenceOverride Persistence
	// PersistenceOverrideStores are 1-based store indexes (1 = store,
	// 2 = store2, …) that use PersistenceOverride.
	PersistenceOverrideStores []int

	// Masters (redlock) is the number of independent Redis masters, each
	// its own store node with its own clocks. Default 5 (the Redlock
	// spec's example); a lock needs Masters/2+1 of them (go-redsync's
	// quorum).
	Masters int
	// TimeoutFactor (redlock) bounds one acquisition round: every master's
	// SET NX must answer within TTL·TimeoutFactor (go-redsync's
	// timeoutFactor, default 0.05).
	TimeoutFactor float64
	// RedisReadTimeout (redlock) is each master's go-redis client's
	// ReadTimeout: an attempt's reply is awaited this long. Default 5s
	// (go-redis v9.22.0 options.go; 3s before).
	RedisReadTimeout time.Duration
	// RedisDialTimeout (redlock) bounds each dial of a new connection.
	// Default 5s (go-redis DialTimeout).
	RedisDialTimeout time.Duration
	// RedisMaxRetries (redlock) is go-redis's MaxRetries: a command is
	// tried up to RedisMaxRetries+1 times. Default 3. 0 here means no
	// retries (go-redis's -1).
	RedisMaxRetries int
	// RedisDialerRetries (redlock) is go-redis's DialerRetries: dials per
	// attempt, 100ms apart. Default 5 (v9.16.0 and later; 1 before).
	RedisDialerRetries int
	// ContextTimeoutEnabled (redlock) is go-redis's option of that name:
	// a round's context deadline (the acquisition's TTL·TimeoutFactor,
	// RequestTimeout on an extension) also cuts a socket read short.
	// Default false, go-redis's: the deadline only stops retries and dials.
	ContextTimeoutEnabled bool
	// SetNXOnExtend (redlock) makes each extension also set the key on
	// masters where it is absent (go-redsync's WithSetNXOnExtend option),
	// so a holder that won on a bare majority comes to hold every master
	// it reaches. Default false (go-redsync's default).
	SetNXOnExtend bool

	// LockAtMostFor (walltime) is how far ahead of its own wall clock the
	// holder writes lock_until. Default 30s (KeepAliveLockProvider's
	// minimum).
	LockAtMostFor time.Duration
	// LockAtLeastFor (walltime) keeps a released lock until locked_at +
	// LockAtLeastFor. Default 0.
	LockAtLeastFor time.Duration
	// ExtendInterval (walltime) is how often the holder extends lock_until.
	// Default LockAtMostFor/2 (KeepAliveLockProvider).
	ExtendInterval time.Duration
	// Unlock (walltime) is the unlock statement's condition: UnlockByName
	// (the default) updates the row by name alone, as ShedLock's SQL
	// providers did before 7.0.0 (SqlStatementsSource.getUnlockStatement)
	// and its Mongo, Cassandra, Neo4j, Couchbase, ArangoDB and DynamoDB
	// providers still do, so a holder whose lock expired releases its
	// successor's; UnlockByHolder adds "AND locked_by = :lockedBy"
	// (ShedLock 7's SQL providers, jOOQ).
	Unlock string
	// TaskDuration (walltime) is how long the leader's task — the section
	// the lock guards — runs after it took the lock; then it unlocks and
	// competes again. A failed extension does not end it (ShedLock's
	// keep-alive only stops extending). Default 0: the task runs until the
	// process stops.
	TaskDuration time.Duration

	// RequestTimeout is how long a candidate waits for the store's reply
	// before treating the request as failed (the client's HTTP or socket
	// timeout). 0, the default, means the flavour's client default: for k8s
	// max(1s, RenewDeadline/2), the REST client timeout client-go's
	// resourcelock.NewFromKubeconfig sets (so a release against an
	// unreachable API server blocks that long while the leader still acts);
	// 1s for ttl and walltime. For redlock it is the application's own
	// deadline on an extension (the context it passes to ExtendContext),
	// 0 none: go-redsync's Extend() passes context.Background(), and the
	// round lasts as long as the slowest master's go-redis call.
	RequestTimeout time.Duration
	// RejoinDelay is how long a candidate that lost the lease waits before
	// it competes again with fresh state, as a supervisor restarting the
	// process would (kube components exit when they stop leading).
	// Default 0.
	RejoinDelay time.Duration
	// ShutdownAt, if positive, is the reading of the candidate's monotonic
	// clock at which it shuts down gracefully (Resign). Default 0: never.
	ShutdownAt time.Duration
	// Token is the fencing token the leader writes with: TokenNone (the
	// default: none of the libraries hands one — client-go's
	// OnStartedLeading gets only a context, go-redsync's Mutex has
	// Name/Value/Until, ShedLock's LockProvider returns only a lock) or
	// TokenFence, an application addition: ttl, redlock and walltime read
	// a counter the application's own acquire script/statement increments
	// (ttl: INCR key:fence in the SET NX script; redlock: the highest of
	// the masters' INCRs; walltime: the row's acquiring revision), which
	// comes back with the acquire answer; k8s reads the Lease's
	// leaseTransitions with one more Get after OnStartedLeading and acts
	// only when it answers (a Get that times out is sent again).
	Token string

	// zooHalfQuorum is internal/bugzoo's planted Redlock bug (zoohook.go);
	// always false outside its tests.
	zooHalfQuorum bool
}

// The values of Config.Unlock.
const (
	UnlockByName   = "by_name"
	UnlockByHolder = "by_holder"
)

// The values of Config.Token.
const (
	TokenNone  = "none"
	TokenFence = "fence"
)

// DefaultConfig returns client-go's defaults (15s/10s/2s, jitter 1.2) for
// the k8s flavour, a 10s TTL renewed every TTL/3 with Redlock's 1% + 2ms drift
// margin, and ShedLock's 30s lockAtMostFor extended every 15s.
// Holder identities of a k8s candidate (Config.Identity).
const (
	IdentityNode    = "node"
	IdentityProcess = "process"
)

func DefaultConfig() Config {
	return Config{
		Flavor:             FlavorK8s,
		Key:                "leader",
		LeaseDuration:      15 * time.Second,
		RenewDeadline:      10 * time.Second,
		RetryPeriod:        2 * time.Second,
		JitterFactor:       1.2,
		TTL:                10 * time.Second,
		ExpiryClock:        ExpiryWall,
		Masters:            5,
		TimeoutFactor:      0.05,
		RedisReadTimeout:   5 * time.Second,
		RedisDialTimeout:   5 * time.Second,
		RedisMaxRetries:    3,
		RedisDialerRetries: 5,
		ClockDriftFactor:   0.01,
		ClockDriftMargin:   2 * time.Millisecond,
		ValidityCheck:      CheckNever,
		Persistence:        PersistRDB,
		LockAtMostFor:      30 * time.Second,
		Unlock:             UnlockByName,
		Token:              TokenNone,
	}
}

// requestTimeout returns RequestTimeout or the flavour's client default.
func (c Config) requestTimeout() time.Duration {
	switch {
	case c.RequestTimeout > 0:
		return c.RequestTimeout
	case c.Flavor == FlavorK8s:
		return max(time.Second, c.RenewDeadline/2) // resourcelock.NewFromKubeconfig
	default:
		return time.Second
	}
}

// StorePersistence is the persistence mode of store k (1-based) for this
// configuration: PersistDurable for the k8s and walltime flavours.
func (c Config) StorePersistence(k int) Persistence {
	if c.Flavor != FlavorTTL && c.Flavor != FlavorRedlock {
		return PersistDurable
	}
	if c.PersistenceOverride != "" && slices.Contains(c.PersistenceOverrideStores, k) {
		return c.PersistenceOverride
	}
	return c.Persistence
}

// MaxMasters bounds Config.Masters.
const MaxMasters = 15 // at most 32: redlockState.answered is a bit per master

// stores is how many store nodes the flavour talks to.
func (c Config) stores() int {
	if c.Flavor == FlavorRedlock {
		return c.Masters
	}
	return 1
}

// renewInterval returns RenewInterval or its default.
func (c Config) renewInterval() time.Duration {
	if c.RenewInterval > 0 {
		return c.RenewInterval
	}
	return c.TTL / 3
}

// extendInterval returns ExtendInterval or its default.
func (c Config) extendInterval() time.Duration {
	if c.ExtendInterval > 0 {
		return c.ExtendInterval
	}
	return c.LockAtMostFor / 2
}

// drift returns the ttl holder's safety margin.
func (c Config) drift() time.Duration {
	return time.Duration(float64(c.TTL)*c.ClockDriftFactor) + c.ClockDriftMargin
}

// Validate reports the first invalid field. The k8s checks are client-go's
// NewLeaderElector checks.
func (c Config) Validate() error { return c.validate(registry.GoName) }

// validate is Validate with fields named by n (Build passes its scenario words).
func (c Config) validate(n registry.Namer) error {
	fail := func(fields []string, format string, args ...any) error {
		return registry.Fail("lease", fields, format, args...)
	}
	switch {
	case c.Flavor != FlavorK8s && c.Flavor != FlavorTTL && c.Flavor != FlavorWallTime && c.Flavor != FlavorRedlock:
		return fail([]string{"Flavor"}, "%s must be %q, %q, %q or %q, got %q", n("Flavor"), FlavorK8s, FlavorTTL, FlavorWallTime, FlavorRedlock, c.Flavor)
	case c.Key == "":
		return fail([]string{"Key"}, "%s must not be empty", n("Key"))
	case c.Token != TokenNone && c.Token != TokenFence:
		return fail([]string{"Token"}, "%s must be %q or %q, got %q", n("Token"), TokenNone, TokenFence, c.Token)
	case c.RetryPeriod <= 0:
		return fail([]string{"RetryPeriod"}, "%s must be positive, got %v", n("RetryPeriod"), c.RetryPeriod)
	case c.JitterFactor < 0:
		return fail([]string{"JitterFactor"}, "%s must not be negative, got %v", n("JitterFactor"), c.JitterFactor)
	case c.RequestTimeout < 0:
		return fail([]string{"RequestTimeout"}, "%s must not be negative, got %v", n("RequestTimeout"), c.RequestTimeout)
	case c.RejoinDelay < 0:
		return fail([]string{"RejoinDelay"}, "%s must not be negative, got %v", n("RejoinDelay"), c.RejoinDelay)
	case c.ShutdownAt < 0:
		return fail([]string{"ShutdownAt"}, "%s must not be negative, got %v", n("ShutdownAt"), c.ShutdownAt)
	case c.Identity != "" && c.Identity != IdentityNode && c.Identity != IdentityProcess:
		return fail([]string{"Identity"}, "%s must be %q or %q, got %q", n("Identity"), IdentityNode, IdentityProcess, c.Identity)
	}
	switch c.Flavor {
	case FlavorK8s:
		switch {
		case c.LeaseDuration < time.Second:
			return fail([]string{"LeaseDuration"}, "%s must be at least 1s (the record keeps whole seconds), got %v", n("LeaseDuration"), c.LeaseDuration)
		case c.LeaseDuration <= c.RenewDeadline:
			return fail([]string{"LeaseDuration", "RenewDeadline"}, "%s (%v) must be greater than %s (%v)", n("LeaseDuration"), c.LeaseDuration, n("RenewDeadline"), c.RenewDeadline)
		case c.RenewDeadline <= time.Duration(c.JitterFactor*float64(c.RetryPeriod)):
			return fail([]string{"RenewDeadline", "RetryPeriod", "JitterFactor"}, "%s (%v) must be greater than %s*%s (%v)", n("RenewDeadline"), c.RenewDeadline, n("RetryPeriod"), n("JitterFactor"), time.Duration(c.JitterFactor*float64(c.RetryPeriod)))
		}
	case FlavorTTL, FlavorRedlock:
		switch {
		case c.Flavor == FlavorRedlock && (c.Masters < 1 || c.Masters > MaxMasters):
			return fail([]string{"Masters"}, "%s must be in 1..%d, got %d", n("Masters"), MaxMasters, c.Masters)
		case c.Flavor == FlavorRedlock && (c.TimeoutFactor <= 0 || c.TimeoutFactor >= 1):
			return fail([]string{"TimeoutFactor"}, "%s must be in (0, 1), got %v", n("TimeoutFactor"), c.TimeoutFactor)
		case c.Flavor == FlavorRedlock && (c.RedisReadTimeout <= 0 || c.RedisDialTimeout <= 0):
			return fail([]string{"RedisReadTimeout", "RedisDialTimeout"}, "%s and %s must be positive, got %v and %v", n("RedisReadTimeout"), n("RedisDialTimeout"), c.RedisReadTimeout, c.RedisDialTimeout)
		case c.Flavor == FlavorRedlock && (c.RedisMaxRetries < 0 || c.RedisDialerRetries < 1):
			return fail([]string{"RedisMaxRetries", "RedisDialerRetries"}, "%s must not be negative and %s must be at least 1, got %d and %d", n("RedisMaxRetries"), n("RedisDialerRetries"), c.RedisMaxRetries, c.RedisDialerRetries)
		case c.TTL <= 0:
			return fail([]string{"TTL"}, "%s must be positive, got %v", n("TTL"), c.TTL)
		case c.ExpiryClock != "" && c.ExpiryClock != ExpiryWall && c.ExpiryClock != ExpiryMonotonic:
			return fail([]string{"ExpiryClock"}, "%s must be %q or %q, got %q", n("ExpiryClock"), ExpiryWall, ExpiryMonotonic, c.ExpiryClock)
		case c.RenewInterval < 0 || c.renewInterval() <= 0 || c.renewInterval() >= c.TTL:
			return fail([]string{"RenewInterval", "TTL"}, "%s (%v) must be in (0, %s=%v)", n("RenewInterval"), c.renewInterval(), n("TTL"), c.TTL)
		case c.ClockDriftFactor < 0 || c.ClockDriftFactor >= 1:
			return fail([]string{"ClockDriftFactor"}, "%s must be in [0, 1), got %v", n("ClockDriftFactor"), c.ClockDriftFactor)
		case c.ClockDriftMargin < 0:
			return fail([]string{"ClockDriftMargin"}, "%s must not be negative, got %v", n("ClockDriftMargin"), c.ClockDriftMargin)
		case c.drift() >= c.TTL:
			return fail([]string{"TTL"}, "the drift margin (%v) leaves no validity within %s (%v)", c.drift(), n("TTL"), c.TTL)
		case c.ValidityCheck != CheckNever && c.ValidityCheck != CheckBeforeEachAction && c.ValidityCheck != CheckEvery:
			return fail([]string{"ValidityCheck"}, "%s must be %q, %q or %q, got %q", n("ValidityCheck"), CheckBeforeEachAction, CheckNever, CheckEvery, c.ValidityCheck)
		case c.ValidityCheck == CheckEvery && c.ValidityCheckInterval <= 0:
			return fail([]string{"ValidityCheckInterval"}, "%s must be positive with %s %s, got %v", n("ValidityCheckInterval"), n("ValidityCheck"), CheckEvery, c.ValidityCheckInterval)
		case c.ValidityCheck != CheckEvery && c.ValidityCheckInterval != 0:
			return fail([]string{"ValidityCheckInterval"}, "%s applies only to %s %s", n("ValidityCheckInterval"), n("ValidityCheck"), CheckEvery)
		case c.Persistence == PersistDurable || !c.Persistence.valid():
			return fail([]string{"Persistence"}, "%s must be %q, %q, %q or %q, got %q", n("Persistence"), PersistNone, PersistRDB, PersistAOFEverySec, PersistAOFAlways, c.Persistence)
		case c.PersistenceOverride != "" && !c.PersistenceOverride.valid():
			return fail([]string{"PersistenceOverride"}, "%s must be %q, %q, %q or %q, got %q", n("PersistenceOverride"), PersistNone, PersistRDB, PersistAOFEverySec, PersistAOFAlways, c.PersistenceOverride)
		case len(c.PersistenceOverrideStores) > 0 && c.PersistenceOverride == "":
			return fail([]string{"PersistenceOverrideStores"}, "%s needs %s", n("PersistenceOverrideStores"), n("PersistenceOverride"))
		}
		for _, k := range c.PersistenceOverrideStores {
			if stores := c.stores(); k < 1 || k > stores {
				return fail([]string{"PersistenceOverrideStores"}, "%s: store %d is not in 1..%d", n("PersistenceOverrideStores"), k, stores)
			}
		}
	case FlavorWallTime:
		switch {
		case c.LockAtMostFor <= 0:
			return fail([]string{"LockAtMostFor"}, "%s must be positive, got %v", n("LockAtMostFor"), c.LockAtMostFor)
		case c.LockAtLeastFor < 0:
			return fail([]string{"LockAtLeastFor"}, "%s must not be negative, got %v", n("LockAtLeastFor"), c.LockAtLeastFor)
		case c.Unlock != UnlockByName && c.Unlock != UnlockByHolder:
			return fail([]string{"Unlock"}, "%s must be %q or %q, got %q", n("Unlock"), UnlockByName, UnlockByHolder, c.Unlock)
		case c.TaskDuration < 0:
			return fail([]string{"TaskDuration"}, "%s must not be negative, got %v", n("TaskDuration"), c.TaskDuration)
		case c.ExtendInterval < 0 || c.extendInterval() <= 0 || c.extendInterval() >= c.LockAtMostFor:
			return fail([]string{"ExtendInterval", "LockAtMostFor"}, "%s (%v) must be in (0, %s=%v)", n("ExtendInterval"), c.extendInterval(), n("LockAtMostFor"), c.LockAtMostFor)
		}
	}
	return nil
}
