package simrun

import (
	"github.com/electsim/electsim/registry"
	"github.com/electsim/electsim/reports"
	"github.com/electsim/electsim/scenario"
)

// tokenInfo is where algo's leaders got their fencing token in sc (the
// scenario's own algorithm section, or algo's defaults under -algo), or
// nil when algo's library hands one out.
func tokenInfo(sc *scenario.Scenario, algo string) *reports.Token {
	spec := sc.Algorithm
	if algo != spec.Name {
		spec = scenario.AlgorithmSpec{Name: algo}
	}
	tok, ok := spec.Token()
	if !ok {
		return nil
	}
	fenced := sc.Cron != nil && sc.Cron.Mode != "shedlock" && sc.Cron.Config.Policy.Fencing
	return &reports.Token{Source: tok.Source, AppAddition: tok.AppRead, Cost: tok.Cost, FencesNothing: fenced && tok.Source == registry.TokenNone}
}

// tokenNote is the summary table's note on a group's token: "" when the
// library hands one out.
func tokenNote(t *reports.Token) string {
	switch {
	case t == nil:
		return ""
	case t.FencesNothing:
		return "fencing token: none (the library hands none): fencing rejected nothing"
	case t.AppAddition:
		return "fencing token: " + t.Source + " (an application addition: " + t.Cost + ")"
	}
	return ""
}
