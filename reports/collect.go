package reports

import (
	"slices"
	"sort"
)

// KeepAllRuns is the largest sweep whose summary keeps every run in
// Summary.Runs; a bigger one keeps its notable runs only (docs/output.md).
const KeepAllRuns = 200

// MaxKeptRuns is how many notable runs a bigger sweep's summary keeps: the
// first in run order (group, then seed), so every shard of a sweep keeps a
// superset of what the merged sweep keeps.
const MaxKeptRuns = 100

// What Summary.Runs holds (Summary.RunsKept).
const (
	// KeptAll: every run.
	KeptAll = "all"
	// KeptNotable: the first MaxKeptRuns notable runs (Notable).
	KeptNotable = "notable"
)

// Notable reports whether a summary that cannot keep every run keeps r:
// it did not meet its expectations or has a finding (a harmless one
// included).
func Notable(r *RunSummary) bool { return !r.OK || len(r.Violations) > 0 }

// Collector aggregates a sweep's runs as they finish, in memory that does
// not grow with their number: one AlgoSummary per group and the runs the
// summary keeps. Groups are ranked by the caller (a sweep's group order:
// grid cell, then algorithm), and kept runs are ordered by (rank, seed),
// so the result does not depend on the order runs are added in. It is not
// safe for concurrent use.
type Collector struct {
	keepAll bool
	groups  []*AlgoSummary // by rank; nil until the group's first run
	kept    []rankedRun    // sorted by (rank, seed) unless keepAll (sorted on Kept)
	runs    int
	failed  int
}

type rankedRun struct {
	rank int
	run  RunSummary
}

// NewCollector returns a collector keeping every run (keepAll) or the
// first MaxKeptRuns notable ones.
func NewCollector(keepAll bool) *Collector { return &Collector{keepAll: keepAll} }

// KeepsAll reports whether the collector keeps every run.
func (c *Collector) KeepsAll() bool { return c.keepAll }

// Runs is the number of runs added (AddGroup's included).
func (c *Collector) Runs() int { return c.runs }

// Failed is the number of those that did not meet their expectations.
func (c *Collector) Failed() int { return c.failed }

func (c *Collector) group(rank int, algo string, vary []string, groupLabel string) *AlgoSummary {
	for len(c.groups) <= rank {
		c.groups = append(c.groups, nil)
	}
	if c.groups[rank] == nil {
		c.groups[rank] = &AlgoSummary{Algorithm: algo, Vary: vary, Group: groupLabel, Violations: map[string]int{}, Harmless: map[string]int{}}
	}
	return c.groups[rank]
}

// Add aggregates run r of the group ranked rank and keeps it if the
// summary keeps it.
func (c *Collector) Add(rank int, r RunSummary) {
	c.group(rank, r.Algorithm, r.Vary, r.Group).addRun(&r)
	c.runs++
	if !r.OK {
		c.failed++
	}
	c.Keep(rank, r)
}

// AddGroup merges a group's aggregate (of another shard) into the group
// ranked rank.
func (c *Collector) AddGroup(rank int, a *AlgoSummary) {
	c.group(rank, a.Algorithm, a.Vary, a.Group).merge(a)
	c.runs += a.Runs
	c.failed += a.Runs - a.OK
}

// Keep keeps r (a run already counted, of another shard) if the summary
// keeps it.
func (c *Collector) Keep(rank int, r RunSummary) {
	if c.keepAll {
		c.kept = append(c.kept, rankedRun{rank, r})
		return
	}
	if !Notable(&r) {
		return
	}
	// less(a): a comes before r. Full, r goes only before the last kept
	// run (which it then pushes out), whatever order runs come in.
	less := func(a rankedRun) bool { return a.rank < rank || (a.rank == rank && a.run.Seed < r.Seed) }
	if len(c.kept) == MaxKeptRuns && less(c.kept[len(c.kept)-1]) {
		return
	}
	i := sort.Search(len(c.kept), func(i int) bool { return !less(c.kept[i]) })
	c.kept = slices.Insert(c.kept, i, rankedRun{rank, r})
	if len(c.kept) > MaxKeptRuns {
		c.kept = c.kept[:MaxKeptRuns]
	}
}

