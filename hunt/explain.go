package hunt

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/electsim/electsim/checker"
	"github.com/electsim/electsim/faults"
	"github.com/electsim/electsim/scenario"
	"github.com/electsim/electsim/sim"
)

// maxExplainLines bounds a finding's explanation (issue 38 point 8: "at
// most a dozen lines").
const maxExplainLines = 12

// maxExplainFaults bounds the fault lines of an explanation.
const maxExplainFaults = 5

// explain is a finding's explanation, in at most maxExplainLines lines:
// the first violation of the finding's own checks (failure, in order; a
// harmful one before a harmless one), headed by its check and statement;
// the faults that touched its nodes or the services they use, most
// relevant first (acting during the finding, then the latest to end
// before it); then its story, cut to fit. Lines after the first are
// indented, for the one-line "explanation:" of simrun hunt.
func explain(r *scenario.Run, failure []string) string {
	v, ok := findingViolation(r, failure)
	if !ok {
		return firstHarmful(r)
	}
	lines := []string{v.Kind + ": " + v.Details}
	if fs := touching(r, v); len(fs) > 0 {
		lines = append(lines, "  faults on its nodes, most relevant first:")
		for i, a := range fs {
			if i == maxExplainFaults {
				lines = append(lines, fmt.Sprintf("    … %d more", len(fs)-i))
				break
			}
			lines = append(lines, "    "+faultLine(a))
		}
	}
	if v.Explanation != "" {
		story := strings.Split(v.Explanation, " · ")
		room := maxExplainLines - len(lines) - 1
		lines = append(lines, "  story:")
		if len(story) > room {
			cut := len(story) - (room - 1)
			story = append([]string{fmt.Sprintf("… %d earlier steps (the report has the whole story)", cut)}, story[cut:]...)
		}
		for _, s := range story {
			lines = append(lines, "    "+s)
		}
	}
	return strings.Join(lines, "\n")
}

// findingViolation is the violation a finding is about: the first of the
// first check of failure that has one, harmful before harmless.
func findingViolation(r *scenario.Run, failure []string) (checker.Violation, bool) {
	for _, f := range failure {
		c, ok := r.Report.Check(f)
		if !ok || len(c.Violations) == 0 {
			continue
		}
		for _, v := range c.Violations {
			if !v.Harmless {
				return v, true
			}
		}
		return c.Violations[0], true
	}
	return checker.Violation{}, false
}

// firstHarmful is a run's first harmful finding: its kind and story (the
// explanation of a failure no check names, e.g. an expect bound).
func firstHarmful(r *scenario.Run) string {
	for _, c := range r.Report.Checks {
		for _, v := range c.Violations {
			if !v.Harmless {
				if v.Explanation != "" {
					return v.Kind + ": " + v.Explanation
				}
				return v.Kind + ": " + v.Details
			}
		}
	}
	return ""
}

// touching lists the faults that acted on the finding's nodes or on the
// run's service nodes no later than the
// finding's end: those still acting when it began first (by injection),
// then the others, latest to end first.
func touching(r *scenario.Run, v checker.Violation) []faults.Applied {
	if r.Injector == nil {
		return nil
	}
	// Its nodes, and every service node: lease stores, the fenced
	// resource, a queue, its workers, the API server (no candidate).
	touches := func(n sim.NodeID) bool { return slices.Contains(v.NodeIDs, n) || !slices.Contains(r.Candidates, n) }
	end := max(v.End, v.At)
	var during, before []faults.Applied
	for _, a := range r.Injector.Applied() {
		if a.At > end || !slices.ContainsFunc(a.Nodes, touches) {
			continue
		}
		if !a.Reverted || a.RevertedAt >= v.At {
			during = append(during, a)
		} else {
			before = append(before, a)
		}
	}
	sort.SliceStable(before, func(i, j int) bool { return before[i].RevertedAt > before[j].RevertedAt })
	return append(during, before...)
}

// faultLine is one applied fault: when it acted, and what it did.
func faultLine(a faults.Applied) string {
	span := fmt.Sprintf("t=%.3fs", a.At.Duration().Seconds())
	if a.Reverted {
		span += fmt.Sprintf("–%.3fs", a.RevertedAt.Duration().Seconds())
	}
	return span + " " + a.Detail
}
