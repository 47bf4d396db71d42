package reports

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// verdictSummary is four runs of raft under its contract: seed 1 has a
// split-brain the contract excuses (a clock-rate fault reached it) and an
// election_safety breach; seed 2 a split-brain within the contract's bound;
// seed 3 a breaching split-brain beside an excused one (it counts as a
// breach: the most serious verdict of the run's findings of the check);
// seed 4 a double execution no contract covers.
func verdictSummary() *Summary {
	return &Summary{Schema: Schema, Scenario: ScenarioInfo{Name: "verdicts"}, Seeds: SeedRange{First: 1, Count: 4},
		Runs: []RunSummary{
			{Seed: 1, Algorithm: "raft", OK: false, Breaches: 1, Violations: []ViolationSummary{
				{Kind: "split_brain", AtMs: 100, Details: "two acting", Contract: VerdictExcused, ExcusedBy: "clock_rate"},
				{Kind: "election_safety", AtMs: 200, Details: "two leaders in term 3", Contract: VerdictBreach}}},
			{Seed: 2, Algorithm: "raft", OK: true, Violations: []ViolationSummary{
				{Kind: "split_brain", AtMs: 300, Details: "overlap 4ms", Contract: VerdictWithinBound}}},
			{Seed: 3, Algorithm: "raft", OK: false, Breaches: 1, Violations: []ViolationSummary{
				{Kind: "split_brain", AtMs: 50, Contract: VerdictExcused, ExcusedBy: "pause"},
				{Kind: "split_brain", AtMs: 60, Contract: VerdictBreach},
				{Kind: "split_brain", AtMs: 70, Harmless: true}}},
			{Seed: 4, Algorithm: "raft", OK: false, Violations: []ViolationSummary{{Kind: "double_execution", AtMs: 10}}},
		}}
}

// summary.json: violations keeps counting every run with a violation of a
// check; violations_by_verdict splits each count by verdict and adds up
// to it.
func TestViolationsByVerdictAggregate(t *testing.T) {
	s := verdictSummary()
	s.Aggregate()
	a := s.Algorithms[0]
	assert.Equal(t, map[string]int{"split_brain": 3, "election_safety": 1, "double_execution": 1}, a.Violations)
	assert.Equal(t, map[string]VerdictCounts{
		"split_brain":      {Breach: 1, Excused: 1, WithinBound: 1},
		"election_safety":  {Breach: 1},
		"double_execution": {NoContract: 1},
	}, a.ViolationsByVerdict)
	assert.Equal(t, 2, a.BreachRuns)
	assert.Equal(t, "breach 1, excused 1, within bound 1", a.ViolationsByVerdict["split_brain"].String())

	var b bytes.Buffer
	require.NoError(t, WriteJSON(&b, s))
	var raw struct {
		Algorithms []map[string]json.RawMessage `json:"algorithms"`
	}
	require.NoError(t, json.Unmarshal(b.Bytes(), &raw))
	assert.JSONEq(t, `{"split_brain": {"breach": 1, "excused": 1, "within_bound": 1}, "election_safety": {"breach": 1}, "double_execution": {"no_contract": 1}}`,
		string(raw.Algorithms[0]["violations_by_verdict"]))
	back, err := ReadJSON(&b)
	require.NoError(t, err)
	assert.Equal(t, a.ViolationsByVerdict, back.Algorithms[0].ViolationsByVerdict)

	// A run with no violation adds nothing: no split at all.
	clean := &Summary{Schema: Schema, Seeds: SeedRange{First: 1, Count: 1}, Runs: []RunSummary{{Seed: 1, Algorithm: "raft", OK: true}}}
	clean.Aggregate()
	assert.Nil(t, clean.Algorithms[0].ViolationsByVerdict)
}