// Groups is the aggregate of every group, in rank order, with the derived
// statistics computed.
func (c *Collector) Groups() []AlgoSummary {
	var out []AlgoSummary
	for _, g := range c.groups {
		if g != nil {
			g.finish()
			out = append(out, *g)
		}
	}
	return out
}

// Kept is the runs kept, in (rank, seed) order.
func (c *Collector) Kept() []RunSummary {
	sort.SliceStable(c.kept, func(i, j int) bool {
		a, b := &c.kept[i], &c.kept[j]
		return a.rank < b.rank || (a.rank == b.rank && a.run.Seed < b.run.Seed)
	})
	out := make([]RunSummary, len(c.kept))
	for i, k := range c.kept {
		out[i] = k.run
	}
	return out
}

// KeptMode is Summary.RunsKept for what the collector keeps.
func (c *Collector) KeptMode() string {
	if c.keepAll {
		return KeptAll
	}
	return KeptNotable
}

// FindingTally counts one kind of finding of a group: how many there were,
// in how many runs, and how many of them were in runs that did not meet
// their expectations. Harmless findings are tallied apart.
type FindingTally struct {
	Kind      string `json:"kind"`
	Harmless  bool   `json:"harmless,omitempty"`
	Findings  int    `json:"findings"`
	Runs      int    `json:"runs"`
	InFailing int    `json:"in_failing_runs"`
}

func (a *AlgoSummary) tally(kind string, harmless bool) *FindingTally {
	i := sort.Search(len(a.Findings), func(i int) bool {
		f := &a.Findings[i]
		return f.Kind > kind || (f.Kind == kind && (f.Harmless || !harmless))
	})
	if i == len(a.Findings) || a.Findings[i].Kind != kind || a.Findings[i].Harmless != harmless {
		a.Findings = slices.Insert(a.Findings, i, FindingTally{Kind: kind, Harmless: harmless})
	}
	return &a.Findings[i]
}

// addRun aggregates one run.
func (a *AlgoSummary) addRun(r *RunSummary) {
	if a.Runs == 0 || r.Seed < a.FirstSeed {
		a.FirstSeed = r.Seed
	}
	a.Runs++
	if r.OK {
		a.OK++
	} else if a.FirstFailingSeed == nil || r.Seed < *a.FirstFailingSeed {
		seed := r.Seed
		a.FirstFailingSeed = &seed
	}
	a.Events += r.Events
	if r.Breaches > 0 {
		a.BreachRuns++
	}
	a.LeaderlessDist.Add(r.LeaderlessMs)
	for _, f := range r.Failovers {
		a.Failovers++
		if f.Completed && f.LatencyMs != nil {
			a.FailoverDist.Add(*f.LatencyMs)
		} else {
			a.FailoversNever++
		}
		a.FailoverElections += f.Elections
		a.FailoverMessages += f.Messages
		if f.Elections > 0 && f.Messages >= 0 {
			a.MessagesPerElectionDist.Add(float64(f.Messages) / float64(f.Elections))
		}
	}
	for k, n := range r.Counters {
		if a.Counters == nil {
			a.Counters = map[string]int{}
		}
		a.Counters[k] += n
	}
	for k, st := range r.Checks {
		if st == "unknown" {
			if a.Unknown == nil {
				a.Unknown = map[string]int{}
			}
			a.Unknown[k]++
		}
	}
	// A run counts once per kind: as a violation if any finding of the
	// kind is harmful, else as harmless.
	var harmful, harmless []string
	for i, v := range r.Violations {
		t := a.tally(v.Kind, v.Harmless)
		t.Findings++
		if !r.OK {
			t.InFailing++
		}
		if !slices.ContainsFunc(r.Violations[:i], func(w ViolationSummary) bool { return w.Kind == v.Kind && w.Harmless == v.Harmless }) {
			t.Runs++
		}
		if v.Harmless {
			harmless = append(harmless, v.Kind)
		} else {
			harmful = append(harmful, v.Kind)
		}
	}
	slices.Sort(harmful)
	harmful = slices.Compact(harmful)
	slices.Sort(harmless)
	harmless = slices.Compact(harmless)
	for _, k := range harmful {
		a.Violations[k]++
	}
	a.addVerdicts(r)
	for _, k := range harmless {
		if !slices.Contains(harmful, k) {
			a.Harmless[k]++
		}
	}
	if slices.Contains(harmful, "split_brain") || slices.Contains(harmless, "split_brain") {
		a.SplitBrainRuns++
	}
	if slices.Contains(harmful, "double_execution") {
		a.DoubleExecutionRuns++
	}
}

