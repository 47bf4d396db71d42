package reports

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Merge combines the summaries of a sharded sweep into the summary the
// unsharded sweep would have written: the parts must share schema,
// scenario and configuration and be either the shards of one seed range
// (every shard present) or summaries of contiguous seed ranges. Their
// groups' aggregates are merged (exactly: distributions are mergeable,
// Dist) and their kept runs combined (Combine); coverage is judged from the
// parts' seed ranges and shard numbers, and each part's run counts must
// agree with its range. Shard and Timing are dropped (shards' wall clocks
// do not add up to anything meaningful); distinct Go versions are joined
// with ", ". A part cut short by a signal makes the merge Partial.
func Merge(parts []*Summary) (*Summary, error) {
	if len(parts) == 0 {
		return nil, errors.New("reports: merge: no summaries")
	}
	for i, p := range parts {
		if p == nil {
			return nil, fmt.Errorf("reports: merge: summary %d is nil", i)
		}
		if p.Schema != Schema {
			return nil, fmt.Errorf("reports: merge: summary %d has schema %q, want %q", i, p.Schema, Schema)
		}
		if p.Scenario != parts[0].Scenario {
			return nil, fmt.Errorf("reports: merge: summary %d is of scenario %q (%s), summary 0 of %q (%s)",
				i, p.Scenario.Name, p.Scenario.File, parts[0].Scenario.Name, parts[0].Scenario.File)
		}
	}
	for i, p := range parts[1:] {
		if d := parts[0].Config.Diff(p.Config); d != "" {
			return nil, fmt.Errorf("reports: merge: summaries 0 and %d are of different configurations: %s", i+1, d)
		}
	}
	if err := checkShards(parts); err != nil {
		return nil, err
	}
	for i, p := range parts {
		if err := checkPart(i, p); err != nil {
			return nil, err
		}
		if err := checkPartial(i, p); err != nil {
			return nil, err
		}
	}
	if err := checkSums(parts); err != nil {
		return nil, err
	}
	seeds, err := coveredSeeds(parts)
	if err != nil {
		return nil, err
	}
	out, err := Combine(parts)
	if err != nil {
		return nil, err
	}
	out.Seeds = seeds
	// A part cut short by a signal leaves seeds out: the merge says so
	// (Partial) instead of refusing the gap.
	for _, p := range parts {
		if p.Partial == nil {
			continue
		}
		if out.Partial == nil {
			out.Partial = &Partial{Reason: p.Partial.Reason}
			for _, q := range parts {
				if q.Partial == nil {
					out.Partial.RunsDone += runsOf(q)
					out.Partial.RunsPlanned += runsOf(q)
				}
			}
		}
		out.Partial.RunsDone += p.Partial.RunsDone
		out.Partial.RunsPlanned += p.Partial.RunsPlanned
	}
	if out.Partial == nil {
		for i := range out.Algorithms {
			a := &out.Algorithms[i]
			if a.Runs != seeds.Count {
				return nil, fmt.Errorf("reports: merge: %s ran %d seeds of the %d from %d the summaries cover", a.Key(), a.Runs, seeds.Count, seeds.First)
			}
		}
	}
	return out, nil
}

// Combine merges parts' group aggregates and kept runs, without judging
// what seeds they cover (a sweep's worker processes hold some shards of
// it only). The result keeps every run if every part did and there are at
// most KeepAllRuns, else the first MaxKeptRuns notable ones. Groups are
// ranked in the order they first appear, part 0 first. It refuses a run
// kept by two parts.
func Combine(parts []*Summary) (*Summary, error) {
	rank := map[string]int{}
	var goVersions []string
	keepAll, total := true, 0
	for _, p := range parts {
		for _, a := range algoOrder(p) {
			if _, ok := rank[a]; !ok {
				rank[a] = len(rank)
			}
		}
		if p.GoVersion != "" && !slices.Contains(goVersions, p.GoVersion) {
			goVersions = append(goVersions, p.GoVersion)
		}
		keepAll = keepAll && p.RunsKept == KeptAll
		total += runsOf(p)
	}
	c := NewCollector(keepAll && total <= KeepAllRuns)
	type runKey struct {
		group string
		seed  uint64
	}
	seen := map[runKey]int{}
	for i, p := range parts {
		for j := range p.Algorithms {
			c.AddGroup(rank[p.Algorithms[j].Key()], &p.Algorithms[j])
		}
		for _, r := range p.Runs {
			k := runKey{r.Key(), r.Seed}
			if j, dup := seen[k]; dup {
				return nil, fmt.Errorf("reports: merge: seed %d under %s is in summaries %d and %d", r.Seed, r.Key(), j, i)
			}
			seen[k] = i
			c.Keep(rank[r.Key()], r)
		}
	}
	out := &Summary{Schema: Schema, Scenario: parts[0].Scenario, Config: parts[0].Config, Grid: parts[0].Grid,
		GoVersion: strings.Join(goVersions, ", "), NotApplicable: parts[0].NotApplicable}
	out.Algorithms = c.Groups()
	out.Runs = c.Kept()
	out.RunsKept = c.KeptMode()
	return out, nil
}

// runsOf is the number of runs p aggregates.
func runsOf(p *Summary) int {
	n := 0
	for _, a := range p.Algorithms {
		n += a.Runs
	}
	return n
}

