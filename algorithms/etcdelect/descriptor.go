package etcdelect

import (
	"time"

	"github.com/electsim/electsim/registry"
	"github.com/electsim/electsim/sim"
)

// fieldNames are the scenario words for Config's fields (registry.NameBy).
var fieldNames = map[string]string{"TTL": "ttl", "RequestTimeout": "request_timeout", "RejoinDelay": "rejoin_delay", "Name": "name", "FirstKeepAliveTimeout": "first_keepalive_timeout"}

// Descriptor describes etcd election for the scenario grammar (registry):
// its runs get a simulated etcd server as their store node.
func Descriptor() registry.Algorithm {
	return registry.Algorithm{
		Name: "etcd", Doc: "etcd v3 concurrency.Election over leases (algorithms/etcdelect)", Package: "etcdelect",
		FieldNames: fieldNames, LeaseStore: true, Contract: Contract,
		States: States,
		Timescale: func(v registry.Values) time.Duration {
			// How long a leader must be cut off for its session's lease
			// to expire.
			c := DefaultConfig()
			registry.SetDuration(v, "ttl", &c.TTL)
			return c.TTL
		},
		NewStore: func(v registry.Values) sim.Node {
			cfg := ServerConfig{}
			registry.SetDuration(v, "promote_extend", &cfg.PromoteExtend)
			registry.SetDuration(v, "revoke_delay", &cfg.RevokeDelay)
			return NewServer(cfg)
		},
		Params: []registry.Param{
			{Key: "ttl", Kind: registry.Duration, Doc: "session lease TTL (concurrency.WithTTL), whole seconds, default 60s"},
			{Key: "request_timeout", Kind: registry.Duration, Doc: "Grant/Put/Range/Watch/Delete timeout, then sent again, default 5s"},
			{Key: "rejoin_delay", Kind: registry.Duration, Doc: "wait before a new session after the last one ended, default 0"},
			{Key: "first_keepalive_timeout", Kind: registry.Duration, Doc: "the session's deadline until the first keep-alive reply (clientv3 DialTimeout + 1s, or 5s unset), default 5s"},
			{Key: "revoke_delay", Kind: registry.Duration, Single: true, Doc: "server: from the lessor's revoke loop finding a lease expired to its keys' deletion (a raft commit), default 5ms"},
			{Key: "promote_extend", Kind: registry.Duration, Single: true, Doc: "server: what a failover adds to every lease beyond its TTL (lessor Promote), default 1s"},
		},
		Build: func(v registry.Values, n int, _ *sim.Rand) (registry.Factory, error) {
			c := DefaultConfig()
			registry.SetDuration(v, "ttl", &c.TTL)
			registry.SetDuration(v, "request_timeout", &c.RequestTimeout)
			registry.SetDuration(v, "rejoin_delay", &c.RejoinDelay)
			registry.SetDuration(v, "first_keepalive_timeout", &c.FirstKeepAliveTimeout)
			if err := c.validate(registry.NameBy(fieldNames)); err != nil {
				return nil, err
			}
			return func(_ []sim.NodeID, svc registry.Services) sim.Node { return MustNew(c, svc.LeaseStore) }, nil
		},
	}
}