// merge adds b's counts to a.
func (a *AlgoSummary) merge(b *AlgoSummary) {
	if b.Runs == 0 {
		return
	}
	if a.Token == nil {
		a.Token = b.Token
	}
	if a.Caveat == "" {
		a.Caveat = b.Caveat
	}
	if a.Runs == 0 || b.FirstSeed < a.FirstSeed {
		a.FirstSeed = b.FirstSeed
	}
	if f := b.FirstFailingSeed; f != nil && (a.FirstFailingSeed == nil || *f < *a.FirstFailingSeed) {
		seed := *f
		a.FirstFailingSeed = &seed
	}
	a.Runs += b.Runs
	a.OK += b.OK
	a.Events += b.Events
	a.Failovers += b.Failovers
	a.FailoversNever += b.FailoversNever
	a.FailoverElections += b.FailoverElections
	a.FailoverMessages += b.FailoverMessages
	a.SplitBrainRuns += b.SplitBrainRuns
	a.DoubleExecutionRuns += b.DoubleExecutionRuns
	a.BreachRuns += b.BreachRuns
	a.FailoverDist.Merge(&b.FailoverDist)
	a.LeaderlessDist.Merge(&b.LeaderlessDist)
	a.MessagesPerElectionDist.Merge(&b.MessagesPerElectionDist)
	addCounts := func(dst *map[string]int, src map[string]int) {
		for k, n := range src {
			if *dst == nil {
				*dst = map[string]int{}
			}
			(*dst)[k] += n
		}
	}
	addCounts(&a.Violations, b.Violations)
	a.mergeVerdicts(b)
	addCounts(&a.Harmless, b.Harmless)
	addCounts(&a.Unknown, b.Unknown)
	addCounts(&a.Counters, b.Counters)
	for _, f := range b.Findings {
		t := a.tally(f.Kind, f.Harmless)
		t.Findings += f.Findings
		t.Runs += f.Runs
		t.InFailing += f.InFailing
	}
}

// finish computes the derived statistics from the counts.
func (a *AlgoSummary) finish() {
	a.finishVerdicts()
	a.FailoverMs = a.FailoverDist.Stats()
	a.LeaderlessMs = a.LeaderlessDist.Stats()
	a.ElectionsPerFailover, a.MessagesPerFailover = 0, 0
	if a.Failovers > 0 {
		a.ElectionsPerFailover = round3(float64(a.FailoverElections) / float64(a.Failovers))
		a.MessagesPerFailover = round3(float64(a.FailoverMessages) / float64(a.Failovers))
	}
	a.SplitBrainRate, a.DoubleExecutionRate = 0, 0
	if a.Runs > 0 {
		a.SplitBrainRate = round3(float64(a.SplitBrainRuns) / float64(a.Runs))
		a.DoubleExecutionRate = round3(float64(a.DoubleExecutionRuns) / float64(a.Runs))
	}
}
