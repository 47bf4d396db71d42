package reports

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Merge combines the summaries of a sharded sweep into the summary the
// unsharded sweep would have written: the parts must share schema and
// scenario and hold disjoint runs that together cover a contiguous seed
// range with every algorithm on every seed. Runs are concatenated and sorted
// by (algorithm in order of first appearance, part 0 first; seed), Seeds
// becomes the covered range, Shard and Timing are dropped (shards' wall
// clocks do not add up to anything meaningful) and Algorithms is recomputed.
// Distinct Go versions are joined with ", ". The merged runs share their
// maps and slices with the parts.
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

	rank := map[string]int{}
	var goVersions []string
	out := &Summary{Schema: Schema, Scenario: parts[0].Scenario, Config: parts[0].Config, Grid: parts[0].Grid}
	type runKey struct {
		group string
		seed  uint64
	}
	seen := map[runKey]int{}
	for i, p := range parts {
		for _, a := range algoOrder(p) {
			if _, ok := rank[a]; !ok {
				rank[a] = len(rank)
			}
		}
		if p.GoVersion != "" && !slices.Contains(goVersions, p.GoVersion) {
			goVersions = append(goVersions, p.GoVersion)
		}
		for _, r := range p.Runs {
			k := runKey{r.Key(), r.Seed}
			if j, dup := seen[k]; dup {
				return nil, fmt.Errorf("reports: merge: seed %d under %s is in summaries %d and %d", r.Seed, r.Key(), j, i)
			}
			seen[k] = i
			out.Runs = append(out.Runs, r)
		}
	}
	out.GoVersion = strings.Join(goVersions, ", ")
	sort.SliceStable(out.Runs, func(i, j int) bool {
		a, b := &out.Runs[i], &out.Runs[j]
		if a.Key() != b.Key() {
			return rank[a.Key()] < rank[b.Key()]
		}
		return a.Seed < b.Seed
	})
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
					out.Partial.RunsDone += len(q.Runs)
					out.Partial.RunsPlanned += len(q.Runs)
				}
			}
		}
		out.Partial.RunsDone += p.Partial.RunsDone
		out.Partial.RunsPlanned += p.Partial.RunsPlanned
	}
	if out.Partial != nil {
		out.Seeds = SeedRange{First: parts[0].Seeds.First}
		for _, r := range out.Runs {
			out.Seeds.Count = max(out.Seeds.Count, int(r.Seed-out.Seeds.First)+1)
		}
		out.Aggregate()
		return out, nil
	}
	seeds, err := coveredSeeds(out.Runs, parts[0].Seeds.First)
	if err != nil {
		return nil, err
	}
	out.Seeds = seeds
	out.Aggregate()
	return out, nil
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

// coveredSeeds is the seed range runs (sorted by algorithm, then seed)
// cover. Every algorithm must have run exactly the same seeds and they must
// be contiguous: a gap means a shard is missing. With no runs the range is
// empty at first.
func coveredSeeds(runs []RunSummary, first uint64) (SeedRange, error) {
	if len(runs) == 0 {
		return SeedRange{First: first}, nil
	}
	var ref []uint64 // the first algorithm's seeds
	for i := 0; i < len(runs); {
		j := i
		for j < len(runs) && runs[j].Key() == runs[i].Key() {
			j++
		}
		seeds := make([]uint64, 0, j-i)
		for _, r := range runs[i:j] {
			seeds = append(seeds, r.Seed)
		}
		if ref == nil {
			ref = seeds
			for k := 1; k < len(ref); k++ {
				if ref[k] != ref[k-1]+1 {
					return SeedRange{}, fmt.Errorf("reports: merge: seeds %d to %d are missing under %s (a shard missing?)",
						ref[k-1]+1, ref[k]-1, runs[i].Key())
				}
			}
		} else if !slices.Equal(ref, seeds) {
			return SeedRange{}, fmt.Errorf("reports: merge: %s ran %d seeds from %d, %s %d seeds from %d",
				runs[0].Key(), len(ref), ref[0], runs[i].Key(), len(seeds), seeds[0])
		}
		i = j
	}
	return SeedRange{First: ref[0], Count: len(ref)}, nil
}
