package zkelect

import (
	"time"

	"github.com/electsim/electsim/registry"
	"github.com/electsim/electsim/sim"
)

// fieldNames are the scenario words for Config's fields (registry.NameBy).
var fieldNames = map[string]string{"SessionTimeout": "session_timeout", "Policy": "policy", "RequestTimeout": "request_timeout", "RejoinDelay": "rejoin_delay", "Name": "name", "CuratorVersion": "curator_version", "Token": "token", "ConnectServers": "connect_servers"}

// Descriptor describes ZooKeeper/Curator LeaderLatch election for the
// scenario grammar (registry): its runs get a simulated ZooKeeper as their
// store node.
func Descriptor() registry.Algorithm {
	return registry.Algorithm{
		Name: "zookeeper", Doc: "ZooKeeper with Curator's LeaderLatch (algorithms/zkelect)", Package: "zkelect",
		FieldNames: fieldNames, LeaseStore: true, Contract: Contract,
		States: States,
		Timescale: func(v registry.Values) time.Duration {
			// How long a leader must be cut off for its session to expire.
			c := DefaultConfig()
			registry.SetDuration(v, "session_timeout", &c.SessionTimeout)
			return c.SessionTimeout
		},
		NewStore: func(v registry.Values) sim.Node {
			cfg := ServerConfig{}
			registry.SetDuration(v, "tick_time", &cfg.TickTime)
			return NewServer(cfg)
		},
		Params: []registry.Param{
			// The negotiable range at the default tickTime (2 s): ZooKeeperServer
			// processConnectRequest clamps a request into [minSessionTimeout,
			// maxSessionTimeout], 2 and 20 ticks unless zoo.cfg says otherwise.
			{Key: "session_timeout", Kind: registry.Duration, MinDur: 4 * time.Second, MaxDur: 40 * time.Second, Doc: "requested session timeout, negotiated into [2, 20] ticks, default 60s"},
			{Key: "policy", Kind: registry.Enum, Enum: []string{PolicyStandard, PolicySession}, Doc: "LeaderLatch's connection-state error policy: standard (give up on SUSPENDED) or session (keep until LOST), default standard"},
			{Key: "request_timeout", Kind: registry.Duration, Doc: "create/children/watch timeout, then sent again, default 5s"},
			{Key: "rejoin_delay", Kind: registry.Duration, Doc: "wait before a new session after LOST, default 0"},
			{Key: "curator_version", Kind: registry.Enum, Enum: CuratorVersions, Doc: "the Curator release whose LeaderLatch reconnection behaviour to follow: 5.3 and earlier reset the latch on RECONNECTED, 5.4 re-checks the children, 5.7 checks the first znode is this session's, 5.8 re-checks whatever the policy; default " + DefaultCuratorVersion},
			{Key: "token", Kind: registry.Enum, Enum: []string{TokenNone, TokenCzxid}, Doc: "the fencing token the leader writes with: none (LeaderLatch hands the application only getOurPath()) or czxid (the application reads its latch znode's creation zxid with exists(): one more round trip before it acts, an application addition); default none"},
			{Key: "connect_servers", Kind: registry.Int, Min: 1, Max: 100, Doc: "servers in the client's connect string: after a disconnection the client sleeps 1 s before it tries again the server it was last connected to (ZooKeeper's StaticHostProvider), so with 1 before every reconnection attempt; default 3"},
			{Key: "tick_time", Kind: registry.Duration, Single: true, Doc: "server: tickTime, bounding session timeouts to [2, 20] ticks and the session-expiry buckets, default 2s (zoo_sample.cfg)"},
		},
		Token: func(v registry.Values) registry.Token {
			if v.Has("token") && v.String("token") == TokenCzxid {
				return registry.Token{Source: TokenCzxid, AppRead: true, Cost: "one exists() round trip to the ensemble on getOurPath() before the leader acts"}
			}
			return registry.Token{Source: registry.TokenNone, Add: "algorithm.token: czxid (an application addition: one extra exists() read of the latch znode before the leader acts)"}
		},
		Build: func(v registry.Values, n int, _ *sim.Rand) (registry.Factory, error) {
			c := DefaultConfig()
			registry.SetDuration(v, "session_timeout", &c.SessionTimeout)
			if v.Has("policy") {
				c.Policy = v.String("policy")
			}
			registry.SetDuration(v, "request_timeout", &c.RequestTimeout)
			registry.SetDuration(v, "rejoin_delay", &c.RejoinDelay)
			if v.Has("curator_version") {
				c.CuratorVersion = v.String("curator_version")
			}
			if v.Has("token") {
				c.Token = v.String("token")
			}
			if v.Has("connect_servers") {
				c.ConnectServers = v.Int("connect_servers")
			}
			if err := c.validate(registry.NameBy(fieldNames)); err != nil {
				return nil, err
			}
			return func(_ []sim.NodeID, svc registry.Services) sim.Node { return MustNew(c, svc.LeaseStore) }, nil
		},
	}
}
