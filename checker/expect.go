package checker

import (
	"fmt"
	"time"

	"github.com/electsim/electsim/contract"
)

// Expect is a scenario's expectations. The zero value is the default: every
// check must hold (harmless belief-level findings excepted), and nothing is
// bounded beyond the checks themselves.
type Expect struct {
	// MustOccur names checks that must be violated: the run is a
	// demonstration and fails if they are not. A harmless finding counts
	// as occurring.
	MustOccur []string
	// Allow names checks whose violations (or unknown verdicts) are
	// tolerated without being required.
	Allow []string
	// FailOnHarmless makes harmless findings (a belief-level split-brain the
	// resource neutralised) fail the run too. Default false: they are
	// reported but do not fail it.
	FailOnHarmless bool
	// FailoverUnder bounds every failover: a recognised leader must be back
	// in less than this after each fault that removed one. Zero: unbounded.
	FailoverUnder time.Duration
	// DetectUnder bounds every failover's detection time. Zero: unbounded.
	DetectUnder time.Duration
	// FencedRunUnder bounds the time from each fault to the new tenure's
	// first write applied by the resource. Zero: unbounded.
	FencedRunUnder time.Duration
	// MaxFlapsPerMinute bounds leader changes per minute over the run.
	// Zero: unbounded.
	MaxFlapsPerMinute float64
	// ContractOnly (a file's `breaches: []`) judges the checks the
	// algorithm's contract covers by the contract alone: findings it
	// excuses or bounds pass, as a swarm or a regression suite wants.
	// Default false: the scenario's expectations are the user's, and a
	// finding they neither require nor allow fails the run even when the
	// contract excuses it (the algorithm is not broken, but the scheme
	// does not give what the user asked for).
	ContractOnly bool
}

// Fails reports whether a violation of check would fail a run judged
// against e, as far as can be told before its harm is assessed: the check
// is neither required nor allowed, and for split_brain the finding would
// not be harmless (harmless needs a fenced resource to judge it, and fails
// only with FailOnHarmless).
func (e Expect) Fails(check string, hasResource bool) bool {
	if contains(e.MustOccur, check) || contains(e.Allow, check) {
		return false
	}
	if check == CheckSplitBrain && hasResource && !e.FailOnHarmless {
		return false
	}
	return true
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Judge holds the report against e. ok is true when every expectation held;
// problems lists, one line each, every expectation that did not.
func (r Report) Judge(e Expect) (ok bool, problems []string) {
	for _, name := range append(append([]string(nil), e.MustOccur...), e.Allow...) {
		if _, found := r.Check(name); !found {
			problems = append(problems, fmt.Sprintf("expect names unknown check %q (known: %v)", name, CheckNames))
		}
	}
	for _, c := range r.Checks {
		if c.Breaches > 0 {
			// A contract breach fails the run whatever expect allows or
			// requires: allow never hides a broken guarantee.
			p := fmt.Sprintf("%s: %d finding(s) break the algorithm's contract", c.Name, c.Breaches)
			for _, v := range c.Violations {
				if v.Contract == contract.Breach {
					p += "; first: " + v.Details
					if v.KnownBug != "" && v.Excuse != nil {
						p += fmt.Sprintf(" (known bug %s, triggered by %s on %s)", v.KnownBug, v.Excuse.Class, v.Excuse.NodeName)
					}
					break
				}
			}
			problems = append(problems, p)
			continue
		}
		within := c.Status == StatusViolated && c.Excused+c.WithinBound == c.Count
		switch {
		case contains(e.MustOccur, c.Name):
			if c.Status != StatusViolated {
				problems = append(problems, fmt.Sprintf("%s was expected to occur but did not (%s: %s)", c.Name, c.Status, c.Summary))
			}
		case contains(e.Allow, c.Name):
		case c.Status == StatusUnknown:
			problems = append(problems, fmt.Sprintf("%s: %s", c.Name, c.Summary))
		case within && e.ContractOnly:
			// Every finding is inside the contract's exceptions or bound,
			// and the file asked for the contract's judgement alone.
		case c.Status == StatusViolated && (e.FailOnHarmless || !c.OnlyHarmless()):
			p := fmt.Sprintf("%s violated: %s", c.Name, c.Summary)
			for _, v := range c.Violations {
				if !v.Harmless || e.FailOnHarmless {
					p += "; first: " + v.Details + excusedNote(v)
					break
				}
			}
			problems = append(problems, p)
		}
	}
	for _, f := range r.Failovers {
		switch {
		case e.FailoverUnder > 0 && !f.Completed:
			problems = append(problems, fmt.Sprintf("failover after t=%v (%s) never completed (bound %v)", f.FaultAt, f.Fault, e.FailoverUnder))
		case e.FailoverUnder > 0 && f.Latency >= e.FailoverUnder:
			problems = append(problems, fmt.Sprintf("failover after t=%v (%s) took %v, not under %v", f.FaultAt, f.Fault, ms(f.Latency), e.FailoverUnder))
		}
		if e.DetectUnder > 0 && (!f.Detected || f.Detection >= e.DetectUnder) && !(f.Completed && !f.Detected && f.Latency < e.DetectUnder) {
			problems = append(problems, fmt.Sprintf("failover after t=%v (%s): detection %s, not under %v", f.FaultAt, f.Fault, detection(f), e.DetectUnder))
		}
		if e.FencedRunUnder > 0 && (!f.FencedRun || f.ToFencedRun >= e.FencedRunUnder) {
			if f.FencedRun {
				problems = append(problems, fmt.Sprintf("failover after t=%v (%s): first fenced run after %v, not under %v", f.FaultAt, f.Fault, ms(f.ToFencedRun), e.FencedRunUnder))
			} else {
				problems = append(problems, fmt.Sprintf("failover after t=%v (%s): no fenced run followed (want one under %v)", f.FaultAt, f.Fault, e.FencedRunUnder))
			}
		}
	}
	if e.MaxFlapsPerMinute > 0 && r.FlapsPerMinute > e.MaxFlapsPerMinute {
		problems = append(problems, fmt.Sprintf("%.2f leader changes per minute, more than %.2f", r.FlapsPerMinute, e.MaxFlapsPerMinute))
	}
	return len(problems) == 0, problems
}

// excusedNote says, for a finding the contract excused or bounded, that
// the algorithm is not broken: the expectation failed, not the algorithm.
func excusedNote(v Violation) string {
	switch {
	case v.Contract == contract.Excused && v.Excuse != nil:
		return fmt.Sprintf(" (excused by the algorithm's contract: %s on %s; the algorithm promises nothing under it, so this scenario's expect fails; `breaches: []` would judge by the contract alone)", v.Excuse.Class, v.Excuse.NodeName)
	case v.Contract == contract.WithinBound:
		return " (within the algorithm's contract bound; this scenario's expect fails; `breaches: []` would judge by the contract alone)"
	}
	return ""
}

func detection(f Failover) string {
	if !f.Detected {
		return "never observed"
	}
	return f.Detection.String()
}
