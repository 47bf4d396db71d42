// Package scenarios reads electsim's scenario files — YAML descriptions of a
// cluster, its network, an election algorithm, an optional cron workload, a
// fault schedule, a settle phase and expectations — strictly, with every
// error naming file, line, column and field, and builds runs from them. The
// shipped catalogue lives next to this file (*.yaml). docs/scenarios.md is
// the grammar.
package scenarios

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/electsim/electsim/checker"
	"github.com/electsim/electsim/cron"
	"github.com/electsim/electsim/faults"
	"github.com/electsim/electsim/sim"
)

// MaxNodes bounds a scenario's cluster size.
const MaxNodes = 64

// Scenario is a loaded, validated scenario. Ranges are kept as written and
// drawn per run from the run's fault stream, so one file describes a family
// of runs and a seed picks one.
type Scenario struct {
	// File is the path it was loaded from.
	File string
	// Name and Description tell its story.
	Name        string
	Description string
	// Seed is the default seed.
	Seed uint64
	// Duration is the fault phase's length (true time).
	Duration time.Duration
	// Start is the calendar time every wall clock reads at true time 0.
	Start time.Time
	// Nodes is the number of candidates (n1..nN).
	Nodes int
	// Fsync is the candidates' disk write latency.
	Fsync sim.Dist
	// Clocks are per-node initial clock settings, applied before any node
	// starts (a fault's clock change happens after the nodes have read
	// their clocks and armed their timers).
	Clocks []ClockSpec
	// Network is the default link configuration; Links override single links.
	Network NetworkSpec
	// Algorithm is the election algorithm (nil-able in ShedLock mode).
	Algorithm AlgorithmSpec
	// Cron is the cron workload, if any.
	Cron *CronSpec
	// Faults are the explicit faults, in file order.
	Faults []faults.Fault
	// Nemeses are the random fault generators.
	Nemeses []faults.Nemesis
	// Settle is the heal-and-settle phase.
	Settle SettleSpec
	// Expect is what the runs must show (checker.Expect).
	Expect checker.Expect
	// MaxEvents bounds each run (default 50,000,000).
	MaxEvents uint64
}

// ClockSpec is one node's initial clock: a wall-clock offset and rates
// (ranges are drawn per run).
type ClockSpec struct {
	Node                   sim.NodeID
	OffsetLo, OffsetHi     time.Duration
	RateLo, RateHi         float64 // both clocks; 0 = unchanged
	MonoRateLo, MonoRateHi float64
	WallRateLo, WallRateHi float64
}

// NetworkSpec is the network section.
type NetworkSpec struct {
	Latency  sim.Dist
	DropLo   float64
	DropHi   float64
	DupLo    float64
	DupHi    float64
	FIFO     bool
	Links    []LinkSpec
	latencyN *ynode
}

// LinkSpec overrides one directed link (or both directions with Both).
type LinkSpec struct {
	From, To sim.NodeID
	Both     bool
	Latency  *sim.Dist
	Drop     *float64
	Dup      *float64
	FIFO     *bool
}

// CronSpec is the cron section.
type CronSpec struct {
	// Mode is "leader" (default: the algorithm's leader runs jobs) or
	// "shedlock" (no election; per-job locks at the lease store).
	Mode   string
	Config cron.Config
}

// SettleSpec is the settle phase: after Duration every fault is reverted and
// the run continues For; liveness is judged in it.
type SettleSpec struct {
	For          time.Duration
	LeaderWithin time.Duration
}

// Load reads and validates a scenario file. On error it returns Errors, every
// problem with file:line:column and field; no partial scenario.
func Load(path string) (*Scenario, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, src)
}

// Parse reads and validates scenario source; name is used in errors.
func Parse(name string, src []byte) (*Scenario, error) {
	root, perr := parseYAML(name, src)
	if perr != nil {
		return nil, Errors{perr}
	}
	l := &loader{file: name}
	sc := l.readScenario(root)
	if len(l.errs) > 0 {
		return nil, l.errs.sorted()
	}
	sc.File = name
	return sc, nil
}

