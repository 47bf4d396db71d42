// Package scenario reads electsim's scenario files — YAML descriptions of a
// cluster, its network, an election algorithm, an optional cron workload, a
// fault schedule, a settle phase and expectations — strictly, with every
// error naming file, line, column and field, and builds runs from them. The
// shipped catalogue lives next to this file (*.yaml). docs/scenarios.md is
// the grammar.
package scenario

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/electsim/electsim/checker"
	"github.com/electsim/electsim/cron"
	"github.com/electsim/electsim/faults"
	"github.com/electsim/electsim/sim"
)

// DefaultMaxEvents is a run's absolute event cap when the file sets no
// max_events: none. A run's memory does not grow with its length (the
// checker streams), so length needs no cap; runaways are stopped by the
// event-rate guard (max_event_rate).
const DefaultMaxEvents = 0

// DefaultMaxEventRate is the event-rate guard when the file sets no
// max_event_rate: sim.DefaultMaxEventRate events per simulated second,
// judged over each simulated second.
const DefaultMaxEventRate = sim.DefaultMaxEventRate

// MaxMaxEvents is the largest max_events a file may set.
const MaxMaxEvents = 1<<31 - 1

// MaxNodes bounds a scenario's cluster size.
const MaxNodes = 64

// Scenario is a loaded, validated scenario. Ranges are kept as written and
// drawn per run from the run's fault stream, so one file describes a family
// of runs and a seed picks one.
type Scenario struct {
	// File is the path it was loaded from.
	File string
	// Sets are the -set overrides applied to the file, in order (LoadWith,
	// ParseWith); the replay command repeats them.
	Sets []string
	// specs are the algorithm sections of the running algorithms other
	// than the file's own (ParseRunning), dropped the file's parameters
	// each leaves out, algoTree the file's algorithm section as written
	// with the overrides (running.go).
	specs    map[string]AlgorithmSpec
	dropped  map[string][]string
	algoTree *ynode
	// Program is the command that runs scenarios, for ReplayCommand: the
	// name of the program built on simrun.Main that loaded this one ("" is
	// simrun), so a custom binary's replay lines name that binary.
	Program string
	// SourceSHA256 is the SHA-256 of the file's bytes (hex), for
	// fingerprinting a sweep's configuration.
	SourceSHA256 string
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
	// MaxEvents, if non-zero, caps the events of each run (default none).
	MaxEvents uint64
	// MaxEventRate bounds each run's events per simulated second (default
	// DefaultMaxEventRate).
	MaxEventRate uint64
	// namesService: a fault names a service node (store2, resource in a
	// partition's groups, queue, w1, apiserver, …), resolved to its node
	// ID at load with the file's algorithm's lease stores: a run of an
	// algorithm with another number of stores would aim it at another
	// node, so Build refuses that override.
	namesService bool
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
	// Mode is "leader" (default: the algorithm's leader runs jobs),
	// "shedlock" (no election; per-job locks at the lease store) or "queue"
	// (the leader schedules, workers run jobs from a queue: cron.queue) or
	// "kubernetes" (the CronJob and Job controllers: cron.kubernetes).
	Mode   string
	Config cron.Config

	scheduleAt []*ynode // each job's schedule, for errors
}

// MaxSlotsPerJob bounds how many slots one job may have in a run: the
// checker lists every slot of the run's window.
const MaxSlotsPerJob = 1_000_000

// SettleSpec is the settle phase: after Duration every fault is reverted and
// the run continues For; liveness is judged in it.
type SettleSpec struct {
	For          time.Duration
	LeaderWithin time.Duration
}

// Load reads and validates a scenario file. On error it returns Errors, every
// problem with file:line:column and field; no partial scenario.
func Load(path string) (*Scenario, error) {
	src, err := ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, src)
}

// Parse reads and validates scenario source; name is used in errors.
func Parse(name string, src []byte) (*Scenario, error) { return ParseWith(name, src, nil) }

