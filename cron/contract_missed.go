package cron

import (
	"time"

	"github.com/electsim/electsim/contract"
)

// missedSlotGuarantee is the missed_slots promise of leader-driven mode
// (docs/cron.md, "Missed slots: the bound"). A slot is applied by its
// deadline when no fault reaches it, and every class of fault can make it
// late or lose it, so every class is an exception; what the promise
// fixes is when, and where, a fault must strike to excuse a finding: the
// checker dates each missed slot at its deadline and names the nodes that
// led when it came due and the node due to recover it.
//
// The deadline, Deadline + Latency·ℓmax after the run should start (the
// slot falling due on a leader that keeps leading, or a tenure starting
// within Recovery of it), with no fault:
//
//   - a run's last write is sent RunMax after it starts (write i of n at
//     (i+1)/n of the run, executor.armStep) and applied ℓ later; with
//     claim, the claim's answer comes 2ℓ after the start and no write
//     precedes it: RunMax + 2ℓ + ℓ;
//   - a tenure asks the resource which slots completed when it starts
//     (Node.lead) and has the answer 2ℓ later; a slot of its own still
//     running or unanswered is asked about again once answered
//     (executor.inDoubt, settleDoubts): that run started before the
//     tenure, so its answer comes by RunMax + 2ℓ after the start (+2ℓ for
//     its claim), and the second answer 2ℓ after that.
//
// Together: 2·RunMax + 5ℓ, 9ℓ with claim, taking the longest job's
// RunMax. The on-time path needs only RunMax + ℓ; the one deadline is
// the longer, so a finding may be excused by a fault up to RunMax + 4ℓ
// later than strictly needed (weaker, never wrong). Retries are not in
// it: a write or query is sent again only when its answer did not come
// within WriteTimeout, which with 2ℓmax ≤ WriteTimeout takes a fault
// that struck before the first copy's answer was due, so before the
// deadline. Claim needs that assumption (Latency.Assume): a claim sent
// again only because the network is slow can lose against its own first
// copy with no fault at all.
func (c *Config) missedSlotGuarantee() contract.Guarantee {
	var runMax time.Duration
	for i := range c.Jobs {
		runMax = max(runMax, c.Jobs[i].RunMax, c.Jobs[i].RunMin)
	}
	if runMax == 0 {
		runMax = time.Second // Table.Validate's default run, for jobs not validated
	}
	mis := c.Misfire
	if mis.Threshold == 0 {
		mis.Threshold = time.Minute // Validate's defaults, for a Config not validated
	}
	if mis.Lookback == 0 {
		mis.Lookback = time.Hour
	}
	g := contract.Guarantee{
		Check:    "missed_slots",
		Unless:   contract.Classes(),
		Deadline: 2 * runMax,
		Recovery: min(mis.Threshold, mis.Lookback),
		Latency:  contract.LatencyTerms{Max: 5},
		Source:   "cron/executor.go onTimer, armStep, write; cron/leader.go Node.lead, executor.recover: the slot runs when due on its leader, else the next tenure within the misfire threshold recovers every incomplete slot",
	}
	// Aftermath is left to the run (scenario: the algorithm's, plus the
	// longest run): a fault that cost the leader shortly before the slot
	// fell due can keep it without a leader for a whole failover, longer
	// than the misfire threshold (docs/checkers.md, "Excuses").
	if c.Policy.Claim {
		wt := c.WriteTimeout
		if wt == 0 {
			wt = time.Second
		}
		g.Latency = contract.LatencyTerms{Max: 9, Assume: wt / 2}
	}
	return g
}
