// Package zkelect is leader election through ZooKeeper with Curator's
// LeaderLatch, against a simulated ZooKeeper server (Server): one logical
// service node with sessions whose expiry it judges by its monotonic clock
// in tickTime buckets, ephemeral sequential znodes, czxids and watches; an
// ensemble that loses its quorum or its leader closes every client
// connection.
//
// A candidate opens a session (its timeout negotiated into [2·tickTime,
// 20·tickTime], ZooKeeperServer.processConnectRequest), pings when idle for
// a third of it, and goes through Curator's connection states:
// SUSPENDED when it has heard nothing for two thirds of the session timeout
// (the ZooKeeper client's read timeout: Disconnected), RECONNECTED when a
// reply comes back while the session lives, LOST when the server reports
// the session expired or, as Curator's ConnectionStateManager injects it,
// when SUSPENDED has lasted a whole session timeout by the client's wall
// clock.
// LeaderLatch creates an ephemeral sequential znode under the latch path,
// leads when its znode sorts first, else watches its predecessor; its
// token is its znode's czxid. Under Curator's standard policy
// (StandardConnectionStateErrorPolicy) it gives up leadership on SUSPENDED;
// under SessionConnectionStateErrorPolicy only on LOST. What it does on
// RECONNECTED depends on the Curator release (Config.CuratorVersion). See
// docs/algorithms/zookeeper.md.
package zkelect