func (l *loader) readScenario(root *ynode) *Scenario {
	sc := &Scenario{Seed: 1, Start: sim.DefaultWallStart, Nodes: 3, Fsync: sim.Constant(0), MaxEvents: DefaultMaxEvents, MaxEventRate: DefaultMaxEventRate,
		Network: NetworkSpec{Latency: sim.Uniform(time.Millisecond, 10*time.Millisecond)},
		Settle:  SettleSpec{For: 20 * time.Second, LeaderWithin: 5 * time.Second}}
	if root.kind == yNull {
		l.errAt(root, "", "the file is empty: a scenario needs at least name, duration and algorithm")
		return sc
	}
	if root.kind != yMap {
		l.errAt(root, "", "a scenario is a mapping of sections (name, duration, cluster, network, algorithm, …), got %s", describe(root))
		return sc
	}
	m := l.mapOf(root, "")
	if m.str("name", &sc.Name) {
		if err := ValidName(sc.Name); err != nil {
			l.errAt(m.get("name"), "name", "%v", err)
		}
	} else if !m.has("name") && !m.misspelt("name") {
		l.errAt(root, "name", "missing: every scenario needs a name")
	}
	m.str("description", &sc.Description)
	m.uint64v("seed", &sc.Seed)
	switch {
	case m.dur("duration", &sc.Duration):
		if sc.Duration == 0 {
			l.errAt(m.get("duration"), "duration", "must be positive")
		}
	case !m.has("duration") && !m.misspelt("duration"):
		l.errAt(root, "duration", "missing: how long the fault phase runs, e.g. 60s")
	}
	if n, s, ok := m.scalar("start"); ok {
		t, err := time.Parse(time.RFC3339Nano, s)
		switch {
		case err != nil:
			l.errAt(n, "start", "%q is not an RFC 3339 time such as 2026-11-21T01:59:00Z", s)
		case t.Year() < MinStartYear || t.Year() >= MaxStartYear:
			l.errAt(n, "start", "%s is out of range: the simulated calendar runs from %d to %d", s, MinStartYear, MaxStartYear)
		default:
			sc.Start = t.UTC()
		}
	}
	if m.has("max_events") {
		var k int
		if m.integer("max_events", &k, 1000, MaxMaxEvents) {
			sc.MaxEvents = uint64(k)
		}
	}
	if m.has("max_event_rate") {
		var k int
		if m.integer("max_event_rate", &k, 1000, 1_000_000_000) {
			sc.MaxEventRate = uint64(k)
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
		l.readAlgorithms(sc, algoNode)
	case sc.noElection():
	case m.misspelt("algorithm"):
	default:
		l.errAt(root, "algorithm", "missing: e.g. {name: raft}; one of %s (or cron.mode: shedlock)", strings.Join(Algorithms(), ", "))
	}
	if sc.noElection() && algoNode != nil {
		l.errAt(algoNode, "algorithm", "%s", map[string]string{"shedlock": "ShedLock mode (cron.mode: shedlock) runs no election; remove the algorithm section",
			"celery": "Celery mode (cron.mode: celery) runs no election algorithm (RedBeat's lock is the election); remove the algorithm section"}[sc.Cron.Mode])
	}
	l.checkFencingToken(sc)
	l.readSettle(m.get("settle"), sc)
	// Compared without adding: duration and settle.for near 2^63 ns would
	// wrap their sum below the bound.
	if sc.Duration > MaxRunTime || sc.Settle.For > MaxRunTime-sc.Duration {
		at, key := m.get("duration"), "duration"
		if sc.Duration <= MaxRunTime/2 {
			at, key = m.get("settle"), "settle.for"
		}
		l.errAt(at, key, "the run (duration %s plus settle %s) is longer than %s", fmtDur(sc.Duration), fmtDur(sc.Settle.For), fmtDur(MaxRunTime))
	}
	l.checkSlots(sc)
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
			l.errAt(cm.get("rate"), join(path, "rate"), "rate sets both clocks; not with mono_rate or wall_rate")
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
		_, _, isRange := splitRange(n.text)
		a, b, err := parseDurRange(strings.TrimSpace(n.text))
		if err != nil {
			l.errAt(n, path, "%v", err)
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
	if n.kind != yMap {
		l.errAt(n, path, "want a duration (5ms), a range (1ms..10ms) or {dist: uniform, min: …, max: …}, got %s", describe(n))
		return sim.Dist{}, false
	}
	m := l.mapOf(n, path)
	var kind string
	var d sim.Dist
	ok := m.oneOf("dist", &kind, "constant", "uniform", "exponential", "normal")
	if !ok && !m.has("dist") && !m.misspelt("dist") {
		l.errAt(n, join(path, "dist"), "missing: which distribution (constant, uniform, exponential or normal)")
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
		ls.Drop = lm.probability("drop")
		ls.Dup = lm.probability("duplicate")
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
	okFor := m.dur("for", &sc.Settle.For)
	okWithin := m.dur("leader_within", &sc.Settle.LeaderWithin)
	m.finish()
	if (okFor || okWithin) && sc.Settle.LeaderWithin > sc.Settle.For && sc.Settle.For > 0 {
		at, key := m.get("leader_within"), "settle.leader_within"
		if !okWithin {
			at, key = m.get("for"), "settle.for"
		}
		l.errAt(at, key, "leader_within (%s) is longer than the settle phase (for: %s)", fmtDur(sc.Settle.LeaderWithin), fmtDur(sc.Settle.For))
	}
}

// String summarises the scenario in one line.
func (sc *Scenario) String() string {
	algo := sc.Algorithm.Name
	if sc.noElection() {
		algo = sc.Cron.Mode
	}
	return fmt.Sprintf("%s: %d nodes, %s, %v", sc.Name, sc.Nodes, algo, sc.Duration)
}

// checkNames are the checks an expect block may name.
var checkNames = []string{checker.CheckElectionSafety, checker.CheckSplitBrain, checker.CheckDoubleExecution,
	checker.CheckStaleWrite, checker.CheckLinearizability, checker.CheckLeaderLinearizability,
	checker.CheckLiveness, checker.CheckMissedSlots, checker.CheckDisruption}

func (l *loader) readExpect(n *ynode, sc *Scenario) {
	m := l.mapOf(n, "expect")
	e := &sc.Expect
	checkNames := checkNames
	if sc.queueMode() || sc.celeryMode() || sc.kubeMode() {
		checkNames = append(slices.Clone(checkNames), checker.QueueCheckNames...) // only queue mode reports them
	}
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
	if names, nodes := m.strList("breaches"); m.present("breaches") {
		if len(names) > 0 {
			l.errAt(nodes[0], "expect.breaches", "takes only [] (no breach of the algorithm's contract: findings it excuses or bounds pass); list checks to allow under allow")
		}
		e.ContractOnly = true
	}
	m.boolean("fail_on_harmless", &e.FailOnHarmless)
	for _, b := range []struct {
		key string
		out *time.Duration
	}{{"failover_under", &e.FailoverUnder}, {"detect_under", &e.DetectUnder}, {"fenced_run_under", &e.FencedRunUnder}} {
		if m.dur(b.key, b.out) && *b.out == 0 {
			l.errAt(m.get(b.key), join("expect", b.key), "must be positive (a bound of 0 cannot hold; leave it out for no bound)")
		}
	}
	if n, s, ok := m.scalar("max_flaps_per_minute"); ok {
		v, err := strconv.ParseFloat(s, 64)
		switch {
		case err != nil || math.IsNaN(v) || math.IsInf(v, 0):
			l.errAt(n, "expect.max_flaps_per_minute", "want a number, got %q", s)
		case v < 0:
			l.errAt(n, "expect.max_flaps_per_minute", "%q must not be negative", s)
		case v == 0:
			// checker.Expect reads 0 as "unbounded"; in a file 0 means
			// no leader change at all.
			e.MaxFlapsPerMinute = math.SmallestNonzeroFloat64
		default:
			e.MaxFlapsPerMinute = v
		}
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

// suggestDescriptor suggests a cron descriptor for a misspelt one
// ("@evry 5s").
func suggestDescriptor(s string) string {
	if !strings.HasPrefix(s, "@") {
		return ""
	}
	word := strings.Fields(s)[0]
	return suggest(word, []string{"@every", "@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"})
}

// checkSlots rejects a job with more than MaxSlotsPerJob slots in the run
// (say @every 1ms over 1000h): the run could not execute them anyway, and
// the checker would list them all. A cron expression fires at most once a
// second, so only runs longer than MaxSlotsPerJob seconds need counting.
func (l *loader) checkSlots(sc *Scenario) {
	if sc.Cron == nil || len(l.errs) > 0 {
		return
	}
	total := sc.Duration + sc.Settle.For
	for i, j := range sc.Cron.Config.Jobs {
		if i >= len(sc.Cron.scheduleAt) || sc.Cron.scheduleAt[i] == nil {
			continue
		}
		var n int64
		if d, ok := everyInterval(j.Schedule); ok {
			n = int64(total / d)
		} else if total/time.Second > MaxSlotsPerJob {
			s, err := cron.ParseSchedule(j.Schedule)
			if err != nil {
				continue
			}
			to := sc.Start.Add(total)
			for t := s.Next(sc.Start); !t.IsZero() && !t.After(to) && n <= MaxSlotsPerJob; t = s.Next(t) {
				n++
			}
		}
		if n > MaxSlotsPerJob {
			l.errAt(sc.Cron.scheduleAt[i], index("cron.jobs", i)+".schedule", "%q has more than %d slots in the run (%s); use a longer interval or a shorter run",
				j.Schedule, MaxSlotsPerJob, fmtDur(total))
		}
	}
}

// everyInterval returns the interval of an "@every d" schedule.
func everyInterval(expr string) (time.Duration, bool) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(expr), "@every ")
	if !ok {
		return 0, false
	}
	d, err := time.ParseDuration(strings.TrimSpace(rest))
	return d, err == nil && d > 0
}
