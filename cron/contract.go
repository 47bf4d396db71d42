package cron

import "github.com/electsim/electsim/contract"

// Contract is what the cron layer guarantees with this configuration,
// whatever the election under it does: the resource enforces each promise
// on every write, single-threaded and durable across its own crash, so no
// fault excuses it (every Unless is empty). docs/cron.md, "Contract", gives
// the reasoning and the tests.
//
//   - stale_write, with fencing: the resource rejects every token below the
//     highest it accepted in the fencing scope (Resource.write), which is
//     exactly what the check looks for.
//   - double_execution, with idempotency, a slot-keyed misfire policy
//     (fire_now or skip) and jobs of one write each: a slot's only write is
//     keyed on (job, slot, step 0) and applied at most once. Nothing else
//     qualifies, and the reasons are measured (cron/contract_test.go): with
//     MisfireQuartz a catch-up run presents a new fire time, a key nobody
//     used; a job of several writes can have step 0 applied by one run and
//     step 1 by another; fencing and claim both let a higher token through
//     after a lower one was applied.
//
// missed_slots is not promised: a slot is missed, with a leader in place,
// whenever the resource is out of reach for longer than the run's retries,
// and a slot due while no node led is recovered only within the misfire
// threshold; docs/cron.md, "Contract", states that bound.
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
