package scenario

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/electsim/electsim/faults"
	"github.com/electsim/electsim/registry"
	"github.com/electsim/electsim/sim"
)

// Explicit returns the scenario this run executed with every random choice
// made concrete: ranged parameters as drawn, a random ring order as
// arranged, and every fault that was injected (explicit or from a nemesis)
// as an explicit fault at the instant it fired, aimed at the nodes it hit.
// Running it with the same seed reproduces the run (simrun -materialize).
//
// It panics for a run made with RunOptions.Lean, which keeps no fault
// history to make explicit.
func (r *Run) Explicit() *Scenario {
	if !r.Injector.KeepsHistory() {
		panic("scenarios: Run.Explicit of a run made with RunOptions.Lean")
	}
	sc := *r.concrete
	sc.Seed = r.Seed
	sc.Nemeses = nil
	sc.Faults = nil
	for _, a := range r.Injector.Applied() {
		f := a.Explicit()
		if f.Kind() == "" {
			continue
		}
		sc.Faults = append(sc.Faults, f)
	}
	return &sc
}

func quote(s string) string { return strconv.Quote(s) }

func dur(d time.Duration) string {
	if d == 0 {
		return "0s"
	}
	return d.String()
}

func durRange(lo, hi time.Duration) string {
	if lo == hi {
		return dur(lo)
	}
	return dur(lo) + ".." + dur(hi)
}

func fl(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

func floatRange(lo, hi float64) string {
	if lo == hi {
		return fl(lo)
	}
	return fl(lo) + ".." + fl(hi)
}

func nodeName(id sim.NodeID) string { return "n" + strconv.Itoa(int(id)+1) }

func distYAML(d sim.Dist) string {
	switch d.Kind {
	case sim.DistConstant:
		return "{dist: constant, min: " + dur(d.Min) + "}"
	case sim.DistUniform:
		return "{dist: uniform, min: " + dur(d.Min) + ", max: " + dur(d.Max) + "}"
	case sim.DistExponential:
		s := "{dist: exponential, min: " + dur(d.Min) + ", mean: " + dur(d.Mean)
		if d.Max > 0 {
			s += ", max: " + dur(d.Max)
		}
		return s + "}"
	case sim.DistNormal:
		s := "{dist: normal, mean: " + dur(d.Mean) + ", stddev: " + dur(d.StdDev) + ", min: " + dur(d.Min)
		if d.Max > 0 {
			s += ", max: " + dur(d.Max)
		}
		return s + "}"
	}
	return "{dist: constant, min: 0s}"
}

// yaml formats a parameter value as the file format writes it.
func (v paramValue) yaml() string {
	switch v.def.Kind {
	case registry.Duration:
		return durRange(v.durLo, v.durHi)
	case registry.DurationRange:
		return dur(v.durLo) + ".." + dur(v.durHi)
	}
	return v.text()
}

// targetYAML formats a target; node IDs beyond the candidates are the
// scenario's service nodes and are written by name (store, resource).
func (sc *Scenario) targetYAML(t faults.Target) string {
	switch t.Kind {
	case faults.TargetNode:
		if len(t.Nodes) == 1 {
			return sc.refName(t.Nodes[0])
		}
		parts := make([]string, len(t.Nodes))
		for i, id := range t.Nodes {
			parts[i] = sc.refName(id)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case faults.TargetRandom:
		if t.Count > 1 {
			return fmt.Sprintf("{kind: random, count: %d}", t.Count)
		}
	}
	return string(t.Kind)
}

// refName names a node in a target: n1…nN, store, store2… or resource.
func (sc *Scenario) refName(id sim.NodeID) string {
	if int(id) < sc.Nodes {
		return nodeName(id)
	}
	if sc.hasStore() && int(id) == sc.Nodes {
		return "store"
	}
	for k := 2; k <= sc.storeCount(); k++ {
		if id == extraStoreID(k, sc.Nodes, sc.Cron != nil) {
			return storeName(k)
		}
	}
	if name, ok := sc.queueNodeName(id); ok {
		return name
	}
	if name, ok := sc.celeryNodeName(id); ok {
		return name
	}
	if name, ok := sc.kubeNodeName(id); ok {
		return name
	}
	return "resource"
}

func durRangeYAML(r faults.DurRange) string { return durRange(r.Min, r.Max) }

func floatRangeYAML(r faults.FloatRange) string { return floatRange(r.Min, r.Max) }

func intRange(r faults.IntRange) string {
	if r.Min == r.Max {
		return strconv.Itoa(r.Min)
	}
	return strconv.Itoa(r.Min) + ".." + strconv.Itoa(r.Max)
}
