// Package etcdelect is leader election through etcd v3's concurrency
// package (go.etcd.io/etcd/client/v3/concurrency: NewSession, Election),
// against a simulated etcd server (Server): one logical service node with
// leases judged by its monotonic clock, revisions, keys attached to leases,
// and watches.
//
// A candidate grants a lease of TTL and keeps it alive as clientv3 does
// (lease.go: a keep-alive once TTL/3 after the last response, retried every
// 500 ms; the lease is known lost — the session's Done() — when TTL has
// passed by the client's own clock since the last response, or when the
// server answers a keep-alive with TTL 0). It campaigns as
// Election.Campaign does: put name/<lease> with the lease if absent (its
// create revision is its place in line), then wait until no key under the
// prefix has a lower create revision (waitDeletes: range for the highest
// lower one, watch it for deletion, repeat). It leads, with its key's
// create revision as fencing token, until its session is done — the
// application keeps working until then, which is exactly the danger when
// the server has already expired the lease. The server's lease expiry
// deletes the attached keys; a server failover (leader change) extends
// every lease by its full TTL plus an election timeout, as etcd's lessor
// Promote does. See docs/algorithms/etcd.md.
package etcdelect
