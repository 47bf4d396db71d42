package scenario

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/electsim/electsim/cron"
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

// YAML writes the scenario in the file format, so that Parse reads back an
// equivalent scenario.
func (sc *Scenario) YAML() []byte {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("name: %s\n", quote(sc.Name))
	if sc.Description != "" {
		w("description: %s\n", quote(sc.Description))
	}
	w("seed: %d\nduration: %s\nstart: %s\n", sc.Seed, dur(sc.Duration), sc.Start.UTC().Format(time.RFC3339Nano))
	if sc.MaxEvents != DefaultMaxEvents {
		w("max_events: %d\n", sc.MaxEvents)
	}
	if sc.MaxEventRate != DefaultMaxEventRate {
		w("max_event_rate: %d\n", sc.MaxEventRate)
	}
	w("cluster:\n  nodes: %d\n  fsync: %s\n", sc.Nodes, distYAML(sc.Fsync))
	if len(sc.Clocks) > 0 {
		w("  clocks:\n")
		for _, c := range sc.Clocks {
			parts := []string{"node: " + nodeName(c.Node)}
			if c.OffsetLo != 0 || c.OffsetHi != 0 {
				parts = append(parts, "offset: "+durRange(c.OffsetLo, c.OffsetHi))
			}
			for _, f := range []struct {
				k      string
				lo, hi float64
			}{{"rate", c.RateLo, c.RateHi}, {"mono_rate", c.MonoRateLo, c.MonoRateHi}, {"wall_rate", c.WallRateLo, c.WallRateHi}} {
				if f.lo != 0 {
					parts = append(parts, f.k+": "+floatRange(f.lo, f.hi))
				}
			}
			w("    - {%s}\n", strings.Join(parts, ", "))
		}
	}
	n := sc.Network
	w("network:\n  latency: %s\n  drop: %s\n  duplicate: %s\n", distYAML(n.Latency), floatRange(n.DropLo, n.DropHi), floatRange(n.DupLo, n.DupHi))
	if n.FIFO {
		w("  fifo: true\n")
	}
	if len(n.Links) > 0 {
		w("  links:\n")
		for _, l := range n.Links {
			parts := []string{"from: " + nodeName(l.From), "to: " + nodeName(l.To)}
			if l.Both {
				parts = append(parts, "both: true")
			}
			if l.Latency != nil {
				parts = append(parts, "latency: "+distYAML(*l.Latency))
			}
			if l.Drop != nil {
				parts = append(parts, "drop: "+fl(*l.Drop))
			}
			if l.Dup != nil {
				parts = append(parts, "duplicate: "+fl(*l.Dup))
			}
			if l.FIFO != nil {
				parts = append(parts, "fifo: "+strconv.FormatBool(*l.FIFO))
			}
			w("    - {%s}\n", strings.Join(parts, ", "))
		}
	}
	if sc.Algorithm.Name != "" && !sc.noElection() {
		parts := []string{"name: " + sc.Algorithm.Name}
		for _, v := range sc.Algorithm.values {
			parts = append(parts, v.def.Key+": "+v.yaml())
		}
		w("algorithm: {%s}\n", strings.Join(parts, ", "))
	}
	if c := sc.Cron; c != nil {
		cfg := c.Config
		w("cron:\n  mode: %s\n  jobs:\n", c.Mode)
		for _, j := range cfg.Jobs {
			w("    - {name: %s, schedule: %s, duration: %s", quote(j.Name), quote(j.Schedule), durRange(j.RunMin, j.RunMax))
			if j.Writes > 1 {
				w(", writes: %d", j.Writes)
			}
			if j.RequestsRecovery {
				w(", requests_recovery: true")
			}
			w("}\n")
		}
		var pol []string
		if cfg.Policy.Fencing {
			pol = append(pol, "fencing")
		}
		if cfg.Policy.Idempotency {
			pol = append(pol, "idempotency")
		}
		if cfg.Policy.Claim {
			pol = append(pol, "claim")
		}
		if len(pol) == 0 {
			pol = []string{"none"}
		}
		w("  policy: [%s]\n", strings.Join(pol, ", "))
		if cfg.Policy.FencingScope != "" {
			w("  fencing_scope: %s\n", cfg.Policy.FencingScope)
		}
		if cfg.Misfire != (cron.Misfire{}) {
			var mp []string
			if cfg.Misfire.Policy != "" {
				mp = append(mp, "policy: "+cfg.Misfire.Policy)
			}
			if cfg.Misfire.Threshold != 0 {
				mp = append(mp, "threshold: "+dur(cfg.Misfire.Threshold))
			}
			if cfg.Misfire.Lookback != 0 {
				mp = append(mp, "lookback: "+dur(cfg.Misfire.Lookback))
			}
			w("  misfire: {%s}\n", strings.Join(mp, ", "))
		}
		if cfg.PollInterval != 0 {
			w("  poll_interval: %s\n", dur(cfg.PollInterval))
		}
		if cfg.WriteTimeout != 0 {
			w("  write_timeout: %s\n", dur(cfg.WriteTimeout))
		}
		if cfg.WriteRetries != 0 {
			w("  write_retries: %d\n", cfg.WriteRetries)
		}
		if c.Mode == "shedlock" {
			sl := cfg.ShedLock
			var sp []string
			if sl.LockAtMostFor != 0 {
				sp = append(sp, "lock_at_most_for: "+dur(sl.LockAtMostFor))
			}
			sp = append(sp, "lock_at_least_for: "+dur(sl.LockAtLeastFor))
			if sl.Time != "" {
				sp = append(sp, "time: "+sl.Time)
			}
			w("  shedlock: {%s}\n", strings.Join(sp, ", "))
		}
		if c.Mode == "queue" {
			w("  queue: {%s}\n", queueYAML(cfg.Queue))
		}
		if c.Mode == "celery" {
			w("  celery: {%s}\n", celeryYAML(cfg))
		}
		if c.Mode == "kubernetes" {
			w("  kubernetes: {%s}\n", kubeYAML(cfg.Kube))
		}
	}
	if len(sc.Faults) > 0 || len(sc.Nemeses) > 0 {
		w("faults:\n")
		for _, f := range sc.Faults {
			w("  - %s\n", sc.faultYAML(f))
		}
		for _, nm := range sc.Nemeses {
			w("  - %s\n", sc.nemesisYAML(nm))
		}
	}
	w("settle: {for: %s, leader_within: %s}\n", dur(sc.Settle.For), dur(sc.Settle.LeaderWithin))
	e := sc.Expect
	var ep []string
	if len(e.MustOccur) > 0 {
		ep = append(ep, "violations: ["+strings.Join(e.MustOccur, ", ")+"]")
	}
	if len(e.Allow) > 0 {
		ep = append(ep, "allow: ["+strings.Join(e.Allow, ", ")+"]")
	}
	if e.FailOnHarmless {
		ep = append(ep, "fail_on_harmless: true")
	}
	if e.ContractOnly {
		ep = append(ep, "breaches: []")
	}
	for _, d := range []struct {
		k string
		v time.Duration
	}{{"failover_under", e.FailoverUnder}, {"detect_under", e.DetectUnder}, {"fenced_run_under", e.FencedRunUnder}} {
		if d.v != 0 {
			ep = append(ep, d.k+": "+dur(d.v))
		}
	}
	if e.MaxFlapsPerMinute != 0 {
		ep = append(ep, "max_flaps_per_minute: "+fl(e.MaxFlapsPerMinute))
	}
	if len(ep) > 0 {
		w("expect: {%s}\n", strings.Join(ep, ", "))
	}
	return []byte(b.String())
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
