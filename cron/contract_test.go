package cron_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/checker"
	"github.com/electsim/electsim/contract"
	"github.com/electsim/electsim/cron"
)

// allPolicies is every combination of the resource's three rules.
func allPolicies() []cron.Policy {
	var out []cron.Policy
	for i := 0; i < 8; i++ {
		out = append(out, cron.Policy{Fencing: i&1 != 0, Idempotency: i&2 != 0, Claim: i&4 != 0})
	}
	return out
}

// contractStory is a run built to break one promise unless the policy has
// the rule that keeps it.
type contractStory struct {
	name    string
	jobs    cron.Table
	misfire string
	// run plays the story on w (faults, clock steps) and runs it.
	run func(w *world)
	// tenures are the scripted leaders (token per tenure).
	tenures [][]tenure
}

// contractStories are the stories the cron contract is measured against:
//
//   - skew-ahead: n2 (token 2) leads the whole run and applies 01:59:10 of
//     an @every 10s job; from t=12s n1 (token 1), whose wall clock is 5 s
//     ahead, believes it leads too and runs every later slot 5 s before
//     n2 does: its token 1 lands after n2's 2. Only fencing rejects it
//     (stale_write); idempotency and claim see a slot nobody wrote yet.
//   - skew-behind: two believed leaders, n2 (token 2) 1 s behind, on the
//     02:00 report of one write: n2's run comes after n1's was applied.
//     Fencing and claim let the higher token in (double_execution); only
//     idempotency rejects it.
//   - crash-mid-run: n1 (token 1) runs a 02:00 job of two writes, crashes
//     after step 0 was applied; n2 (token 2) takes over, finds the slot
//     incomplete and recovers it (fire_now): step 0 is a duplicate, step 1
//     is applied, so two runs applied the slot whatever the policy.
//   - quartz-catch-up: n1 (token 2) believes it leads but is paused over
//     02:00 for 80 s; n2 (token 1) runs 02:00 on time; n1's catch-up run
//     (misfire quartz) presents a new scheduled fire time, a key nobody
//     used, with the higher token: applied whatever the policy.
func contractStories() []contractStory {
	daily := func(writes int, run time.Duration) cron.Table {
		return cron.Table{{Name: "daily-report", Schedule: "0 2 * * *", RunMin: run, RunMax: run, Writes: writes}}
	}
	return []contractStory{
		{name: "skew-ahead", jobs: cron.Table{{Name: "tick", Schedule: "@every 10s", RunMin: 100 * time.Millisecond, RunMax: 100 * time.Millisecond}},
			tenures: [][]tenure{{{12 * time.Second, time.Hour, 1}}, {{0, time.Hour, 2}}},
			run: func(w *world) {
				w.s.StepWall(w.nodes[0], 5*time.Second)
				w.s.RunUntil(at(50 * time.Second))
			}},
		{name: "skew-behind", jobs: daily(1, 100*time.Millisecond),
			tenures: [][]tenure{{{0, time.Hour, 1}}, {{0, time.Hour, 2}}},
			run: func(w *world) {
				w.s.StepWall(w.nodes[1], -time.Second)
				w.s.RunUntil(at(90 * time.Second))
			}},
		{name: "crash-mid-run", jobs: daily(2, 2*time.Second),
			tenures: [][]tenure{{{0, time.Hour, 1}}, {{62 * time.Second, time.Hour, 2}}},
			run: func(w *world) {
				w.s.At(at(61500*time.Millisecond), func() { w.s.Crash(w.nodes[0]) })
				w.s.RunUntil(at(90 * time.Second))
			}},
		{name: "quartz-catch-up", jobs: daily(1, time.Second), misfire: cron.MisfireQuartz,
			tenures: [][]tenure{{{0, time.Hour, 2}}, {{55 * time.Second, time.Hour, 1}}},
			run: func(w *world) {
				w.s.At(at(50*time.Second), func() { w.s.Pause(w.nodes[0]) })
				w.s.At(at(130*time.Second), func() { w.s.Resume(w.nodes[0]) })
				w.s.RunUntil(at(3 * time.Minute))
			}},
	}
}

// playContract runs story st under policy and judges it with the checker
// under contract c.
func playContract(t *testing.T, st contractStory, policy cron.Policy, c contract.Contract) (checker.Report, *cron.Config) {
	t.Helper()
	cfg := cron.Config{Jobs: append(cron.Table(nil), st.jobs...), Policy: policy, Misfire: cron.Misfire{Policy: st.misfire}}
	w := newWorld(t, 7, cfg, st.tenures)
	st.run(w)
	w.s.End()
	rep := checker.Run(checker.Input{Records: w.rec.Records, Names: checker.NamesOf(w.s), Candidates: w.nodes,
		Resource: w.res.Log(), Policy: policy, Jobs: w.cfg.Jobs, WallStart: start, Contract: c})
	return rep, w.cfg
}

// findings returns the verdicts of check's findings in rep.
func findings(rep checker.Report, check string) []contract.Verdict {
	ch, ok := rep.Check(check)
	if !ok {
		return nil
	}
	var out []contract.Verdict
	for _, v := range ch.Violations {
		out = append(out, v.Contract)
	}
	return out
}

