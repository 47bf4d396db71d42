package scenario

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/electsim/electsim/checker"
	"github.com/electsim/electsim/cron"
)

// yamlText is the text YAML builds, section by section.
type yamlText struct{ strings.Builder }

// w appends formatted text.
func (y *yamlText) w(format string, args ...any) { fmt.Fprintf(&y.Builder, format, args...) }

// YAML writes the scenario in the file format, so that Parse reads back an
// equivalent scenario: its sections in the file's order, each leaving out
// what has its default.
func (sc *Scenario) YAML() []byte {
	y := &yamlText{}
	sc.headerYAML(y)
	sc.clusterYAML(y)
	sc.networkYAML(y)
	if sc.Algorithm.Name != "" && !sc.noElection() {
		parts := []string{"name: " + sc.Algorithm.Name}
		for _, v := range sc.Algorithm.values {
			parts = append(parts, v.def.Key+": "+v.yaml())
		}
		y.w("algorithm: {%s}\n", strings.Join(parts, ", "))
	}
	if c := sc.Cron; c != nil {
		cronYAML(y, c)
	}
	if len(sc.Faults) > 0 || len(sc.Nemeses) > 0 {
		y.w("faults:\n")
		for _, f := range sc.Faults {
			y.w("  - %s\n", sc.faultYAML(f))
		}
		for _, nm := range sc.Nemeses {
			y.w("  - %s\n", sc.nemesisYAML(nm))
		}
	}
	y.w("settle: {for: %s, leader_within: %s}\n", dur(sc.Settle.For), dur(sc.Settle.LeaderWithin))
	expectYAML(y, sc.Expect)
	return []byte(y.String())
}

// headerYAML writes the top-level scalars: name, seed, duration, start
// and the event budgets that differ from the defaults.
func (sc *Scenario) headerYAML(y *yamlText) {
	y.w("name: %s\n", quote(sc.Name))
	if sc.Description != "" {
		y.w("description: %s\n", quote(sc.Description))
	}
	y.w("seed: %d\nduration: %s\nstart: %s\n", sc.Seed, dur(sc.Duration), sc.Start.UTC().Format(time.RFC3339Nano))
	if sc.MaxEvents != DefaultMaxEvents {
		y.w("max_events: %d\n", sc.MaxEvents)
	}
	if sc.MaxEventRate != DefaultMaxEventRate {
		y.w("max_event_rate: %d\n", sc.MaxEventRate)
	}
}

// clusterYAML writes cluster: its size, disk latency and the clocks that
// are off.
func (sc *Scenario) clusterYAML(y *yamlText) {
	y.w("cluster:\n  nodes: %d\n  fsync: %s\n", sc.Nodes, distYAML(sc.Fsync))
	if len(sc.Clocks) == 0 {
		return
	}
	y.w("  clocks:\n")
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
		y.w("    - {%s}\n", strings.Join(parts, ", "))
	}
}

// networkYAML writes network: the default link and each link set apart.
func (sc *Scenario) networkYAML(y *yamlText) {
	n := sc.Network
	y.w("network:\n  latency: %s\n  drop: %s\n  duplicate: %s\n", distYAML(n.Latency), floatRange(n.DropLo, n.DropHi), floatRange(n.DupLo, n.DupHi))
	if n.FIFO {
		y.w("  fifo: true\n")
	}
	if len(n.Links) == 0 {
		return
	}
	y.w("  links:\n")
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
		y.w("    - {%s}\n", strings.Join(parts, ", "))
	}
}

// cronYAML writes cron: the mode, the jobs, the write policy, the
// options set, and the mode's own section.
func cronYAML(y *yamlText, c *CronSpec) {
	cfg := c.Config
	y.w("cron:\n  mode: %s\n  jobs:\n", c.Mode)
	for _, j := range cfg.Jobs {
		y.w("    - {name: %s, schedule: %s, duration: %s", quote(j.Name), quote(j.Schedule), durRange(j.RunMin, j.RunMax))
		if j.Writes > 1 {
			y.w(", writes: %d", j.Writes)
		}
		if j.RequestsRecovery {
			y.w(", requests_recovery: true")
		}
		y.w("}\n")
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
	y.w("  policy: [%s]\n", strings.Join(pol, ", "))
	if cfg.Policy.FencingScope != "" {
		y.w("  fencing_scope: %s\n", cfg.Policy.FencingScope)
	}
	cronOptionsYAML(y, &cfg)
	cronModeYAML(y, c.Mode, &cfg)
}

// cronOptionsYAML writes the cron layer's options that are set: misfire
// handling, polling and the resource writes' timeout and retries.
func cronOptionsYAML(y *yamlText, cfg *cron.Config) {
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
		y.w("  misfire: {%s}\n", strings.Join(mp, ", "))
	}
	if cfg.PollInterval != 0 {
		y.w("  poll_interval: %s\n", dur(cfg.PollInterval))
	}
	if cfg.WriteTimeout != 0 {
		y.w("  write_timeout: %s\n", dur(cfg.WriteTimeout))
	}
	if cfg.WriteRetries != 0 {
		y.w("  write_retries: %d\n", cfg.WriteRetries)
	}
}

// cronModeYAML writes the section of the cron mode that has one.
func cronModeYAML(y *yamlText, mode string, cfg *cron.Config) {
	switch mode {
	case "shedlock":
		sl := cfg.ShedLock
		var sp []string
		if sl.LockAtMostFor != 0 {
			sp = append(sp, "lock_at_most_for: "+dur(sl.LockAtMostFor))
		}
		sp = append(sp, "lock_at_least_for: "+dur(sl.LockAtLeastFor))
		if sl.Time != "" {
			sp = append(sp, "time: "+sl.Time)
		}
		y.w("  shedlock: {%s}\n", strings.Join(sp, ", "))
	case "queue":
		y.w("  queue: {%s}\n", queueYAML(cfg.Queue))
	case "celery":
		y.w("  celery: {%s}\n", celeryYAML(*cfg))
	case "kubernetes":
		y.w("  kubernetes: {%s}\n", kubeYAML(cfg.Kube))
	}
}

// expectYAML writes expect: what the runs must and may show, left out
// when everything has its default.
func expectYAML(y *yamlText, e checker.Expect) {
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
		y.w("expect: {%s}\n", strings.Join(ep, ", "))
	}
}
