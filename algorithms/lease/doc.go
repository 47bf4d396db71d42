// Package lease is lease-based leader election against a simulated lease
// store, in four flavours that each imitate a production mechanism:
//
//   - "k8s": client-go tools/leaderelection. A candidate judges the lease
//     expired by its own monotonic clock, LeaseDuration after it last saw the
//     record change; the leader renews every RetryPeriod and gives up when a
//     renewal round has not succeeded within RenewDeadline. Drift-sensitive.
//   - "ttl": Redis SET key id NX PX ttl on one instance. The store expires
//     the key by its own wall clock, as Redis does; the holder renews with an
//     atomic check-and-PEXPIRE; whether it stops when its local estimate
//     (Redlock's validity time) runs out is its application's check
//     (Config.ValidityCheck, default never). Pause- and wall-step-sensitive,
//     and with Redis's default RDB persistence (Config.Persistence) a
//     restarted store forgets the key.
//   - "walltime": ShedLock. A lock_until timestamp written with the holder's
//     wall clock and compared against the other candidates' wall clocks; a
//     failed extension only stops the keep-alive, the holder's task goes on.
//     Offset-sensitive.
//   - "redlock": go-redsync's Redlock over independent Redis masters (one
//     store node each): quorum acquisition and validity time. Sensitive to a
//     wall-clock step on a master of the holder's majority, and to pauses.
//
// The store (Store) is a service node reached over the simulated network, so a
// partition can cut a candidate off it; it offers linearizable get,
// compare-and-swap on a revision, SET NX with a TTL, check-and-renew,
// delete-if-holder, INCR, and ShedLock's conditional lock/extend/unlock, and it
// records every write as a trace effect. The cron layer's ShedLock mode and
// the fault layer use it directly. See docs/algorithms/lease.md.
package lease
