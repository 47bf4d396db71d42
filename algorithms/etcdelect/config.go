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
}

// DefaultConfig returns the defaults.
func DefaultConfig() Config {
	return Config{Name: "leader", TTL: 60 * time.Second, RequestTimeout: 5 * time.Second}
}

// keepAliveRetry is clientv3's keep-alive send loop period (lease.go,
// sendKeepAliveLoop: every 500 ms it sends for leases whose next keep-alive
// time has passed).
const keepAliveRetry = 500 * time.Millisecond

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
