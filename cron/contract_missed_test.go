package cron_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/checker"
	"github.com/electsim/electsim/contract"
	"github.com/electsim/electsim/cron"
	"github.com/electsim/electsim/sim"
)

// worldNet is newWorld's network: one-way latency 1–5 ms.
var worldNet = contract.Network{Min: time.Millisecond, Max: 5 * time.Millisecond, Bounded: true}

// missedGuarantee is cfg's missed_slots promise resolved on net.
func missedGuarantee(t *testing.T, cfg *cron.Config, net contract.Network) (contract.Guarantee, bool) {
	t.Helper()
	return cfg.Contract().Resolve(net).For(checker.CheckMissedSlots)
}

// TestMissedSlotDeadlineIsTheDerivedBound holds the resolved guarantee to
// the bound of docs/cron.md ("Missed slots: the bound"), computed here
// from the configuration alone: deadline 2·RunMax + 5·ℓmax (9·ℓmax with
// claim, which also assumes 2·ℓmax ≤ WriteTimeout), recovery
// min(Threshold, Lookback) with Validate's defaults, and no promise under
// Quartz, in queue mode or in ShedLock mode.
func TestMissedSlotDeadlineIsTheDerivedBound(t *testing.T) {
	cases := []struct {
		runMin, runMax      time.Duration
		claim               bool
		threshold, lookback time.Duration
	}{
		{time.Second, 2 * time.Second, false, 5 * time.Minute, 0},
		{500 * time.Millisecond, 500 * time.Millisecond, true, 0, 0},
		{3 * time.Second, 10 * time.Second, false, 2 * time.Hour, 30 * time.Minute},
		{0, 0, true, 10 * time.Second, 0},
	}
	for _, tc := range cases {
		cfg := cron.Config{Jobs: cron.Table{{Name: "a", Schedule: "@every 5s", RunMin: tc.runMin, RunMax: tc.runMax}},
			Policy: cron.Policy{Fencing: true, Claim: tc.claim}, Misfire: cron.Misfire{Threshold: tc.threshold, Lookback: tc.lookback}}
		require.NoError(t, cfg.Validate())
		g, ok := missedGuarantee(t, &cfg, worldNet)
		require.True(t, ok, "%+v", tc)
		run := tc.runMax
		if run == 0 {
			run = time.Second // Table.Validate's default
		}
		hops := 5
		if tc.claim {
			hops = 9
		}
		assert.Equal(t, 2*run+time.Duration(hops)*5*time.Millisecond, g.Deadline, "%+v", tc)
		thr, lb := tc.threshold, tc.lookback
		if thr == 0 {
			thr = time.Minute
		}
		if lb == 0 {
			lb = time.Hour
		}
		assert.Equal(t, min(thr, lb), g.Recovery, "%+v", tc)
		assert.Equal(t, contract.Classes(), g.Unless)
		assert.Zero(t, g.MaxOverlap, "latency goes to the deadline, not the overlap")
		slow := contract.Network{Min: time.Millisecond, Max: 600 * time.Millisecond, Bounded: true}
		_, kept := missedGuarantee(t, &cfg, slow)
		assert.Equal(t, !tc.claim, kept, "claim assumes 2·ℓmax ≤ WriteTimeout (1 s): %+v", tc)
		_, unbounded := missedGuarantee(t, &cfg, contract.Network{Min: time.Millisecond})
		assert.False(t, unbounded, "no deadline on an unbounded network")

		_, shed := cfg.ShedLockContract().For(checker.CheckMissedSlots)
		assert.False(t, shed, "ShedLock mode has no tenures to date a slot by")
		_, fenced := cfg.ShedLockContract().For(checker.CheckStaleWrite)
		assert.True(t, fenced, "ShedLock mode keeps the resource's promises")
		q := cfg
		q.Queue.Workers = 2
		_, queued := q.Contract().For(checker.CheckMissedSlots)
		assert.False(t, queued, "queue mode has lost_slot instead")
		qz := cfg
		qz.Misfire.Policy = cron.MisfireQuartz
		_, quartz := qz.Contract().For(checker.CheckMissedSlots)
		assert.False(t, quartz, "Quartz drops a slot in progress on a failed node")
	}
}

