package hunt

import "github.com/electsim/electsim/contract"

// The fault kinds the search draws (Options.Kinds).
const (
	KindCrash            = "crash"             // crash a node, restart it with its disk after For
	KindRestart          = "restart"           // crash and start a node at once
	KindPause            = "pause"             // pause a process for For
	KindPartition        = "partition"         // isolate a node for For
	KindOneWay           = "one_way"           // lose a node's outgoing messages for For
	KindClockRate        = "clock_rate"        // run a node's clocks fast or slow for For
	KindClockStep        = "clock_step"        // step a node's wall clock for good
	KindLink             = "link"              // slow, lossy or duplicating links of a node for For
	KindDisk             = "disk"              // slow a node's fsync for For
	KindStoreUnavailable = "store_unavailable" // the lease store ignores requests for For
	KindWipeDisk         = "wipe_disk"         // crash a node, restart it without its disk
	KindStoreFailover    = "store_failover"    // the lease store loses its last writes
)

// FaultKinds lists every kind the search can draw.
var FaultKinds = []string{KindCrash, KindRestart, KindPause, KindPartition, KindOneWay, KindClockRate, KindClockStep,
	KindLink, KindDisk, KindStoreUnavailable, KindWipeDisk, KindStoreFailover}

// DefaultKinds are the kinds drawn by default: every kind but those that
// lose acknowledged durable state (a wiped disk, a lossy store failover),
// which void the safety of every shipped algorithm by construction. Give
// them in Options.Kinds to test a contract that claims to survive them.
var DefaultKinds = []string{KindCrash, KindRestart, KindPause, KindPartition, KindOneWay, KindClockRate, KindClockStep,
	KindLink, KindDisk, KindStoreUnavailable}

// classesOfKind are the contract fault classes a kind's faults show, as
// the checker reads them from the trace: a link fault here changes latency,
// duplication (link) or loss (loss), a lossy store failover loses
// acknowledged writes (disk_loss, the service's data).
func classesOfKind(k string) []contract.FaultClass {
	switch k {
	case KindCrash, KindRestart:
		// The node comes back (after For, or at once): crash, then
		// restart (crash-recovery), as contract.ClassesOf reads them; a
		// crashed service (the resource, a lease store) is also down.
		return []contract.FaultClass{contract.Crash, contract.Restart, contract.ServiceDown}
	case KindPause:
		return []contract.FaultClass{contract.Pause}
	case KindPartition, KindOneWay:
		return []contract.FaultClass{contract.Partition}
	case KindClockRate:
		return []contract.FaultClass{contract.ClockRate}
	case KindClockStep:
		return []contract.FaultClass{contract.ClockStep}
	case KindLink:
		return []contract.FaultClass{contract.Link, contract.Loss}
	case KindDisk:
		return []contract.FaultClass{contract.Disk}
	case KindWipeDisk:
		return []contract.FaultClass{contract.Crash, contract.Restart, contract.ServiceDown, contract.DiskLoss}
	case KindStoreFailover:
		return []contract.FaultClass{contract.DiskLoss}
	}
	return []contract.FaultClass{contract.ServiceDown}
}

// needsStore reports whether kind k acts on the lease store only.
func needsStore(k string) bool { return k == KindStoreUnavailable || k == KindStoreFailover }

// kindsFor are the kinds drawn on a cluster: o's (or DefaultKinds), less
// the store's without a store. A kind whose class every guarantee of the
// contract excuses is still drawn: it excuses only findings on the nodes
// it hits, while it acts or shortly after, and a pause only stretches a
// bounded overlap (docs/checkers.md, "Excuses"), so it can still expose a
// breach elsewhere.
func kindsFor(o *Options, c contract.Contract, hasStore bool) []string {
	from := o.Kinds
	if len(from) == 0 {
		from = DefaultKinds
	}
	var out []string
	for _, k := range from {
		if needsStore(k) && !hasStore {
			continue
		}
		out = append(out, k)
	}
	return out
}
