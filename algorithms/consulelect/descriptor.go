package consulelect

import (
	"time"

	"github.com/electsim/electsim/registry"
	"github.com/electsim/electsim/sim"
)

// fieldNames are the scenario words for Config's fields (registry.NameBy).
var fieldNames = map[string]string{"Key": "key", "SessionTTL": "session_ttl", "LockDelay": "lock_delay", "Checks": "checks", "Agent": "agent",
	"LockRetryTime": "lock_retry_time", "LockWaitTime": "lock_wait_time", "QueryWait": "query_wait", "RequestTimeout": "request_timeout",
	"KeepAliveInterval": "keepalive_interval", "KeepAliveTimeout": "keepalive_timeout", "RejoinDelay": "rejoin_delay", "Token": "token"}

// Descriptor describes Consul session-lock election for the scenario
// grammar (registry): its runs get a simulated Consul cluster as their
// store node.
func Descriptor() registry.Algorithm {
	return registry.Algorithm{
		Name: "consul", Doc: "Consul session locks as api.Lock takes them (algorithms/consulelect)", Package: "consulelect",
		FieldNames: fieldNames, LeaseStore: true, Contract: Contract,
		States: States,
		Timescale: func(v registry.Values) time.Duration {
			// How long a holder must be cut off before it notices: the
			// server keeps a session 2×TTL; the client's lock watch fails
			// only when its connection's keep-alive ping times out.
			c := DefaultConfig()
			registry.SetDuration(v, "session_ttl", &c.SessionTTL)
			registry.SetDuration(v, "keepalive_interval", &c.KeepAliveInterval)
			registry.SetDuration(v, "keepalive_timeout", &c.KeepAliveTimeout)
			return max(2*c.SessionTTL, c.KeepAliveInterval+c.KeepAliveTimeout)
		},
		NewStore: func(v registry.Values) sim.Node {
			cfg := ServerConfig{}
			registry.SetDuration(v, "probe_interval", &cfg.ProbeInterval)
			registry.SetDuration(v, "serf_timeout", &cfg.SerfTimeout)
			registry.SetInt(v, "suspicion_mult", &cfg.SuspicionMult)
			registry.SetInt(v, "suspicion_max_timeout_mult", &cfg.SuspicionMaxTimeoutMult)
			registry.SetInt(v, "serf_members", &cfg.Members)
			return NewServer(cfg)
		},
		Params: []registry.Param{
			// The ranges Session.Apply accepts (Config.Validate): the TTL
			// within [SessionTTLMin, SessionTTLMax], the lock-delay up to
			// structs.MaxLockDelay; hunt's extremes draw their edges.
			{Key: "session_ttl", Kind: registry.Duration, MinDur: 10 * time.Second, MaxDur: 24 * time.Hour, Doc: "session TTL, renewed every TTL/2, invalidated 2·TTL after the last renewal, within [10s, 24h], default 15s"},
			{Key: "lock_delay", Kind: registry.Duration, MaxDur: 60 * time.Second, Doc: "the session's lock-delay: an invalidated session's keys cannot be locked for this long (server wall clock), within [0, 60s], default 15s"},
			{Key: "checks", Kind: registry.Enum, Enum: []string{ChecksSerf, ChecksNone}, Doc: "health checks the session is bound to: serf (its node's serfHealth, the default) or none (TTL only)"},
			{Key: "agent", Kind: registry.Enum, Enum: []string{AgentSeparate, AgentHost}, Doc: "what a crash or pause of a candidate node stops: separate (the application alone; its agent is another process on the host that outlives the application's crash or pause, so serfHealth passes and only the session TTL ×2 ends the session) or host (the whole host, agent included: a crash or pause of the node fails serfHealth); a partition of the node cuts its host, agent included, and fails serfHealth either way; default separate"},
			{Key: "lock_retry_time", Kind: registry.Duration, Doc: "wait after Acquire failed on a free key (lock-delay), default 5s"},
			{Key: "lock_wait_time", Kind: registry.Duration, Doc: "the wait of Lock's blocking queries on the key (api.DefaultLockWaitTime), default 15s"},
			{Key: "query_wait", Kind: registry.Duration, Doc: "the wait of monitorLock's blocking queries (the server's default query time), default 5m"},
			{Key: "request_timeout", Kind: registry.Duration, Doc: "a request other than a blocking query fails after this (rpc_hold_timeout), default 7s"},
			{Key: "keepalive_interval", Kind: registry.Duration, Doc: "the RPC connection's keep-alive ping interval (yamux), default 30s"},
			{Key: "keepalive_timeout", Kind: registry.Duration, Doc: "an unanswered ping kills the connection after this (yamux ConnectionWriteTimeout), default 10s"},
			{Key: "rejoin_delay", Kind: registry.Duration, Doc: "wait before calling Lock again after losing the lock or a failed Lock, default 0"},
			{Key: "token", Kind: registry.Enum, Enum: []string{TokenNone, TokenLockIndex, TokenModifyIndex}, Doc: "the fencing token the leader writes with: none (api.Lock returns only a channel), lock_index or modify_index (the application reads the lock key's KVPair field with a KV Get: one more round trip before it acts, an application addition); default none"},
			{Key: "probe_interval", Kind: registry.Duration, Single: true, Doc: "server: serf's probe interval, default 1s"},
			{Key: "suspicion_mult", Kind: registry.Int, Min: 2, Max: 100, Single: true, Doc: "server: memberlist's SuspicionMult: a suspect node dies SuspicionMult × max(1, log10 n) × probe_interval after suspicion began, once SuspicionMult − 2 others confirmed it, default 4"},
			{Key: "suspicion_max_timeout_mult", Kind: registry.Int, Min: 1, Max: 100, Single: true, Doc: "server: memberlist's SuspicionMaxTimeoutMult: an unconfirmed suspicion lasts this many times the minimum, default 6"},
			{Key: "serf_members", Kind: registry.Int, Min: 0, Max: 100000, Single: true, Doc: "server: n, the serf members memberlist counts; 0 = the nodes that contacted the server + 1, default 0"},
			{Key: "serf_timeout", Kind: registry.Duration, Single: true, Doc: "server: > 0 replaces memberlist's suspicion with a fixed delay: a node unheard this long fails serfHealth, default 0 (memberlist)"},
		},
		Token: func(v registry.Values) registry.Token {
			if v.Has("token") && v.String("token") != TokenNone {
				return registry.Token{Source: v.String("token"), AppRead: true, Cost: "one KV Get round trip after Lock returns, before the leader acts"}
			}
			return registry.Token{Source: registry.TokenNone, Add: "algorithm.token: lock_index (an application addition: one extra KV Get of the lock key before the leader acts)"}
		},
		Build: func(v registry.Values, n int, _ *sim.Rand) (registry.Factory, error) {
			c := DefaultConfig()
			registry.SetDuration(v, "session_ttl", &c.SessionTTL)
			registry.SetDuration(v, "lock_delay", &c.LockDelay)
			if v.Has("checks") {
				c.Checks = v.String("checks")
			}
			if v.Has("agent") {
				c.Agent = v.String("agent")
			}
			registry.SetDuration(v, "lock_retry_time", &c.LockRetryTime)
			registry.SetDuration(v, "lock_wait_time", &c.LockWaitTime)
			registry.SetDuration(v, "query_wait", &c.QueryWait)
			registry.SetDuration(v, "request_timeout", &c.RequestTimeout)
			registry.SetDuration(v, "keepalive_interval", &c.KeepAliveInterval)
			registry.SetDuration(v, "keepalive_timeout", &c.KeepAliveTimeout)
			registry.SetDuration(v, "rejoin_delay", &c.RejoinDelay)
			if v.Has("token") {
				c.Token = v.String("token")
			}
			if err := c.validate(registry.NameBy(fieldNames)); err != nil {
				return nil, err
			}
			return func(_ []sim.NodeID, svc registry.Services) sim.Node { return MustNew(c, svc.LeaseStore) }, nil
		},
	}
}