func (l *loader) readScenario(root *ynode) *Scenario {
	sc := &Scenario{Seed: 1, Start: sim.DefaultWallStart, Nodes: 3, Fsync: sim.Constant(0), MaxEvents: 50_000_000,
		Network: NetworkSpec{Latency: sim.Uniform(time.Millisecond, 10*time.Millisecond)},
		Settle:  SettleSpec{For: 20 * time.Second, LeaderWithin: 5 * time.Second}}
	if root.kind != yMap {
		l.errAt(root, "", "a scenario is a mapping of sections (name, duration, cluster, network, algorithm, …), got %s", describe(root))
		return sc
	}
	m := l.mapOf(root, "")
	if !m.str("name", &sc.Name) {
		if !m.has("name") {
			l.errAt(root, "name", "missing: every scenario needs a name")
		}
	}
	m.str("description", &sc.Description)
	m.uint64v("seed", &sc.Seed)
	if !m.dur("duration", &sc.Duration) && !m.has("duration") {
		l.errAt(root, "duration", "missing: how long the fault phase runs, e.g. 60s")
	} else if sc.Duration == 0 && m.has("duration") {
		l.errAt(m.get("duration"), "duration", "must be positive")
	}
	if n, s, ok := m.scalar("start"); ok {
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			l.errAt(n, "start", "%q is not an RFC 3339 time such as 2026-11-21T01:59:00Z", s)
		} else {
			sc.Start = t.UTC()
		}
	}
	if m.has("max_events") {
		var k int
		if m.integer("max_events", &k, 1000, 1<<31-1) {
			sc.MaxEvents = uint64(k)
		}
	}
	l.readCluster(m.get("cluster"), sc)
	l.readNetwork(m.get("network"), sc)
	if n := m.get("cron"); n != nil {
		sc.Cron = l.readCron(n, sc)
	}
	algoNode := m.get("algorithm")
	switch {
	case algoNode != nil:
		sc.Algorithm = l.readAlgorithm(algoNode, "algorithm", sc.Nodes)
	case sc.Cron != nil && sc.Cron.Mode == "shedlock":
	default:
		l.errAt(root, "algorithm", "missing: one of %v (or cron.mode: shedlock)", Algorithms())
	}
	if sc.Cron != nil && sc.Cron.Mode == "shedlock" && algoNode != nil {
		l.errAt(algoNode, "algorithm", "ShedLock mode (cron.mode: shedlock) runs no election; remove the algorithm section")
	}
	l.readSettle(m.get("settle"), sc)
	l.readFaults(m.get("faults"), sc)
	l.readExpect(m.get("expect"), sc)
	m.finish()
	return sc
}

func (l *loader) readCluster(n *ynode, sc *Scenario) {
	m := l.mapOf(n, "cluster")
	m.integer("nodes", &sc.Nodes, 1, MaxNodes)
	if d := m.get("fsync"); d != nil {
		if dist, ok := l.readDist(d, "cluster.fsync"); ok {
			sc.Fsync = dist
		}
	}
	for i, it := range m.list("clocks") {
		path := index("cluster.clocks", i)
		cm := l.mapOf(it, path)
		var c ClockSpec
		nn, ns, ok := cm.scalar("node")
		if !ok {
			if cm.ok {
				l.errAt(it, join(path, "node"), "missing: which node (n1..n%d)", sc.Nodes)
			}
		} else if id, err := nodeRef(ns, sc.Nodes); err != nil {
			l.errAt(nn, join(path, "node"), "%v", err)
		} else {
			c.Node = id
		}
		cm.durRange("offset", &c.OffsetLo, &c.OffsetHi, true)
		cm.floatRange("rate", &c.RateLo, &c.RateHi, 0.001, 1000)
		cm.floatRange("mono_rate", &c.MonoRateLo, &c.MonoRateHi, 0.001, 1000)
		cm.floatRange("wall_rate", &c.WallRateLo, &c.WallRateHi, 0.001, 1000)
		if c.RateLo != 0 && (c.MonoRateLo != 0 || c.WallRateLo != 0) {
			l.errAt(it, join(path, "rate"), "rate sets both clocks; not with mono_rate or wall_rate")
		}
		cm.finish()
		sc.Clocks = append(sc.Clocks, c)
	}
	m.finish()
}