// TestCronContractIsHonest plays every story under every policy and judges
// it against the contract that policy declares: no finding is ever a
// breach. What each story shows is pinned, so the test cannot pass by the
// stories breaking nothing: stale_write appears exactly when fencing is
// off (and the contract then makes no promise on it), double_execution
// exactly when the contract does not promise it.
func TestCronContractIsHonest(t *testing.T) {
	for _, st := range contractStories() {
		for _, p := range allPolicies() {
			t.Run(st.name+"/"+p.String(), func(t *testing.T) {
				cfg := cron.Config{Jobs: st.jobs, Policy: p, Misfire: cron.Misfire{Policy: st.misfire}}
				c := cfg.Contract()
				rep, _ := playContract(t, st, p, c)
				for _, check := range []string{checker.CheckStaleWrite, checker.CheckDoubleExecution} {
					for _, v := range findings(rep, check) {
						assert.NotEqual(t, contract.Breach, v, "%s: the contract promised what the run broke", check)
					}
				}
				_, stale := c.For(checker.CheckStaleWrite)
				_, once := c.For(checker.CheckDoubleExecution)
				switch st.name {
				case "skew-ahead":
					assert.Equal(t, !p.Fencing, len(findings(rep, checker.CheckStaleWrite)) > 0, "stale_write iff no fencing")
				case "skew-behind":
					assert.Equal(t, !p.Idempotency, len(findings(rep, checker.CheckDoubleExecution)) > 0, "double_execution iff no idempotency")
				case "crash-mid-run", "quartz-catch-up":
					assert.NotEmpty(t, findings(rep, checker.CheckDoubleExecution), "double_execution whatever the policy")
					assert.False(t, once, "no double_execution promise for this configuration")
				}
				assert.Equal(t, p.Fencing, stale, "stale_write promised iff fencing")
			})
		}
	}
}

// TestCronContractPromises pins which configurations promise what: the
// exact conditions of cron.Config.Contract, every guarantee with no
// exception (the resource enforces it on every write, so no fault voids
// it), and missed_slots unless the misfire policy is Quartz's, with every
// class as an exception (cron/contract_missed_test.go holds its bound).
func TestCronContractPromises(t *testing.T) {
	one := cron.Table{{Name: "a", Schedule: "@every 5s"}, {Name: "b", Schedule: "@every 7s", Writes: 1}}
	two := cron.Table{{Name: "a", Schedule: "@every 5s"}, {Name: "b", Schedule: "@every 7s", Writes: 2}}
	for _, p := range allPolicies() {
		for _, misfire := range []string{"", cron.MisfireFireNow, cron.MisfireSkip, cron.MisfireQuartz} {
			for _, jobs := range []cron.Table{one, two} {
				cfg := cron.Config{Jobs: jobs, Policy: p, Misfire: cron.Misfire{Policy: misfire}}
				name := fmt.Sprintf("%v/%q/%d writes", p, misfire, jobs[1].Writes)
				c := cfg.Contract()
				_, stale := c.For(checker.CheckStaleWrite)
				_, once := c.For(checker.CheckDoubleExecution)
				_, missed := c.For(checker.CheckMissedSlots)
				assert.Equal(t, p.Fencing, stale, name)
				assert.Equal(t, p.Idempotency && misfire != cron.MisfireQuartz && jobs[1].Writes == 1, once, name)
				assert.Equal(t, misfire != cron.MisfireQuartz, missed, name)
				for _, g := range c.Guarantees {
					if g.Check == checker.CheckMissedSlots {
						assert.Equal(t, contract.Classes(), g.Unless, "%s: every fault can lose a slot", name)
						assert.NotEmpty(t, g.Source, name)
						continue
					}
					assert.Empty(t, g.Unless, "%s: %s holds under any fault", name, g.Check)
					assert.Zero(t, g.MaxOverlap, name)
					assert.NotEmpty(t, g.Source, name)
					assert.Contains(t, checker.CheckNames, g.Check, name)
				}
			}
		}
	}
}

// TestCronContractCanBeBroken is the must-refute side: the promises of the
// safest configuration (fencing and idempotency, fire_now, one write per
// job) held against the stories that break them under a weaker one — a
// policy without fencing (skew-ahead), without idempotency (skew-behind),
// a job of two writes (crash-mid-run), Quartz's misfire (quartz-catch-up)
// — are judged breaches by the checker: the guarantees are not vacuous,
// and each condition Contract puts on them is needed.
func TestCronContractCanBeBroken(t *testing.T) {
	safe := (&cron.Config{Jobs: cron.Table{{Name: "a", Schedule: "@every 5s"}}, Policy: cron.Policy{Fencing: true, Idempotency: true}}).Contract()
	require.Len(t, safe.Guarantees, 3) // stale_write, double_execution, missed_slots
	cases := []struct {
		story  string
		policy cron.Policy
		check  string
	}{
		{"skew-ahead", cron.Policy{Idempotency: true, Claim: true}, checker.CheckStaleWrite},
		{"skew-behind", cron.Policy{Fencing: true, Claim: true}, checker.CheckDoubleExecution},
		{"crash-mid-run", cron.Policy{Fencing: true, Idempotency: true, Claim: true}, checker.CheckDoubleExecution},
		{"quartz-catch-up", cron.Policy{Fencing: true, Idempotency: true, Claim: true}, checker.CheckDoubleExecution},
	}
	stories := map[string]contractStory{}
	for _, st := range contractStories() {
		stories[st.name] = st
	}
	for _, tc := range cases {
		t.Run(tc.story, func(t *testing.T) {
			rep, _ := playContract(t, stories[tc.story], tc.policy, safe)
			v := findings(rep, tc.check)
			require.NotEmpty(t, v, "%s under %v breaks %s", tc.story, tc.policy, tc.check)
			for _, verdict := range v {
				assert.Equal(t, contract.Breach, verdict)
			}
			ok, problems := rep.Judge(checker.Expect{Allow: []string{tc.check, checker.CheckLinearizability, checker.CheckSplitBrain, checker.CheckLeaderLinearizability}})
			assert.False(t, ok, "a breach fails the run whatever expect allows")
			assert.NotEmpty(t, problems)
		})
	}
}
