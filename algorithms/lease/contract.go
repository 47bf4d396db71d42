package lease

import (
	"time"

	"github.com/electsim/electsim/contract"
	"github.com/electsim/electsim/registry"
)

// checkSplitBrain is the checker's name for "no two nodes act as leader at
// once" (checker.CheckSplitBrain; a scenario test holds every contract's
// names to the checker's).
const checkSplitBrain = "split_brain"

// k8sWholeSecond is how far apart two renewals of one holder can be and
// still look the same to a follower: client-go compares the marshalled
// LeaderElectionRecord, whose renewTime is a metav1.Time in whole seconds
// (docs/algorithms/lease.md, "k8s").
const k8sWholeSecond = time.Second

// Contract is what the lease flavours promise with these values
// (registry.Algorithm.Contract); docs/algorithms/lease.md, "Contract",
// derives each bound.
func Contract(v registry.Values) contract.Contract {
	c := configOf(v)
	var g contract.Guarantee
	switch c.Flavor {
	case FlavorK8s:
		g = contract.Guarantee{
			MaxOverlap: K8sMaxOverlap(c),
			Latency:    contract.LatencyTerms{Max: 1}, // the answer to the holder's last write
			// Followers time the lease from their own observation, so a
			// constant skew between clocks changes nothing; but a holder
			// whose wall clock is stepped back can write a renewTime
			// second it wrote before, and the raw record then looks
			// unchanged to a follower that saw it (the same-second case
			// above, seconds apart): a step on the holder is an exception,
			// on the nodes of the finding and while its offset stands. A
			// clock's rate stretches the holder's RenewDeadline and the
			// follower's LeaseDuration, a pause the holder's acting. Loss
			// is not: the requests travel over TCP (StoreStreams), which
			// never delivers one twice and turns a loss into a
			// retransmission's delay, and the bound's latency term prices
			// delay in (before the transport was modelled, a hunt found
			// a 0.9 s overlap after duplicated and lost datagrams).
			Unless: []contract.FaultClass{contract.Pause, contract.ClockRate, contract.ClockStep, contract.DiskLoss},
			// tryAcquireOrRenew writes the renewTime of the attempt's
			// start; an attempt a cut or a slow answer drew out (the fast
			// path's Update timing out, then the slow path) lands a record
			// whose renewTime second may already be written: followers see
			// no change while the holder counts from its success. The
			// bound stretches by that lag, which the holder reports
			// (k8sWriteLag).
			WriteLag: true,
			Source:   "client-go tools/leaderelection/leaderelection.go: renew (wait.Until, RenewDeadline per round), tryAcquireOrRenew (observedTime + LeaseDuration, raw-record comparison, now taken once at the attempt's start), release",
		}
	case FlavorTTL, FlavorRedlock:
		var out contract.Contract
		if c.Flavor == FlavorTTL {
			out.Guarantees = append(out.Guarantees, ttlEpochs(c))
		}
		max, ok := validityMaxOverlap(c)
		if !ok {
			return out // validity_check never: the application acts on after its lock expired
		}
		g = contract.Guarantee{MaxOverlap: max, Unless: redisExceptions(c),
			Source: "Redis \"Distributed Locks with Redis\" (validity time, Redlock quorum); go-redsync mutex.go lockContext/ExtendContext (until); Redis src/db.c keyIsExpired"}
	case FlavorWallTime:
		g = contract.Guarantee{
			Unless: []contract.FaultClass{contract.Partition, contract.Link, contract.Loss, contract.ServiceDown, contract.Disk,
				contract.Pause, contract.ClockRate, contract.ClockStep, contract.DiskLoss},
			// lock_until is the writer's wall clock plus lockAtMostFor,
			// compared with the reader's wall clock: what a clock-rate
			// fault made a node's wall clock gain or lose stays after the
			// rate is exact again, and the node takes locks that much
			// early (or holds them that much late) for good. A hunt from
			// swarm-long.yaml found a 96 s overlap 84 s after a 35 s
			// fast-clock fault ended (2026-11-29).
			Lasting: []contract.FaultClass{contract.ClockRate},
			Source:  "ShedLock README (synchronized clocks), SqlStatementsSource (lock_until), KeepAliveLockProvider (a failed extension only stops the keep-alive)",
		}
		if c.Unlock == UnlockByName {
			// The unlock names the row only (SqlStatementsSource.getUnlockStatement
			// before 7.0.0): a holder whose lock expired under a pause, a
			// clock fault or a slow disk releases its successor's lock
			// when its task ends, and two other candidates overlap — the
			// fault voids the promise wherever it hit.
			g.Anywhere = []contract.FaultClass{contract.Pause, contract.ClockRate, contract.ClockStep, contract.Disk, contract.DiskLoss}
		}
	default:
		return contract.Contract{}
	}
	g.Check = checkSplitBrain
	if c.Flavor == FlavorTTL {
		return contract.Contract{Guarantees: []contract.Guarantee{ttlEpochs(c), g}}
	}
	return contract.Contract{Guarantees: []contract.Guarantee{g}}
}

