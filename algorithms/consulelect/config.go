package consulelect

import (
	"time"

	"github.com/electsim/electsim/registry"
)

// Health-check bindings of a lock's session.
const (
	// ChecksSerf binds the session to its node's serfHealth check, the
	// server's default when a session names no checks (api.Lock's
	// sessions name none).
	ChecksSerf = "serf"
	// ChecksNone binds it to no check: only its TTL ends it
	// (SessionEntry{Checks: []string{}}).
	ChecksNone = "none"
)

// Where a candidate's Consul agent runs (Config.Agent).
const (
	// AgentSeparate: the candidate node's process is the application
	// alone; its agent is a separate process on the same host (Consul's
	// deployment: one client agent per host, the application talks to it
	// over localhost), modelled as the node's sim.HostAgent. A crash or
	// pause of the candidate is the application's: the agent keeps
	// answering serf, serfHealth keeps passing, and only the session's TTL
	// (×2, session_ttl.go) ends its session. A link fault of the
	// candidate is the host's: it cuts the agent too, and serfHealth fails
	// as with AgentHost. The model has no fault of the agent alone.
	AgentSeparate = "separate"
	// AgentHost: the candidate node is its whole host, agent included: a
	// crash or pause of the node is the host's (a machine crash, a VM
	// freeze) and silences the agent too, and a partition cuts both, so
	// serfHealth fails (electsim's model before 2026-11-29).
	AgentHost = "host"
)

// Config holds a candidate's parameters. Start from DefaultConfig.
type Config struct {
	// Key is the lock's KV key (api.LockOptions.Key, the application's
	// choice). Default "leader".
	Key string
	// SessionTTL is the session's TTL; the client renews every TTL/2 and
	// the server invalidates the session 2·TTL after the last renewal.
	// Default 15s (api.DefaultLockSessionTTL).
	SessionTTL time.Duration
	// LockDelay is the session's lock-delay: after it is invalidated, the
	// keys it held cannot be locked for this long. Default 15s (the
	// server's default); 0 turns it off.
	LockDelay time.Duration
	// Checks is ChecksSerf (default) or ChecksNone.
	Checks string
	// Agent is AgentSeparate (default) or AgentHost: what a crash or
	// pause of the candidate node stops, the application alone or its
	// whole host with its agent. A partition of the node cuts its host,
	// agent included, either way.
	Agent string
	// LockRetryTime is how long Lock waits after Acquire failed on a free
	// key (a lock-delay in force). Default 5s (api.DefaultLockRetryTime).
	LockRetryTime time.Duration
	// LockWaitTime is the wait of Lock's own blocking queries while it
	// waits for the key (api.DefaultLockWaitTime). Default 15s.
	LockWaitTime time.Duration
	// QueryWait is the wait of monitorLock's blocking queries, which name
	// none: the server's default query time. Default 5m.
	QueryWait time.Duration
	// RequestTimeout is how long a request that is not a blocking query
	// may go unanswered before it fails: the agent's rpc_hold_timeout,
	// for which it retries an RPC the servers cannot serve. A blocking
	// query may take QueryWait + QueryWait/16 longer. Default 7s.
	RequestTimeout time.Duration
	// KeepAliveInterval is how often the RPC connection is pinged
	// (yamux KeepAliveInterval). Default 30s.
	KeepAliveInterval time.Duration
	// KeepAliveTimeout is how long a ping may go unanswered before the
	// connection is declared dead and every request on it fails (yamux
	// ConnectionWriteTimeout). Default 10s.
	KeepAliveTimeout time.Duration
	// RejoinDelay is how long a candidate that lost the lock, or whose
	// Lock call failed, waits before it calls Lock again. Default 0.
	RejoinDelay time.Duration
	// Token is the fencing token the leader writes with: TokenNone (the
	// default: api.Lock's Lock returns only a <-chan struct{}, api/lock.go),
	// TokenLockIndex or TokenModifyIndex: the lock key's KVPair field, which
	// the application reads with a KV Get after Lock returns and before it
	// acts: one more round trip (an application addition; a Get that times
	// out is sent again, delaying the act).
	Token string
}

// The values of Config.Token.
const (
	TokenNone        = "none"
	TokenLockIndex   = "lock_index"
	TokenModifyIndex = "modify_index"
)

// DefaultConfig returns the defaults.
func DefaultConfig() Config {
	return Config{Key: "leader", SessionTTL: 15 * time.Second, LockDelay: 15 * time.Second, Checks: ChecksSerf, Agent: AgentSeparate,
		LockRetryTime: 5 * time.Second, LockWaitTime: 15 * time.Second, QueryWait: 5 * time.Minute, RequestTimeout: 7 * time.Second,
		KeepAliveInterval: 30 * time.Second, KeepAliveTimeout: 10 * time.Second, Token: TokenNone}
}

// serfCanFail reports whether the session is bound to its node's
// serfHealth check, which fails when the node's host is cut off (either
// agent) or crashes or pauses with it (AgentHost).
func (c Config) serfCanFail() bool { return c.Checks == ChecksSerf }

// Validate reports the first invalid field, naming Go fields.
func (c Config) Validate() error { return c.validate(registry.GoName) }

func (c Config) validate(n registry.Namer) error {
	fail := func(fields []string, format string, args ...any) error {
		return registry.Fail("consulelect", fields, format, args...)
	}
	positive := []struct {
		name string
		d    time.Duration
	}{{"LockRetryTime", c.LockRetryTime}, {"LockWaitTime", c.LockWaitTime}, {"QueryWait", c.QueryWait}, {"RequestTimeout", c.RequestTimeout}, {"KeepAliveInterval", c.KeepAliveInterval}, {"KeepAliveTimeout", c.KeepAliveTimeout}}
	switch {
	case c.Key == "":
		return fail([]string{"Key"}, "%s must not be empty", n("Key"))
	case c.SessionTTL < 10*time.Second || c.SessionTTL > 24*time.Hour:
		// Session.Apply rejects TTLs outside [SessionTTLMin, SessionTTLMax].
		return fail([]string{"SessionTTL"}, "%s must be within [10s, 24h] (Consul's session_ttl_min and maximum), got %v", n("SessionTTL"), c.SessionTTL)
	case c.LockDelay < 0 || c.LockDelay > time.Minute:
		// structs.MaxLockDelay is 60s.
		return fail([]string{"LockDelay"}, "%s must be within [0, 60s], got %v", n("LockDelay"), c.LockDelay)
	case c.Checks != ChecksSerf && c.Checks != ChecksNone:
		return fail([]string{"Checks"}, "%s must be %q or %q, got %q", n("Checks"), ChecksSerf, ChecksNone, c.Checks)
	case c.Agent != AgentSeparate && c.Agent != AgentHost:
		return fail([]string{"Agent"}, "%s must be %q or %q, got %q", n("Agent"), AgentSeparate, AgentHost, c.Agent)
	case c.RejoinDelay < 0:
		return fail([]string{"RejoinDelay"}, "%s must not be negative, got %v", n("RejoinDelay"), c.RejoinDelay)
	case c.Token != TokenNone && c.Token != TokenLockIndex && c.Token != TokenModifyIndex:
		return fail([]string{"Token"}, "%s must be %q, %q or %q, got %q", n("Token"), TokenNone, TokenLockIndex, TokenModifyIndex, c.Token)
	}
	for _, p := range positive {
		if p.d <= 0 {
			return fail([]string{p.name}, "%s must be positive, got %v", n(p.name), p.d)
		}
	}
	return nil
}