// readDist reads a latency distribution: a duration (constant), a range
// "a..b" (uniform), or a mapping {dist, min, max, mean, stddev}.
func (l *loader) readDist(n *ynode, path string) (sim.Dist, bool) {
	if n.kind == yScalar {
		lo, hi, isRange := splitRange(n.text)
		a, err := parseDur(lo)
		b, err2 := parseDur(hi)
		if err != nil || err2 != nil {
			l.errAt(n, path, "%q is not a duration or range (e.g. 5ms or 1ms..10ms)", n.text)
			return sim.Dist{}, false
		}
		d := sim.Constant(a)
		if isRange {
			d = sim.Uniform(a, b)
		}
		if err := d.Validate(); err != nil {
			l.errAt(n, path, "%v", err)
			return sim.Dist{}, false
		}
		return d, true
	}
	m := l.mapOf(n, path)
	var kind string
	var d sim.Dist
	ok := m.oneOf("dist", &kind, "constant", "uniform", "exponential", "normal")
	if !ok && !m.has("dist") && m.ok {
		l.errAt(n, join(path, "dist"), "missing: constant, uniform, exponential or normal")
	}
	var x time.Duration
	if m.dur("min", &x) {
		d.Min = x
	}
	if m.dur("max", &x) {
		d.Max = x
	}
	if m.dur("mean", &x) {
		d.Mean = x
	}
	if m.dur("stddev", &x) {
		d.StdDev = x
	}
	m.finish()
	if !ok {
		return d, false
	}
	switch kind {
	case "constant":
		d.Kind, d.Max = sim.DistConstant, d.Min
	case "uniform":
		d.Kind = sim.DistUniform
	case "exponential":
		d.Kind = sim.DistExponential
	case "normal":
		d.Kind = sim.DistNormal
	}
	if err := d.Validate(); err != nil {
		l.errAt(n, path, "%v", err)
		return d, false
	}
	return d, true
}

func (l *loader) readNetwork(n *ynode, sc *Scenario) {
	m := l.mapOf(n, "network")
	if d := m.get("latency"); d != nil {
		if dist, ok := l.readDist(d, "network.latency"); ok {
			sc.Network.Latency = dist
		}
	}
	m.floatRange("drop", &sc.Network.DropLo, &sc.Network.DropHi, 0, 1)
	m.floatRange("duplicate", &sc.Network.DupLo, &sc.Network.DupHi, 0, 1)
	m.boolean("fifo", &sc.Network.FIFO)
	for i, it := range m.list("links") {
		path := index("network.links", i)
		lm := l.mapOf(it, path)
		var ls LinkSpec
		var from, to string
		nf, _, okF := lm.scalar("from")
		nt, _, okT := lm.scalar("to")
		lm.str("from", &from)
		lm.str("to", &to)
		if !okF || !okT {
			l.errAt(it, path, "a link needs from and to")
		} else {
			var err error
			if ls.From, err = nodeRef(from, sc.Nodes); err != nil {
				l.errAt(nf, join(path, "from"), "%v", err)
			}
			if ls.To, err = nodeRef(to, sc.Nodes); err != nil {
				l.errAt(nt, join(path, "to"), "%v", err)
			}
		}
		lm.boolean("both", &ls.Both)
		if d := lm.get("latency"); d != nil {
			if dist, ok := l.readDist(d, join(path, "latency")); ok {
				ls.Latency = &dist
			}
		}
		var lo, hi float64
		if lm.floatRange("drop", &lo, &hi, 0, 1) {
			ls.Drop = &lo
		}
		if lm.floatRange("duplicate", &lo, &hi, 0, 1) {
			v := lo
			ls.Dup = &v
		}
		var fifo bool
		if lm.boolean("fifo", &fifo) {
			ls.FIFO = &fifo
		}
		lm.finish()
		sc.Network.Links = append(sc.Network.Links, ls)
	}
	m.finish()
}

func (l *loader) readSettle(n *ynode, sc *Scenario) {
	m := l.mapOf(n, "settle")
	m.dur("for", &sc.Settle.For)
	m.dur("leader_within", &sc.Settle.LeaderWithin)
	m.finish()
	if sc.Settle.LeaderWithin > sc.Settle.For && sc.Settle.For > 0 {
		l.errAt(n, "settle.leader_within", "%v is longer than the settle phase (%v)", sc.Settle.LeaderWithin, sc.Settle.For)
	}
}