// ttlEpochs is the ttl flavour's election_safety: a holder's epoch is the
// token the one Redis store's acquire script hands out (INCR on the
// application's counter), so no two holders share one while the store
// keeps its data. A store restarted without it (disk_loss), or crashed
// while its persistence can lose an acknowledged write (none, rdb,
// aof_everysec: redisExceptions), hands an old token out again (Kleppmann,
// "How to do distributed locking", 2016: the restarted Redis). Redlock
// promises none: its epoch is the highest counter a quorum returns, not
// monotonic across quorums (docs/algorithms/lease.md).
func ttlEpochs(c Config) contract.Guarantee {
	unless := []contract.FaultClass{contract.DiskLoss}
	for _, u := range redisExceptions(c) {
		if u == contract.Crash {
			unless = append(unless, contract.Crash)
		}
	}
	// A crash that lost the counter's last writes keeps handing out epochs
	// it handed before until the counter passes them: its effect lasts.
	return contract.Guarantee{Check: "election_safety", Unless: unless, Lasting: []contract.FaultClass{contract.Crash, contract.DiskLoss},
		Source: "Redis INCR (the application's fencing counter in its acquire script); redis.conf appendonly/appendfsync, rdb save points"}
}

// K8sMaxOverlap is the latency-free part of the longest two k8s holders
// can both act with exact clocks and no pauses, whatever the network does
// (the contract adds one ℓmax, LatencyTerms{Max: 1}):
//
//	RetryPeriod + RenewDeadline (+ RenewDeadline with ReleaseOnCancel)
//	(+ 1 s when RetryPeriod < 1 s) − LeaseDuration (whole seconds)
//
// and at least RequestTimeout with ReleaseOnCancel; 0 when negative (no
// overlap at all). It is derived from the holder's last successful write,
// not from the renewTime it read: the store applied that write at w and
// answered by w + ℓmax; the next round starts RetryPeriod after the answer
// (wait.Until is sliding) and cancels its request at RenewDeadline
// (PollUntilContextTimeout), so the holder acts until w + ℓmax +
// RetryPeriod + RenewDeadline, plus the release under a second
// RenewDeadline with ReleaseOnCancel. A follower restarts observedTime
// when a Get shows it a raw record other than the last it saw, which it
// can only do after w, and takes over LeaseDuration (the record's whole
// seconds) later; only a renewal within the same wall second as the
// previous one looks unchanged, which takes renewals less than a second
// apart (RetryPeriod < 1 s). A release: the holder acts until its
// answer, up to RequestTimeout after the store applied it.
// docs/algorithms/lease.md, "k8s".
func K8sMaxOverlap(c Config) time.Duration {
	hold := c.RetryPeriod + c.RenewDeadline
	if c.ReleaseOnCancel {
		hold += c.RenewDeadline
	}
	if c.RetryPeriod < k8sWholeSecond {
		hold += k8sWholeSecond
	}
	ld := c.LeaseDuration / time.Second * time.Second
	out := max(hold-ld, 0)
	if c.ReleaseOnCancel {
		out = max(out, c.requestTimeout())
	}
	return out
}

// validityMaxOverlap is the ttl and redlock bound with the application's
// validity check: 0 with before_each_action (it stops at its validity,
// drift before the earliest store expiry), ValidityCheckInterval − drift
// with every (it stops at the first check past the validity), and no
// bound with never.
func validityMaxOverlap(c Config) (time.Duration, bool) {
	switch c.ValidityCheck {
	case CheckBeforeEachAction:
		return 0, true
	case CheckEvery:
		return max(c.ValidityCheckInterval-c.drift(), 0), true
	}
	return 0, false
}

// redisExceptions are the faults that void the ttl and redlock bound: a
// pause of the holder (it acts on when it resumes), clock rates (the
// validity is the holder's monotonic clock against the store's), wall
// steps on a store (Redis expires keys by wall time) unless the stores
// expire by the monotonic clock (expiry_clock), a store that restarts without its data, and a
// store crash whenever some store's persistence can lose an acknowledged
// key (none, rdb, aof_everysec).
func redisExceptions(c Config) []contract.FaultClass {
	out := []contract.FaultClass{contract.Pause, contract.ClockRate, contract.DiskLoss}
	if c.ExpiryClock != ExpiryMonotonic {
		out = append(out, contract.ClockStep)
	}
	for k := 1; k <= c.stores(); k++ {
		if p := c.StorePersistence(k); p != PersistDurable && p != PersistAOFAlways {
			return append(out, contract.Crash)
		}
	}
	return out
}