// missedJobs is the job of the measured runs: every 10 s, 1–2 s, two
// writes (the slot is complete when its second is applied).
func missedJobs() cron.Table {
	return cron.Table{{Name: "tick", Schedule: "@every 10s", RunMin: time.Second, RunMax: 2 * time.Second, Writes: 2}}
}

// judgeMissed judges w's run, with the resource log log, for missed_slots
// over slots due in (start, start+to] under contract c.
func judgeMissed(w *world, log []cron.LogEntry, c contract.Contract, to time.Duration) checker.Report {
	return checker.Run(checker.Input{Records: w.rec.Records, Names: checker.NamesOf(w.s), Candidates: w.nodes,
		Resource: log, Policy: w.cfg.Policy, Jobs: w.cfg.Jobs, WallStart: start, CronFrom: start, CronTo: start.Add(to), Contract: c})
}

// TestMissedSlotBoundHolds measures the bound: in three scripted runs
// with no fault — a leader throughout, a failover with a 15 s gap, and a
// leader whose tenure ends mid-run and comes back a second later (its own
// run in doubt) — every slot is complete (last step applied) by its
// deadline, computed here from the script: the slot's due time when a
// tenure covers it for the whole deadline, else the start of the next
// tenure, plus Deadline. The checker finds no missed slot.
func TestMissedSlotBoundHolds(t *testing.T) {
	cases := []struct {
		name    string
		tenures [][]tenure
	}{
		{"steady", [][]tenure{{{0, time.Hour, 1}}, nil}},
		{"failover", [][]tenure{{{0, 55 * time.Second, 1}}, {{70 * time.Second, time.Hour, 2}}}},
		{"own-doubt", [][]tenure{{{0, 61 * time.Second, 1}, {62 * time.Second, time.Hour, 2}}, nil}},
	}
	for _, tc := range cases {
		for _, claim := range []bool{false, true} {
			cfg := cron.Config{Jobs: missedJobs(), Policy: cron.Policy{Fencing: true, Idempotency: true, Claim: claim}}
			w := newWorld(t, 11, cfg, tc.tenures)
			w.s.RunUntil(at(3 * time.Minute))
			w.s.End()
			g, ok := missedGuarantee(t, w.cfg, worldNet)
			require.True(t, ok)
			runStart := func(due time.Duration) time.Duration { // from the script, in true time (exact clocks)
				next := time.Duration(-1)
				for _, ts := range tc.tenures {
					for _, tn := range ts {
						if tn.from <= due && due+g.Deadline <= tn.to {
							return due
						}
						if tn.from > due && (next < 0 || tn.from < next) {
							next = tn.from
						}
					}
				}
				return next
			}
			complete := map[int64]sim.Time{}
			for _, e := range w.res.Log() {
				if _, seen := complete[e.Slot]; e.Accepted && e.Step == 1 && !seen {
					complete[e.Slot] = e.At
				}
			}
			judged := 0
			for due := 10 * time.Second; due <= 2*time.Minute; due += 10 * time.Second {
				slot := start.Add(due).UnixNano()
				at, ok := complete[slot]
				require.True(t, ok, "%s claim=%v: slot at %v never completed", tc.name, claim, due)
				s := runStart(due)
				require.GreaterOrEqual(t, s, time.Duration(0))
				assert.LessOrEqual(t, at.Duration(), s+g.Deadline, "%s claim=%v: slot due at %v completed at %v, after its deadline %v", tc.name, claim, due, at, s+g.Deadline)
				judged++
			}
			assert.Equal(t, 12, judged)
			rep := judgeMissed(w, w.res.Log(), w.cfg.Contract().Resolve(worldNet), 2*time.Minute)
			ch, ok := rep.Check(checker.CheckMissedSlots)
			require.True(t, ok)
			assert.Zero(t, ch.Count, "%s claim=%v: %s", tc.name, claim, ch.Summary)
		}
	}
}

