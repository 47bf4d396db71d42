package checker

import (
	"fmt"
	"slices"
	"strings"

	"github.com/electsim/electsim/faults"
	"github.com/electsim/electsim/sim"
)

// MaxExplainLines bounds a finding's explanation (ExplainFinding): "at
// most a dozen lines" (issue 38 point 8).
const MaxExplainLines = 12

// maxExplainFaults bounds the fault lines of an explanation.
const maxExplainFaults = 5

// Finding is the violation a failing run is about, given the checks it
// failed (scenario.Failure): the first violation, harmful before
// harmless, of the first failed check in report order (the order of the
// run's problem lines). Without one (an expect bound, a missing expected
// check), the run's first harmful violation.
func (r Report) Finding(failed []string) (Violation, bool) {
	for _, c := range r.Checks {
		if !slices.Contains(failed, c.Name) || len(c.Violations) == 0 {
			continue
		}
		for _, v := range c.Violations {
			if !v.Harmless {
				return v, true
			}
		}
		return c.Violations[0], true
	}
	for _, c := range r.Checks {
		for _, v := range c.Violations {
			if !v.Harmless {
				return v, true
			}
		}
	}
	return Violation{}, false
}

// ExplainFinding is v's explanation for a terminal, in at most
// MaxExplainLines lines: a header naming v's own check and its statement;
// the faults RelevantFaults selects (at most five, most relevant first);
// then v's story, its earliest steps cut to fit. Lines after the first
// are indented by two spaces. applied are the run's injected faults
// (faults.Injector.Applied), candidates its election's nodes.
func ExplainFinding(v Violation, applied []faults.Applied, candidates []sim.NodeID) string {
	lines := []string{v.Kind + ": " + v.Details}
	if fs := RelevantFaults(applied, v, candidates); len(fs) > 0 {
		lines = append(lines, "  faults on its nodes and services, most relevant first:")
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
		room := MaxExplainLines - len(lines) - 1
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

// faultLine is one applied fault: when it acted (times as the story
// shows them), and what it did.
func faultLine(a faults.Applied) string {
	span := "t=" + a.At.String()
	if a.Reverted {
		span += "–" + a.RevertedAt.String()
	}
	return span + " " + a.Detail
}