// readCron reads the cron section.
func (l *loader) readCron(n *ynode, sc *Scenario) *CronSpec {
	m := l.mapOf(n, "cron")
	cs := &CronSpec{Mode: "leader"}
	m.oneOf("mode", &cs.Mode, "leader", "shedlock")
	c := &cs.Config
	items := m.list("jobs")
	if len(items) == 0 && m.ok {
		l.errAt(n, "cron.jobs", "missing: at least one job, e.g. {name: daily-report, schedule: \"0 2 * * *\", duration: 2s}")
	}
	for i, it := range items {
		path := index("cron.jobs", i)
		jm := l.mapOf(it, path)
		var j cron.Job
		if !jm.str("name", &j.Name) {
			l.errAt(it, join(path, "name"), "missing")
		}
		sn, s, ok := jm.scalar("schedule")
		if !ok {
			l.errAt(it, join(path, "schedule"), "missing: a cron expression (\"0 2 * * *\") or \"@every 10s\"")
		} else if _, err := cron.ParseSchedule(s); err != nil {
			l.errAt(sn, join(path, "schedule"), "%v", err)
		} else {
			j.Schedule = s
		}
		jm.durRange("duration", &j.RunMin, &j.RunMax, false)
		jm.integer("writes", &j.Writes, 1, 1000)
		jm.finish()
		for _, prev := range c.Jobs {
			if prev.Name == j.Name && j.Name != "" {
				l.errAt(it, join(path, "name"), "job %q defined twice", j.Name)
			}
		}
		c.Jobs = append(c.Jobs, j)
	}
	names, nodes := m.strList("policy")
	for i, name := range names {
		p, err := cron.ParsePolicy([]string{name})
		if err != nil {
			l.errAt(nodes[i], index("cron.policy", i), "%q is not a policy (fencing, idempotency, claim, none)%s", name, suggest(name, []string{"fencing", "idempotency", "claim", "none"}))
			continue
		}
		if name == "none" && len(names) > 1 {
			l.errAt(nodes[i], index("cron.policy", i), "none cannot be combined with other rules")
		}
		c.Policy.Fencing = c.Policy.Fencing || p.Fencing
		c.Policy.Idempotency = c.Policy.Idempotency || p.Idempotency
		c.Policy.Claim = c.Policy.Claim || p.Claim
	}
	m.oneOf("fencing_scope", &c.Policy.FencingScope, "job", "global")
	if mn := m.get("misfire"); mn != nil {
		mm := l.mapOf(mn, "cron.misfire")
		mm.oneOf("policy", &c.Misfire.Policy, cron.MisfireFireNow, cron.MisfireSkip)
		mm.dur("threshold", &c.Misfire.Threshold)
		mm.dur("lookback", &c.Misfire.Lookback)
		mm.finish()
	}
	m.dur("poll_interval", &c.PollInterval)
	if sn := m.get("shedlock"); sn != nil {
		if cs.Mode != "shedlock" {
			l.errAt(sn, "cron.shedlock", "only used with mode: shedlock")
		}
		sm := l.mapOf(sn, "cron.shedlock")
		sm.dur("lock_at_most_for", &c.ShedLock.LockAtMostFor)
		sm.dur("lock_at_least_for", &c.ShedLock.LockAtLeastFor)
		sm.oneOf("time", &c.ShedLock.Time, cron.ShedLockAppTime, cron.ShedLockStoreTime)
		sm.finish()
	}
	m.finish()
	c.NotBefore = sc.Start
	if len(l.errs) == 0 {
		check := *c
		if err := check.Validate(); err != nil {
			l.errAt(n, "cron", "%v", err)
		}
	}
	return cs
}

// String summarises the scenario in one line.
func (sc *Scenario) String() string {
	algo := sc.Algorithm.Name
	if sc.Cron != nil && sc.Cron.Mode == "shedlock" {
		algo = "shedlock"
	}
	return fmt.Sprintf("%s: %d nodes, %s, %v", sc.Name, sc.Nodes, algo, sc.Duration)
}

// checkNames are the checks an expect block may name.
var checkNames = []string{checker.CheckElectionSafety, checker.CheckSplitBrain, checker.CheckDoubleExecution,
	checker.CheckStaleWrite, checker.CheckLinearizability, checker.CheckLeaderLinearizability,
	checker.CheckLiveness, checker.CheckMissedSlots}

func (l *loader) readExpect(n *ynode, sc *Scenario) {
	m := l.mapOf(n, "expect")
	e := &sc.Expect
	read := func(key string) []string {
		names, nodes := m.strList(key)
		var out []string
		for i, v := range names {
			if !containsStr(checkNames, v) {
				l.errAt(nodes[i], index(join("expect", key), i), "unknown check %q (one of %s)%s", v, strings.Join(checkNames, ", "), suggest(v, checkNames))
				continue
			}
			out = append(out, v)
		}
		return out
	}
	e.MustOccur = read("violations")
	e.Allow = read("allow")
	m.boolean("fail_on_harmless", &e.FailOnHarmless)
	m.dur("failover_under", &e.FailoverUnder)
	m.dur("detect_under", &e.DetectUnder)
	m.dur("fenced_run_under", &e.FencedRunUnder)
	var lo, hi float64
	if m.floatRange("max_flaps_per_minute", &lo, &hi, 0, 1e6) {
		e.MaxFlapsPerMinute = lo
	}
	m.finish()
}

func containsStr(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