// report.html: the heading counts runs by verdict, the overview's
// violations column and each check's group carry their split, and every
// finding its badge (breach, excused by which fault class, within bound);
// a finding no contract covers has none.
func TestReportShowsVerdicts(t *testing.T) {
	s := verdictSummary()
	s.Aggregate()
	html, _ := writeReport(t, s, nil, HTMLExtras{})
	assertHas(t, html, "Runs by the contract's verdict, in all: breach 2, no contract 1, excused 1, within bound 1")
	// A plain table of the checks and their runs by verdict (issue 38
	// point 9: the heading said "Violations (11220; runs by contract
	// verdict: no contract 2261, excused 1625)").
	assertHas(t, html, `<th>breach</th><th>excused</th><th>within bound</th><th>no contract</th>`)
	assertHas(t, html, `split_brain</a></td><td>4</td><td>3</td><td>3</td><td>1</td><td>1</td><td>1</td><td>0</td>`)
	assertHas(t, html, `double_execution</a></td><td>1</td><td>1</td><td>1</td><td>0</td><td>0</td><td>0</td><td>1</td>`)
	assertHasNot(t, html, `Violations (5; runs by`)
	assertHas(t, html, `split_brain <b>3</b> <span class="verdicts">(breach 1, excused 1, within bound 1)</span>`)
	assertHas(t, html, `election_safety <b>1</b> <span class="verdicts">(breach 1)</span>`)
	assertHas(t, html, `double_execution <b>1</b></span>`, "no contract covers it: no split")
	assertHas(t, html, `<span class="tag verdicts">runs: breach 1, excused 1, within bound 1</span>`)
	assertHas(t, html, `<span class="tag bad verdict">contract breach</span>`)
	assertHas(t, html, `<span class="tag verdict">excused by clock_rate</span>`)
	assertHas(t, html, `<span class="tag verdict">excused by pause</span>`)
	assertHas(t, html, `<span class="tag verdict">within the contract's bound</span>`)

	// Without a contract nothing speaks of verdicts.
	h := handSummary()
	h.Aggregate()
	plain, _ := writeReport(t, h, nil, HTMLExtras{})
	assertHasNot(t, plain, "contract verdict")
	assertHasNot(t, plain, `class="tag verdict`)
	assertHasNot(t, plain, `class="verdicts"`)
}

// simrun merge: two shards' splits add up; a forged split (not adding up
// to violations, negative, more than the runs, more breaching runs than
// breach_runs, or missing for a check with violations) is refused; a
// shard from before the split merges into a summary without one.
func TestMergeViolationsByVerdict(t *testing.T) {
	full := verdictSummary()
	s0, s1 := shard(full, 0, 2), shard(full, 1, 2)
	require.NotEmpty(t, s0.Algorithms[0].ViolationsByVerdict)
	require.NotEmpty(t, s1.Algorithms[0].ViolationsByVerdict)
	got, err := Merge([]*Summary{s0, s1})
	require.NoError(t, err)
	full.Aggregate()
	assert.Equal(t, full.Algorithms[0].ViolationsByVerdict, got.Algorithms[0].ViolationsByVerdict)
	assert.Equal(t, VerdictCounts{Breach: 1, Excused: 1, WithinBound: 1}, got.Algorithms[0].ViolationsByVerdict["split_brain"])

	for name, tc := range map[string]struct {
		forge func(a *AlgoSummary)
		want  string
	}{
		"not adding up": {func(a *AlgoSummary) {
			c := a.ViolationsByVerdict["split_brain"]
			c.Excused++
			a.ViolationsByVerdict["split_brain"] = c
		}, "violations_by_verdict.split_brain adds up to 3 runs, violations.split_brain is 2"},
		"negative": {func(a *AlgoSummary) {
			c := a.ViolationsByVerdict["split_brain"]
			c.Excused, c.Breach = -1, c.Breach+1
			a.ViolationsByVerdict["split_brain"] = c
		}, "violations_by_verdict.split_brain.excused is -1"},
		"more than the runs": {func(a *AlgoSummary) {
			a.ViolationsByVerdict["split_brain"] = VerdictCounts{Excused: 1 << 30, WithinBound: -(1 << 30) + 2}
		}, "violations_by_verdict.split_brain.excused is 1073741824, of 2 runs"},
		"breach beyond breach_runs": {func(a *AlgoSummary) {
			a.BreachRuns = 0
		}, "1 runs breach the contract on election_safety but breach_runs is 0"},
		"missing check": {func(a *AlgoSummary) {
			delete(a.ViolationsByVerdict, "split_brain")
		}, "violations.split_brain is 2 but violations_by_verdict has no split_brain"},
	} {
		forged := shard(full, 0, 2)
		tc.forge(&forged.Algorithms[0])
		_, err := Merge([]*Summary{forged, s1})
		assert.ErrorContains(t, err, tc.want, name)
	}

	// A shard written before the split: violations, no split. The merge
	// keeps violations and drops the split, which would be partial.
	old := shard(full, 0, 2)
	old.Algorithms[0].ViolationsByVerdict = nil
	got, err = Merge([]*Summary{old, s1})
	require.NoError(t, err)
	assert.Equal(t, full.Algorithms[0].Violations, got.Algorithms[0].Violations)
	assert.Nil(t, got.Algorithms[0].ViolationsByVerdict)
}
