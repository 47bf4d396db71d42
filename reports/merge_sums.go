package reports

import (
	"fmt"
	"math"
)

// checkPartial refuses a part's partial record that its own counts deny:
// runs done must be the runs it aggregates, and at most the runs planned
// (a forged runs_done beyond runs_planned merged to a negative count of
// runs left out).
func checkPartial(i int, p *Summary) error {
	if p.Partial == nil {
		return nil
	}
	q := p.Partial
	if q.RunsDone != runsOf(p) || q.RunsDone < 0 || q.RunsPlanned < q.RunsDone {
		return fmt.Errorf("reports: merge: summary %d: partial says %d of %d runs done, its groups ran %d", i, q.RunsDone, q.RunsPlanned, runsOf(p))
	}
	return nil
}

// checkSums refuses parts whose counts, added up per group (and over all
// parts, for the partial record), pass what an int64 holds: Merge adds
// them without checks, and a forged count that wraps would merge into
// nonsense (a mean below the minimum, negative runs). Every count must
// also not be negative.
func checkSums(parts []*Summary) error {
	type sums struct {
		ints   [9]int64
		events uint64
		dists  [3]int64
		maps   map[string]int64
	}
	groups := map[string]*sums{}
	var done, planned int64
	add := func(i int, what string, total *int64, v int64) error {
		if v < 0 || *total > math.MaxInt-v || *total > math.MaxInt64-v {
			return fmt.Errorf("reports: merge: summary %d: %s: count %d is negative or overflows when added to the other summaries' %d", i, what, v, *total)
		}
		*total += v
		return nil
	}
	for i, p := range parts {
		if p.Partial != nil {
			if err := add(i, "partial.runs_done", &done, int64(p.Partial.RunsDone)); err != nil {
				return err
			}
			if err := add(i, "partial.runs_planned", &planned, int64(p.Partial.RunsPlanned)); err != nil {
				return err
			}
		}
		for j := range p.Algorithms {
			a := &p.Algorithms[j]
			s := groups[a.Key()]
			if s == nil {
				s = &sums{maps: map[string]int64{}}
				groups[a.Key()] = s
			}
			ints := [9]int{a.Runs, a.OK, a.FailoversNever, a.Failovers, a.FailoverElections, a.FailoverMessages, a.SplitBrainRuns, a.DoubleExecutionRuns, a.BreachRuns}
			for k, v := range ints {
				if err := add(i, a.Key()+" counts", &s.ints[k], int64(v)); err != nil {
					return err
				}
			}
			if s.events > math.MaxUint64-a.Events {
				return fmt.Errorf("reports: merge: summary %d: %s: events %d overflow when added to the other summaries' %d", i, a.Key(), a.Events, s.events)
			}
			s.events += a.Events
			for k, d := range []*Dist{&a.FailoverDist, &a.LeaderlessDist, &a.MessagesPerElectionDist} {
				if err := add(i, a.Key()+" distribution", &s.dists[k], d.n); err != nil {
					return err
				}
			}
			for k, v := range a.ViolationsByVerdict {
				for _, c := range v.counts() {
					t := s.maps["violations_by_verdict."+k+"."+c.key]
					if err := add(i, a.Key()+" violations_by_verdict", &t, int64(*c.n)); err != nil {
						return err
					}
					s.maps["violations_by_verdict."+k+"."+c.key] = t
				}
			}
			for name, m := range map[string]map[string]int{"violations": a.Violations, "harmless": a.Harmless, "unknown": a.Unknown, "counters": a.Counters} {
				for k, v := range m {
					t := s.maps[name+"."+k]
					if err := add(i, a.Key()+" "+name, &t, int64(v)); err != nil {
						return err
					}
					s.maps[name+"."+k] = t
				}
			}
		}
	}
	return nil
}
