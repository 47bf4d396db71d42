package simrun

import (
	"fmt"
	"slices"
	"strings"

	"github.com/electsim/electsim/checker"
	"github.com/electsim/electsim/reports"
	"github.com/electsim/electsim/scenario"
)

// Limits of a parameter sweep (docs/studies.md), checked before any run.
const (
	// MaxVaryDims is how many -vary dimensions one sweep takes.
	MaxVaryDims = 2
	// MaxVaryValues is how many values one dimension takes.
	MaxVaryValues = 32
)

// HeatMetrics are what a two-dimensional sweep's heatmap can show
// (-heat): rates of runs, with Wilson intervals, or the failover p99; any
// check's name is a metric too (the rate of runs with a finding of it,
// harmful or harmless: heatChecks). auto, the default, is resolved once
// the sweep is done (reports.AutoHeat): failed when a run failed its
// expectations, else the check most runs found (an expected lost_slot),
// so the default shows what failed.
var HeatMetrics = []string{"auto", "failed", "failover_p99", "CHECK"}

// heatChecks are the check names -heat takes.
func heatChecks() []string {
	return append(append(append([]string(nil), checker.CheckNames...), checker.QueueCheckNames...), checker.ContractCheckNames...)
}

// validHeat reports whether -heat's value is a metric.
func validHeat(m string) bool {
	return m != "CHECK" && (slices.Contains(HeatMetrics, m) || slices.Contains(heatChecks(), m))
}

// varyDim is one -vary dimension: a scenario path and its values, each
// anything -set accepts for it.
type varyDim struct {
	spec   string // as given
	path   string
	values []string
}

// gridCell is one combination of the dimensions' values.
type gridCell struct {
	values []string // one per dimension
	sets   []string // path=value, one per dimension
	label  string   // e.g. "election_timeout=150ms..151ms"
}

// parseVary reads "PATH=V1,V2,…". Values are split at commas outside
// brackets, braces and quotes, so a list value ([a, b]) stays whole.
func parseVary(spec string) (varyDim, error) {
	path, list, ok := strings.Cut(spec, "=")
	path = strings.TrimSpace(path)
	if !ok || path == "" {
		return varyDim{}, usagef("-vary %q: want PATH=V1,V2,… (e.g. -vary algorithm.election_timeout=150ms..151ms,150ms..300ms)", spec)
	}
	vals := splitTopLevel(list)
	for i, v := range vals {
		if v == "" {
			return varyDim{}, usagef("-vary %s: value %d is empty", path, i+1)
		}
		for _, w := range vals[:i] {
			if w == v {
				return varyDim{}, usagef("-vary %s: value %q is given twice", path, v)
			}
		}
	}
	switch {
	case len(vals) < 2:
		return varyDim{}, usagef("-vary %s: give at least two values to compare, separated by commas", path)
	case len(vals) > MaxVaryValues:
		return varyDim{}, usagef("-vary %s: %d values, more than %d (MaxVaryValues)", path, len(vals), MaxVaryValues)
	}
	return varyDim{spec: spec, path: path, values: vals}, nil
}

// splitTopLevel splits s at commas that are not inside [], {} or quotes,
// trimming each part.
func splitTopLevel(s string) []string {
	var out []string
	depth, start := 0, 0
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '[' || c == '{':
			depth++
		case c == ']' || c == '}':
			depth--
		case c == ',' && depth == 0:
			out = append(out, strings.TrimSpace(s[start:i]))
			start = i + 1
		}
	}
	return append(out, strings.TrimSpace(s[start:]))
}

// gridOf is every combination of dims' values, the first dimension
// outermost; with no dimensions, one empty cell (a plain sweep).
func gridOf(dims []varyDim) []gridCell {
	cells := []gridCell{{}}
	for _, d := range dims {
		var next []gridCell
		for _, c := range cells {
			for _, v := range d.values {
				label := shortPath(d.path) + "=" + v
				if c.label != "" {
					label = c.label + ", " + label
				}
				next = append(next, gridCell{values: append(append([]string(nil), c.values...), v), sets: append(append([]string(nil), c.sets...), d.path+"="+v), label: label})
			}
		}
		cells = next
	}
	return cells
}

// shortPath is a path's last element, for labels: election_timeout.
func shortPath(p string) string {
	if i := strings.LastIndexByte(p, '.'); i >= 0 {
		return p[i+1:]
	}
	return p
}

// loadCells loads the scenario once per grid cell, with the -set
// overrides and then the cell's values. A value the scenario refuses is a
// usage error naming the dimension and the value.
func loadCells(o *options, cells []gridCell) ([]*scenario.Scenario, error) {
	return loadCellsAs(o, cells, "-vary", scenario.ParseOptions{})
}

// loadCellsAs is loadCells naming the flag that gave the values, read
// with po (scenario.ParseOptions.DeferUserCode: a sweep that may isolate
// its algorithm reads its file without the algorithm's code first).
func loadCellsAs(o *options, cells []gridCell, flagName string, po scenario.ParseOptions) ([]*scenario.Scenario, error) {
	scs := make([]*scenario.Scenario, len(cells))
	for i, c := range cells {
		// Loaded for the algorithms that run: -set applies to them
		// (scenario.ParseRunning, docs/scenarios.md "Overrides").
		po.Running = o.algos
		sc, err := scenario.LoadWithOptions(o.scenario, cellSets(o, c), po)
		if err != nil {
			return nil, cellError(c, flagName, err)
		}
		sc.Program = o.prog
		scs[i] = sc
	}
	return scs, nil
}

// cellSets are the -set overrides of a grid cell: the sweep's, then the
// cell's values.
func cellSets(o *options, c gridCell) []string {
	return append(append([]string(nil), o.sets...), c.sets...)
}

// cellError is a cell's load error as loadCellsAs words it.
func cellError(c gridCell, flagName string, err error) error {
	if len(c.sets) == 0 {
		return usageError{err.Error()}
	}
	return usagef("%s: %s: %v", flagName, c.label, err)
}

// groupLabel is the group a run of algo in cell is shown under: the
// cell's label, after the algorithm when a sweep compares several ("" for
// a plain sweep: runs group by algorithm).
func groupLabel(c gridCell, algo string, algos int) string {
	if c.label == "" {
		return ""
	}
	if algos > 1 {
		return algo + " · " + c.label
	}
	return c.label
}

// gridSummary is the summary's record of the grid.
func gridSummary(dims []varyDim, heat string) *reports.Grid {
	if len(dims) == 0 {
		return nil
	}
	g := &reports.Grid{}
	for _, d := range dims {
		g.Dims = append(g.Dims, reports.GridDim{Path: d.path, Values: d.values})
	}
	if len(dims) == 2 {
		g.Heat = heat
	}
	return g
}

func (d varyDim) String() string { return fmt.Sprintf("%s (%d values)", d.path, len(d.values)) }