// checkPart refuses a summary whose parts disagree: kept runs of a group
// it does not aggregate, more kept runs than it ran, or (keeping all)
// fewer; and, unless it is partial, a group that did not run every seed of
// its range.
func checkPart(i int, p *Summary) error {
	groups := map[string]int{}
	for _, a := range p.Algorithms {
		if _, dup := groups[a.Key()]; dup {
			return fmt.Errorf("reports: merge: summary %d aggregates %s twice", i, a.Key())
		}
		if a.Runs < 0 || a.OK < 0 || a.OK > a.Runs {
			return fmt.Errorf("reports: merge: summary %d: %s has %d runs, %d ok", i, a.Key(), a.Runs, a.OK)
		}
		if a.BreachRuns < 0 || a.BreachRuns > a.Runs-a.OK {
			return fmt.Errorf("reports: merge: summary %d: %s has %d runs breaking the contract but only %d failed", i, a.Key(), a.BreachRuns, a.Runs-a.OK)
		}
		if err := checkVerdicts(i, &a); err != nil {
			return err
		}
		groups[a.Key()] = a.Runs
	}
	kept := map[string]int{}
	for _, r := range p.Runs {
		if _, ok := groups[r.Key()]; !ok {
			return fmt.Errorf("reports: merge: summary %d keeps a run of %s (seed %d) but has no aggregate of it", i, r.Key(), r.Seed)
		}
		kept[r.Key()]++
	}
	switch p.RunsKept {
	case KeptAll, KeptNotable:
	default:
		return fmt.Errorf("reports: merge: summary %d: runs_kept is %q, want %q or %q", i, p.RunsKept, KeptAll, KeptNotable)
	}
	for _, a := range p.Algorithms {
		if kept[a.Key()] > a.Runs || (p.RunsKept == KeptAll && kept[a.Key()] != a.Runs) {
			return fmt.Errorf("reports: merge: summary %d keeps %d runs of %s, which ran %d", i, kept[a.Key()], a.Key(), a.Runs)
		}
		if p.Partial == nil && a.Runs != seedsOf(p) {
			return fmt.Errorf("reports: merge: summary %d: %s ran %d seeds, its seed range holds %d", i, a.Key(), a.Runs, seedsOf(p))
		}
	}
	return nil
}

// seedsOf is the number of seeds of p's range it runs: the seeds of its
// shard.
func seedsOf(p *Summary) int {
	if p.Shard == nil || p.Shard.Count < 1 {
		return p.Seeds.Count
	}
	if p.Shard.Index >= p.Seeds.Count {
		return 0
	}
	return (p.Seeds.Count - p.Shard.Index + p.Shard.Count - 1) / p.Shard.Count
}

// checkShards refuses parts that say they are shards of different splits
// or the same shard twice.
func checkShards(parts []*Summary) error {
	idx := map[int]int{}
	count := -1
	for i, p := range parts {
		if p.Shard == nil {
			continue
		}
		if count >= 0 && p.Shard.Count != count {
			return fmt.Errorf("reports: merge: summary %d is shard %d of %d, another of %d", i, p.Shard.Index, p.Shard.Count, count)
		}
		count = p.Shard.Count
		if p.Shard.Index < 0 || p.Shard.Index >= p.Shard.Count {
			return fmt.Errorf("reports: merge: summary %d is shard %d of %d: the index must be in 0..%d", i, p.Shard.Index, p.Shard.Count, p.Shard.Count-1)
		}
		if j, dup := idx[p.Shard.Index]; dup {
			return fmt.Errorf("reports: merge: summaries %d and %d are both shard %d of %d", j, i, p.Shard.Index, count)
		}
		idx[p.Shard.Index] = i
	}
	return nil
}

// coveredSeeds is the seed range the parts cover, judged from their
// metadata: shards of one range must all be there; unsharded summaries
// must hold contiguous, disjoint ranges.
func coveredSeeds(parts []*Summary) (SeedRange, error) {
	sharded := 0
	for _, p := range parts {
		if p.Shard != nil && p.Shard.Count > 1 {
			sharded++
		}
	}
	switch {
	case sharded == len(parts):
		n := parts[0].Shard.Count
		have := make([]bool, n)
		for i, p := range parts {
			if p.Seeds != parts[0].Seeds {
				return SeedRange{}, fmt.Errorf("reports: merge: summary %d is a shard of seeds %d+%d, summary 0 of %d+%d",
					i, p.Seeds.First, p.Seeds.Count, parts[0].Seeds.First, parts[0].Seeds.Count)
			}
			have[p.Shard.Index] = true
		}
		for k, ok := range have {
			if !ok {
				return SeedRange{}, fmt.Errorf("reports: merge: shard %d of %d is missing (seeds %d, %d, … are not covered)",
					k, n, parts[0].Seeds.First+uint64(k), parts[0].Seeds.First+uint64(k+n))
			}
		}
		return parts[0].Seeds, nil
	case sharded > 0:
		return SeedRange{}, errors.New("reports: merge: some summaries are shards (-shard) and some are not")
	}
	order := make([]*Summary, len(parts))
	copy(order, parts)
	sort.SliceStable(order, func(i, j int) bool { return order[i].Seeds.First < order[j].Seeds.First })
	out := order[0].Seeds
	for _, p := range order[1:] {
		end := out.First + uint64(out.Count)
		switch {
		case p.Seeds.First < end:
			return SeedRange{}, fmt.Errorf("reports: merge: seed %d is in two summaries (ranges %d+%d and %d+%d)",
				p.Seeds.First, out.First, out.Count, p.Seeds.First, p.Seeds.Count)
		case p.Seeds.First > end:
			return SeedRange{}, fmt.Errorf("reports: merge: seeds %d to %d are missing (a summary missing?)", end, p.Seeds.First-1)
		}
		out.Count += p.Seeds.Count
	}
	return out, nil
}
