package cron

import "github.com/electsim/electsim/contract"

// Contract is what the cron layer guarantees with this configuration,
// whatever the election under it does: the resource enforces each promise
// on every write, single-threaded and durable across its own crash, so no
// fault excuses them (their Unless is empty); missed_slots, a liveness
// promise, holds only where no fault reached the slot by its deadline. docs/cron.md, "Contract", gives
// the reasoning and the tests.
//
//   - stale_write, with fencing: the resource rejects every token below the
//     highest it accepted in the fencing scope (Resource.write), which is
//     exactly what the check looks for.
//
//   - double_execution, with idempotency, a slot-keyed misfire policy
//     (fire_now or skip) and jobs of one write each: a slot's only write is
//     keyed on (job, slot, step 0) and applied at most once. Nothing else
//     qualifies, and the reasons are measured (cron/contract_test.go): with
//     MisfireQuartz a catch-up run presents a new fire time, a key nobody
//     used; a job of several writes can have step 0 applied by one run and
//     step 1 by another; fencing and claim both let a higher token through
//     after a lower one was applied.
//
//   - missed_slots, unless the misfire policy is Quartz's: every slot due
//     in the checked window is applied by its deadline (Guarantee.Deadline,
//     missedSlotDeadline) after it fell due on a node that kept leading,
//     or after a tenure that started within Recovery (the misfire
//     threshold, within the lookback) of it, unless a fault of any class
//     reached the finding by then: the resource out of reach, a leader
//     paused or stepped past the threshold, a failover longer than it,
//     a claim lost to its own retry. Quartz is left out because it drops
//     a slot in progress on a failed node and never re-fires its own;
//     queue mode has its own checks (lost_slot), and ShedLock mode
//     (ShedLockContract) no election to date a slot by.
func (c *Config) Contract() contract.Contract {
	var out contract.Contract
	if c.Policy.Fencing {
		out.Guarantees = append(out.Guarantees, contract.Guarantee{
			Check:  "stale_write",
			Source: "cron/resource.go Resource.write: fencing rejects a token below the scope's highest accepted",
		})
	}
	if c.Policy.Idempotency && c.slotKeyed() && c.Jobs.singleWrite() {
		out.Guarantees = append(out.Guarantees, contract.Guarantee{
			Check:  "double_execution",
			Source: "cron/resource.go Resource.write: idempotency applies (job, scheduled time, step) once; one write per job and a slot-keyed misfire policy make that once per slot",
		})
	}
	if c.slotKeyed() && c.Queue.Workers == 0 {
		out.Guarantees = append(out.Guarantees, c.missedSlotGuarantee())
	}
	return out
}

// slotKeyed reports whether every run presents its slot's own scheduled
// time to the resource: true unless the misfire policy is Quartz's, whose
// catch-up runs present the time the misfire was handled (startRun).
func (c *Config) slotKeyed() bool {
	return c.Misfire.Policy != MisfireQuartz
}

// singleWrite reports whether every job makes exactly one write per run
// (an unvalidated Writes of 0 defaults to 1).
func (t Table) singleWrite() bool {
	for i := range t {
		if t[i].Writes > 1 {
			return false
		}
	}
	return true
}

// ShedLockContract is Contract for ShedLock mode (NewShedLockNode): the
// resource's promises hold as in leader-driven mode, but missed_slots is
// not promised, for its deadline is dated by tenures and ShedLock mode
// has none (every node fires by its own clock and the lock decides).
func (c *Config) ShedLockContract() contract.Contract {
	var out contract.Contract
	for _, g := range c.Contract().Guarantees {
		if g.Check != "missed_slots" {
			out.Guarantees = append(out.Guarantees, g)
		}
	}
	return out
}
