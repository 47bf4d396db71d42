// Package consulelect is leader election through Consul session locks, as
// the Go client's api.Lock does it, against a simulated Consul cluster
// (Server): one logical service node holding sessions, one KV lock key,
// the lock-delay table and blocking queries.
//
// A candidate creates a session (TTL 15s, lock-delay 15s, bound to its
// node's serfHealth check unless Checks is none), renews it every TTL/2
// (Session.RenewPeriodic), and runs Lock's loop: read the key with a
// blocking query, wait while another session holds it, try KV Acquire
// when it is free, and when Acquire fails on a free key (lock-delay) wait
// LockRetryTime (5s) before trying again. Holding the lock, it watches the
// key with blocking queries (Lock.monitorLock) and stops leading when the
// key names another session or a query fails. Its fencing token is the
// key's ModifyIndex at acquisition.
//
// The server invalidates a session when 2·TTL passes without a renewal
// (session_ttl.go, SessionTTLMultiplier) or when its node's serfHealth
// goes critical, releases the keys it held and refuses to lock them again
// for the session's lock-delay, judged by the server's wall clock
// (kvs_endpoint.go). A cut-off client learns that its connection is dead
// from the RPC layer's keep-alive (yamux: a ping every 30s, dead when its
// answer has not come 10s later). See docs/algorithms/consul.md.
package consulelect
