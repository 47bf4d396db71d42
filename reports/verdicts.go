package reports

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Contract verdicts of a finding (ViolationSummary.Contract), and the key
// VerdictCounts uses for a finding the contract does not cover (Contract
// empty).
const (
	VerdictBreach      = "breach"
	VerdictExcused     = "excused"
	VerdictWithinBound = "within_bound"
	VerdictNoContract  = "no_contract"
)

// verdictOrder ranks the verdicts from the most serious: a run counts once
// per check, under the most serious verdict of its findings of the check.
// A breach fails the run whatever the scenario allows; a finding the
// contract does not cover is the scenario's expect to judge; an excused one
// happened under a fault the contract excepts; one within bound kept the
// contract's promise.
var verdictOrder = []string{VerdictBreach, VerdictNoContract, VerdictExcused, VerdictWithinBound}

// VerdictCounts splits the runs AlgoSummary.Violations counts for one check
// by the contract's verdict on their findings of it (docs/output.md,
// violations_by_verdict); the four add up to the check's Violations count.
type VerdictCounts struct {
	Breach      int `json:"breach,omitempty"`
	Excused     int `json:"excused,omitempty"`
	WithinBound int `json:"within_bound,omitempty"`
	NoContract  int `json:"no_contract,omitempty"`
}

// Total is the runs counted, whatever the verdict.
func (v VerdictCounts) Total() int { return v.Breach + v.Excused + v.WithinBound + v.NoContract }

// Covered reports whether any of the runs has a finding the contract
// covers (breach, excused or within bound).
func (v VerdictCounts) Covered() bool { return v.Breach+v.Excused+v.WithinBound > 0 }

// counts returns the four counts in verdictOrder, with their keys.
func (v *VerdictCounts) counts() []struct {
	key string
	n   *int
} {
	return []struct {
		key string
		n   *int
	}{{VerdictBreach, &v.Breach}, {VerdictNoContract, &v.NoContract}, {VerdictExcused, &v.Excused}, {VerdictWithinBound, &v.WithinBound}}
}

// add counts one run under verdict.
func (v *VerdictCounts) add(verdict string) {
	for _, c := range v.counts() {
		if c.key == verdict {
			*c.n++
		}
	}
}

// String lists the non-zero counts, most serious first: "breach 1,
// excused 2" (with "no contract" for no_contract).
func (v VerdictCounts) String() string {
	var parts []string
	for _, c := range v.counts() {
		if *c.n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", strings.ReplaceAll(c.key, "_", " "), *c.n))
		}
	}
	return strings.Join(parts, ", ")
}

// findingVerdict is a finding's verdict key: its Contract, or no_contract.
func findingVerdict(v *ViolationSummary) string {
	if slices.Contains(verdictOrder, v.Contract) {
		return v.Contract
	}
	return VerdictNoContract
}

// addVerdicts counts run r's harmful findings of each check under the most
// serious of their verdicts (the runs AlgoSummary.Violations counts).
func (a *AlgoSummary) addVerdicts(r *RunSummary) {
	worst := map[string]int{} // check → index in verdictOrder
	var kinds []string
	for i := range r.Violations {
		v := &r.Violations[i]
		if v.Harmless {
			continue
		}
		rank := slices.Index(verdictOrder, findingVerdict(v))
		w, seen := worst[v.Kind]
		if !seen {
			kinds = append(kinds, v.Kind)
		}
		if !seen || rank < w {
			worst[v.Kind] = rank
		}
	}
	if len(kinds) == 0 {
		return
	}
	if a.ViolationsByVerdict == nil {
		a.ViolationsByVerdict = map[string]VerdictCounts{}
	}
	for _, k := range kinds {
		c := a.ViolationsByVerdict[k]
		c.add(verdictOrder[worst[k]])
		a.ViolationsByVerdict[k] = c
	}
}

// mergeVerdicts adds b's split to a's. A summary from before the split
// (violations without violations_by_verdict) leaves the merged group
// without one: a partial split would misstate the verdicts.
func (a *AlgoSummary) mergeVerdicts(b *AlgoSummary) {
	if b.ViolationsByVerdict == nil && sumCounts(b.Violations) > 0 {
		a.verdictsUnknown = true
	}
	for k, n := range b.ViolationsByVerdict {
		if a.ViolationsByVerdict == nil {
			a.ViolationsByVerdict = map[string]VerdictCounts{}
		}
		c := a.ViolationsByVerdict[k]
		c.Breach += n.Breach
		c.Excused += n.Excused
		c.WithinBound += n.WithinBound
		c.NoContract += n.NoContract
		a.ViolationsByVerdict[k] = c
	}
}

// finishVerdicts drops a split that a summary without one made partial.
func (a *AlgoSummary) finishVerdicts() {
	if a.verdictsUnknown {
		a.ViolationsByVerdict = nil
	}
}

func sumCounts(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// checkVerdicts refuses a group whose violations_by_verdict disagrees with
// its violations: a negative count, a check whose verdicts do not add up
// to its violations (or a check with violations and no split), or more
// breaching runs of a check than runs breaking the contract at all. A
// group without the split (a summary from before it) passes.
func checkVerdicts(i int, a *AlgoSummary) error {
	if a.ViolationsByVerdict == nil {
		return nil
	}
	for _, k := range slices.Sorted(maps.Keys(a.ViolationsByVerdict)) { // the first error, the same every time
		v := a.ViolationsByVerdict[k]
		for _, c := range v.counts() {
			if *c.n < 0 || *c.n > a.Runs { // a run counts once per check
				return fmt.Errorf("reports: merge: summary %d: %s: violations_by_verdict.%s.%s is %d, of %d runs", i, a.Key(), k, c.key, *c.n, a.Runs)
			}
		}
		if v.Total() != a.Violations[k] {
			return fmt.Errorf("reports: merge: summary %d: %s: violations_by_verdict.%s adds up to %d runs, violations.%s is %d", i, a.Key(), k, v.Total(), k, a.Violations[k])
		}
		if v.Breach > a.BreachRuns {
			return fmt.Errorf("reports: merge: summary %d: %s: %d runs breach the contract on %s but breach_runs is %d", i, a.Key(), v.Breach, k, a.BreachRuns)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(a.Violations)) {
		n := a.Violations[k]
		if _, ok := a.ViolationsByVerdict[k]; n > 0 && !ok {
			return fmt.Errorf("reports: merge: summary %d: %s: violations.%s is %d but violations_by_verdict has no %s", i, a.Key(), k, n, k)
		}
	}
	return nil
}

// groupVerdicts fills each harmful violation group's split by verdict (its
// check's counts summed over the summary's groups) and returns the split
// summed over every check, for the report's heading; "" when no contract
// covers any of them.
func groupVerdicts(s *Summary, groups []violationGroup) string {
	var all VerdictCounts
	for i := range groups {
		g := &groups[i]
		if g.Harmless {
			continue
		}
		var c VerdictCounts
		for _, a := range s.Algorithms {
			v := a.ViolationsByVerdict[g.Kind]
			c.Breach += v.Breach
			c.Excused += v.Excused
			c.WithinBound += v.WithinBound
			c.NoContract += v.NoContract
		}
		g.VC = c
		if c.Covered() {
			g.Verdicts = c.String()
		}
		all.Breach += c.Breach
		all.Excused += c.Excused
		all.WithinBound += c.WithinBound
		all.NoContract += c.NoContract
	}
	if !all.Covered() {
		return ""
	}
	return all.String()
}
