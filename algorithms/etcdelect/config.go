package etcdelect

import (
	"time"

	"github.com/electsim/electsim/registry"
)

// Config holds a candidate's parameters. Start from DefaultConfig.
type Config struct {
	// Name is the election name (concurrency.NewElection's prefix). Default
	// "leader".
	Name string
	// TTL is the session's lease TTL (concurrency.WithTTL). Default 60s,
	// concurrency.NewSession's default.
	TTL time.Duration
	// RequestTimeout bounds a Grant, Put, Range or Delete; a request that
	// times out is sent again. Keep-alives are not bounded: the session's
	// deadline is. Default 5s.
	RequestTimeout time.Duration
	// RejoinDelay is how long a candidate whose session ended waits before
	// it starts a new session and campaigns again. Default 0.
	RejoinDelay time.Duration
	// FirstKeepAliveTimeout is the session's deadline before the first
	// keep-alive reply (client/v3/lease.go, KeepAlive: deadline = now +
	// firstKeepAliveTimeout, which NewLease sets to the client's
	// DialTimeout + 1s, or defaultTTL 5s when DialTimeout is unset, the
	// clientv3.Config default). Default 5s.
	FirstKeepAliveTimeout time.Duration

	// zooLeadOnDelete is internal/bugzoo's planted election bug
	// (zoohook.go); always false outside its tests.
	zooLeadOnDelete bool
}

// DefaultConfig returns the defaults.
func DefaultConfig() Config {
	return Config{Name: "leader", TTL: 60 * time.Second, RequestTimeout: 5 * time.Second, FirstKeepAliveTimeout: 5 * time.Second}
}

// The client's two loops (client/v3/lease.go, etcd main at c34dc7ee, as
// v3.6): both start when the process first calls KeepAlive (the first
// session's), and each runs on its own period from then on.
const (
	// keepAliveRetry is sendKeepAliveLoop's wait (retryConnWait): at each
	// pass it sends a keep-alive for every lease whose nextKeepAlive has
	// passed, so a keep-alive goes out on the loop's passes and is sent
	// again at every pass until a reply moves nextKeepAlive.
	keepAliveRetry = 500 * time.Millisecond
	// deadlineLoopWait is deadlineLoop's wait: once a pass it closes every
	// keep-alive whose deadline has passed, ending its session, so the
	// session ends up to a pass after its deadline.
	deadlineLoopWait = time.Second
	// passLateness is how much later than its wait each pass of either
	// loop comes. Both loops arm their timer after their work
	// (sendKeepAliveLoop: time.After(retryConnWait) after the sends;
	// deadlineLoop: timer.Reset(time.Second) after the closes), so a pass
	// comes the wait plus the pass's own work plus the Go timer's lateness
	// after the one before, and the loops drift later pass by pass. Go's
	// time.After(500 ms) fired 0.23–0.72 ms late on the reality machine
	// (docs/reality.md, "Measured"); 0.5 ms is taken. It matters: a reply
	// puts nextKeepAlive TTL/3 after it, the second pass after the send
	// comes 2·(500 ms + passLateness) after it, so on a network whose
	// round trip is under 2·passLateness (loopback) that pass sends and
	// keep-alives go every TTL/3 + 1 ms at TTL 3 s — as measured against
	// etcd 3.4 — and on a slower one the third pass does, every
	// TTL/3 + 500 ms.
	passLateness = 500 * time.Microsecond
	// sendLoopPeriod and deadlineLoopPeriod are the loops' periods with
	// the lateness: with no other work in the model, each pass comes one
	// period after the one before.
	sendLoopPeriod     = keepAliveRetry + passLateness
	deadlineLoopPeriod = deadlineLoopWait + passLateness
)

// Validate reports the first invalid field, naming Go fields.
func (c Config) Validate() error { return c.validate(registry.GoName) }

// validate is Validate with fields named by n.
func (c Config) validate(n registry.Namer) error {
	fail := func(fields []string, format string, args ...any) error {
		return registry.Fail("etcdelect", fields, format, args...)
	}
	switch {
	case c.Name == "" || c.Name != cleanName(c.Name):
		return fail([]string{"Name"}, "%s must be a non-empty name without '/', got %q", n("Name"), c.Name)
	case c.TTL < time.Second:
		return fail([]string{"TTL"}, "%s must be at least 1s (etcd leases count whole seconds), got %v", n("TTL"), c.TTL)
	case c.TTL%time.Second != 0:
		return fail([]string{"TTL"}, "%s must be whole seconds (etcd leases count seconds), got %v", n("TTL"), c.TTL)
	case c.RequestTimeout <= 0:
		return fail([]string{"RequestTimeout"}, "%s must be positive, got %v", n("RequestTimeout"), c.RequestTimeout)
	case c.RejoinDelay < 0:
		return fail([]string{"RejoinDelay"}, "%s must not be negative, got %v", n("RejoinDelay"), c.RejoinDelay)
	case c.FirstKeepAliveTimeout <= 0:
		return fail([]string{"FirstKeepAliveTimeout"}, "%s must be positive, got %v", n("FirstKeepAliveTimeout"), c.FirstKeepAliveTimeout)
	}
	return nil
}

func cleanName(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == '/' {
			return ""
		}
	}
	return s
}