// dropSlot is a planted cron bug: the slot's writes never happened (a
// layer that dropped it), as the checker sees it.
func dropSlot(log []cron.LogEntry, slot int64) []cron.LogEntry {
	var out []cron.LogEntry
	for _, e := range log {
		if e.Slot != slot {
			out = append(out, e)
		}
	}
	return out
}

// TestMissedSlotPlantedDropIsABreach is the must-refute side: a steady
// leader's run with one slot dropped (dropSlot) is a breach of the
// contract, dated at the slot's deadline and naming the leader, and fails
// the run whatever expect allows. A fault on a node the slot does not
// involve, or after its deadline, does not excuse it; a pause of the
// leader before it does; and a slot whose deadline is past the run's end
// is within bound.
func TestMissedSlotPlantedDropIsABreach(t *testing.T) {
	due := 60 * time.Second // 02:00:00
	slot := start.Add(due).UnixNano()
	cfg := cron.Config{Jobs: missedJobs(), Policy: cron.Policy{Fencing: true, Idempotency: true}}
	cases := []struct {
		name  string
		fault func(w *world, deadline time.Duration)
		want  contract.Verdict
	}{
		{"no fault", func(*world, time.Duration) {}, contract.Breach},
		{"follower paused", func(w *world, _ time.Duration) {
			w.s.At(at(30*time.Second), func() { w.s.Pause(w.nodes[1]) })
			w.s.At(at(90*time.Second), func() { w.s.Resume(w.nodes[1]) })
		}, contract.Breach},
		{"resource paused after the deadline", func(w *world, deadline time.Duration) {
			w.s.At(at(due+deadline+time.Second), func() { w.s.Pause(w.resID) })
			w.s.At(at(due+deadline+2*time.Second), func() { w.s.Resume(w.resID) })
		}, contract.Breach},
		{"leader paused before the deadline", func(w *world, deadline time.Duration) {
			w.s.At(at(due+deadline-time.Second), func() { w.s.Pause(w.nodes[0]) })
			w.s.At(at(due+deadline-time.Second+100*time.Millisecond), func() { w.s.Resume(w.nodes[0]) })
		}, contract.Excused},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, 11, cfg, [][]tenure{{{0, time.Hour, 1}}, nil})
			g, ok := missedGuarantee(t, w.cfg, worldNet)
			require.True(t, ok)
			tc.fault(w, g.Deadline)
			w.s.RunUntil(at(3 * time.Minute))
			w.s.End()
			rep := judgeMissed(w, dropSlot(w.res.Log(), slot), w.cfg.Contract().Resolve(worldNet), 2*time.Minute)
			ch, _ := rep.Check(checker.CheckMissedSlots)
			require.Equal(t, 1, ch.Count, ch.Summary)
			v := ch.Violations[0]
			assert.Equal(t, tc.want, v.Contract)
			assert.Equal(t, []sim.NodeID{w.nodes[0]}, v.NodeIDs, "the leader when it came due")
			assert.Equal(t, at(due), v.At)
			assert.Equal(t, at(due+g.Deadline), v.End, "dated at its deadline")
			ok, _ = rep.Judge(checker.Expect{Allow: []string{checker.CheckMissedSlots}})
			assert.Equal(t, tc.want != contract.Breach, ok, "a breach fails the run whatever expect allows")
		})
	}
	t.Run("deadline past the end", func(t *testing.T) {
		w := newWorld(t, 11, cfg, [][]tenure{{{0, time.Hour, 1}}, nil})
		w.s.RunUntil(at(due + time.Second)) // the run ends 1 s after the slot fell due
		w.s.End()
		rep := judgeMissed(w, dropSlot(w.res.Log(), slot), w.cfg.Contract().Resolve(worldNet), due)
		ch, _ := rep.Check(checker.CheckMissedSlots)
		require.Equal(t, 1, ch.Count, ch.Summary)
		assert.Equal(t, contract.WithinBound, ch.Violations[0].Contract)
	})
}
