package scenarios

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/electsim/electsim/algorithms/bully"
	"github.com/electsim/electsim/algorithms/etcdraft"
	"github.com/electsim/electsim/algorithms/lease"
	"github.com/electsim/electsim/algorithms/raftelect"
	"github.com/electsim/electsim/algorithms/ring"
	"github.com/electsim/electsim/sim"
)

// pkind is the type of an algorithm parameter.
type pkind uint8

const (
	pDur      pkind = iota // a duration; a range a..b is drawn once per run
	pDurRange              // a duration range taken as is (e.g. raft's election_timeout)
	pBool
	pInt   // a whole number; a range is drawn once per run
	pFloat // a number; a range is drawn once per run
	pEnum
	pNodes // a list of node references (n1 or 1)
	pInts  // a list of whole numbers, one per candidate
)

// paramDef declares one algorithm parameter of the scenario grammar.
type paramDef struct {
	key  string
	kind pkind
	enum []string
	lo   float64 // bounds for pInt and pFloat
	hi   float64
	doc  string
}

// paramValue is a parameter as written in a file.
type paramValue struct {
	def    *paramDef
	at     *ynode
	durLo  time.Duration
	durHi  time.Duration
	fLo    float64
	fHi    float64
	b      bool
	s      string
	nodes  []sim.NodeID
	ints   []int64
	intLo  int
	intHi  int
	isSet  bool
	isDraw bool
}

// drawn is a parameter's concrete value for one run.
type drawn struct {
	d      time.Duration
	lo, hi time.Duration
	f      float64
	i      int
	b      bool
	s      string
	nodes  []sim.NodeID
	ints   []int64
}

// goName maps a Go Config field name to the words a scenario error uses.
type goName struct{ goName, text string }

// NodeFactory builds one candidate node for a run. peers are all candidate
// IDs in ascending order; store is the lease store's ID.
type NodeFactory func(peers []sim.NodeID, store sim.NodeID) sim.Node

// algoDef is one algorithm of the grammar.
type algoDef struct {
	name   string
	doc    string
	pkg    string // the package's error prefix ("raftelect")
	params []paramDef
	// goNames translate the package's Config field names in its
	// validation errors into the grammar's keys.
	goNames []goName
	// build applies the drawn parameters (by key) and returns the factory,
	// or the algorithm's own validation error.
	build func(v map[string]drawn, n int, r *sim.Rand) (NodeFactory, error)
	// leaseStore: runs add a lease store node, and the checker recognises
	// the leader by the lease (a node leads from its lead record on).
	leaseStore bool
}

// needsLeaseStore reports whether algorithm name elects through a lease
// store (its runs add one).
func needsLeaseStore(name string) bool {
	d := findAlgo(name)
	return d != nil && d.leaseStore
}

// Algorithms lists the algorithm names scenarios accept.
func Algorithms() []string {
	out := make([]string, len(algoDefs))
	for i, a := range algoDefs {
		out[i] = a.name
	}
	return out
}

func findAlgo(name string) *algoDef {
	for i := range algoDefs {
		if algoDefs[i].name == name {
			return &algoDefs[i]
		}
	}
	return nil
}

var algoDefs = []algoDef{
	{name: "raft", doc: "Raft leader election (algorithms/raftelect)", pkg: "raftelect", goNames: []goName{
		{"ElectionTimeoutMin", "election_timeout's minimum"}, {"ElectionTimeoutMax", "election_timeout's maximum"},
		{"HeartbeatInterval", "heartbeat"}, {"LastLogTerm", "last_log_term"}, {"LastLogIndex", "last_log_index"},
		{"peers", "candidates"},
	}, params: []paramDef{
		{key: "election_timeout", kind: pDurRange, doc: "randomized election timeout range, default 150ms..300ms"},
		{key: "heartbeat", kind: pDur, doc: "leader heartbeat interval, default 50ms"},
		{key: "prevote", kind: pBool, doc: "PreVote (thesis §9.6), default false"},
		{key: "check_quorum", kind: pBool, doc: "CheckQuorum (thesis §6.2), default false"},
		{key: "persist", kind: pBool, doc: "persist term and vote, default true"},
		{key: "last_log_term", kind: pInts, doc: "per-candidate last log term, default all 0"},
		{key: "last_log_index", kind: pInts, doc: "per-candidate last log index, default all 0"},
	}, build: func(v map[string]drawn, n int, _ *sim.Rand) (NodeFactory, error) {
		c := raftelect.DefaultConfig()
		if x, ok := v["election_timeout"]; ok {
			c.ElectionTimeoutMin, c.ElectionTimeoutMax = x.lo, x.hi
		}
		setDur(v, "heartbeat", &c.HeartbeatInterval)
		setBool(v, "prevote", &c.PreVote)
		setBool(v, "check_quorum", &c.CheckQuorum)
		setBool(v, "persist", &c.Persist)
		if x, ok := v["last_log_term"]; ok {
			c.LastLogTerm = x.ints
		}
		if x, ok := v["last_log_index"]; ok {
			c.LastLogIndex = x.ints
		}
		if err := perNode("last_log_term", len(c.LastLogTerm), n); err != nil {
			return nil, err
		}
		if err := perNode("last_log_index", len(c.LastLogIndex), n); err != nil {
			return nil, err
		}
		if err := c.Validate(); err != nil {
			return nil, err
		}
		return func(p []sim.NodeID, _ sim.NodeID) sim.Node { return raftelect.New(c, p) }, nil
	}},
	{name: "etcdraft", doc: "the real go.etcd.io/raft/v3 library (algorithms/etcdraft)", pkg: "etcdraft", goNames: []goName{
		{"TickInterval", "tick"}, {"ElectionTick", "election_tick"}, {"HeartbeatTick", "heartbeat_tick"},
	}, params: []paramDef{
		{key: "tick", kind: pDur, doc: "tick interval on the node's monotonic clock, default 10ms"},
		{key: "election_tick", kind: pInt, lo: 1, hi: 1e6, doc: "ElectionTick, default 10"},
		{key: "heartbeat_tick", kind: pInt, lo: 1, hi: 1e6, doc: "HeartbeatTick, default 1"},
		{key: "prevote", kind: pBool, doc: "PreVote, default true (as etcd server)"},
		{key: "check_quorum", kind: pBool, doc: "CheckQuorum, default true (as etcd server)"},
		{key: "persist", kind: pBool, doc: "persist HardState and entries, default true"},
	}, build: func(v map[string]drawn, _ int, _ *sim.Rand) (NodeFactory, error) {
		c := etcdraft.DefaultConfig()
		setDur(v, "tick", &c.TickInterval)
		setInt(v, "election_tick", &c.ElectionTick)
		setInt(v, "heartbeat_tick", &c.HeartbeatTick)
		setBool(v, "prevote", &c.PreVote)
		setBool(v, "check_quorum", &c.CheckQuorum)
		setBool(v, "persist", &c.Persist)
		if err := c.Validate(); err != nil {
			return nil, err
		}
		return func(p []sim.NodeID, _ sim.NodeID) sim.Node { return etcdraft.New(c, p) }, nil
	}},
	{name: "bully", doc: "Garcia-Molina bully (algorithms/bully)", pkg: "bully", goNames: []goName{
		{"AnswerTimeout", "answer_timeout"}, {"CoordinatorTimeout", "coordinator_timeout"}, {"HeartbeatInterval", "heartbeat"},
		{"HeartbeatTimeout", "heartbeat_timeout"}, {"Priorities", "priorities"}, {"peers", "candidates"},
	}, params: []paramDef{
		{key: "answer_timeout", kind: pDur, doc: "wait for ANSWER, default 100ms"},
		{key: "coordinator_timeout", kind: pDur, doc: "wait for COORDINATOR after an ANSWER, default 200ms"},
		{key: "heartbeat", kind: pDur, doc: "coordinator heartbeat interval, default 50ms"},
		{key: "heartbeat_timeout", kind: pDur, doc: "follower failure-detection timeout, default 150ms"},
		{key: "elect_on_start", kind: pBool, doc: "run an election on (re)start, default true"},
		{key: "persist_epoch", kind: pBool, doc: "persist the epoch counter, default true"},
		{key: "priorities", kind: pInts, doc: "per-candidate priority (higher wins), default the node number"},
	}, build: func(v map[string]drawn, n int, _ *sim.Rand) (NodeFactory, error) {
		c := bully.DefaultConfig()
		setDur(v, "answer_timeout", &c.AnswerTimeout)
		setDur(v, "coordinator_timeout", &c.CoordinatorTimeout)
		setDur(v, "heartbeat", &c.HeartbeatInterval)
		setDur(v, "heartbeat_timeout", &c.HeartbeatTimeout)
		setBool(v, "elect_on_start", &c.ElectOnStart)
		setBool(v, "persist_epoch", &c.PersistEpoch)
		if x, ok := v["priorities"]; ok {
			if err := perNode("priorities", len(x.ints), n); err != nil {
				return nil, err
			}
			c.Priorities = make([]int, len(x.ints))
			for i, p := range x.ints {
				c.Priorities[i] = int(p)
			}
		}
		if err := c.Validate(); err != nil {
			return nil, err
		}
		return func(p []sim.NodeID, _ sim.NodeID) sim.Node { return bully.New(c, p) }, nil
	}},
	{name: "ring", doc: "Chang–Roberts ring election and the collect-all variant (algorithms/ring)", pkg: "ring", goNames: []goName{
		{"AckTimeout", "ack_timeout"}, {"HeartbeatInterval", "heartbeat"}, {"HeartbeatTimeout", "heartbeat_timeout"},
		{"Order", "order"}, {"Initiators", "initiators"}, {"peers", "candidates"},
	}, params: []paramDef{
		{key: "variant", kind: pEnum, enum: []string{"chang_roberts", "collect_all"}, doc: "Chang–Roberts (forward only IDs higher than your own) or collect-all (the message collects every ID and the highest wins), default chang_roberts"},
		{key: "arrangement", kind: pEnum, enum: []string{"sorted", "reversed", "random"}, doc: "ring order of the IDs: sorted (IDs increase along the ring, best case), reversed (worst case) or random (drawn from the run's seed); default sorted"},
		{key: "order", kind: pNodes, doc: "explicit ring order, e.g. [n3, n1, n2]; overrides arrangement"},
		{key: "all_initiate", kind: pBool, doc: "every node starts an election at start, default true"},
		{key: "initiators", kind: pNodes, doc: "the nodes that initiate when all_initiate is false"},
		{key: "ack_timeout", kind: pDur, doc: "per-hop acknowledgement timeout before skipping a dead successor, default 50ms"},
		{key: "heartbeat", kind: pDur, doc: "leader heartbeat interval, default 50ms"},
		{key: "heartbeat_timeout", kind: pDur, doc: "follower timeout, default 150ms"},
		{key: "persist_epoch", kind: pBool, doc: "persist the round number, default true"},
	}, build: func(v map[string]drawn, n int, r *sim.Rand) (NodeFactory, error) {
		c := ring.DefaultConfig()
		if x, ok := v["variant"]; ok {
			// The grammar spells names with underscores, the ring package
			// with hyphens.
			vv, err := ring.ParseVariant(strings.ReplaceAll(x.s, "_", "-"))
			if err != nil {
				return nil, err
			}
			c.Variant = vv
		}
		ids := candidateIDs(n)
		if x, ok := v["arrangement"]; ok {
			a, err := ring.ParseArrangement(x.s)
			if err != nil {
				return nil, err
			}
			c.Order = ring.Arrange(a, ids, r)
		}
		if x, ok := v["order"]; ok {
			if err := perNode("order", len(x.nodes), n); err != nil {
				return nil, err
			}
			c.Order = x.nodes
		}
		setBool(v, "all_initiate", &c.AllInitiate)
		if x, ok := v["initiators"]; ok {
			c.Initiators = x.nodes
		}
		setDur(v, "ack_timeout", &c.AckTimeout)
		setDur(v, "heartbeat", &c.HeartbeatInterval)
		setDur(v, "heartbeat_timeout", &c.HeartbeatTimeout)
		setBool(v, "persist_epoch", &c.PersistEpoch)
		if err := c.Validate(); err != nil {
			return nil, err
		}
		return func(p []sim.NodeID, _ sim.NodeID) sim.Node { return ring.New(c, p) }, nil
	}},
	{name: "lease", doc: "lease-based election against the lease store (algorithms/lease)", pkg: "lease", leaseStore: true, goNames: []goName{
		{"LeaseDuration", "lease_duration"}, {"RenewDeadline", "renew_deadline"}, {"RetryPeriod", "retry_period"},
		{"JitterFactor", "jitter_factor"}, {"RequestTimeout", "request_timeout"}, {"RejoinDelay", "rejoin_delay"},
		{"ShutdownAt", "shutdown_at"}, {"TTL", "ttl"}, {"RenewInterval", "renew_interval"},
		{"ClockDriftFactor", "clock_drift_factor"}, {"ClockDriftMargin", "clock_drift_margin"},
		{"LockAtMostFor", "lock_at_most_for"}, {"LockAtLeastFor", "lock_at_least_for"}, {"ExtendInterval", "extend_interval"},
	}, params: []paramDef{
		{key: "flavor", kind: pEnum, enum: []string{lease.FlavorK8s, lease.FlavorTTL, lease.FlavorWallTime}, doc: "k8s (client-go), ttl (Redis SET NX PX) or walltime (ShedLock lock_until); default k8s"},
		{key: "lease_duration", kind: pDur, doc: "k8s LeaseDuration, default 15s"},
		{key: "renew_deadline", kind: pDur, doc: "k8s RenewDeadline, default 10s"},
		{key: "retry_period", kind: pDur, doc: "RetryPeriod (all flavours), default 2s"},
		{key: "jitter_factor", kind: pFloat, lo: 0, hi: 100, doc: "JitterFactor, default 1.2"},
		{key: "release_on_cancel", kind: pBool, doc: "release the lease on resign, default false"},
		{key: "ttl", kind: pDur, doc: "ttl: key TTL by the store's clock, default 10s"},
		{key: "renew_interval", kind: pDur, doc: "ttl: renewal interval, default ttl/3"},
		{key: "clock_drift_factor", kind: pFloat, lo: 0, hi: 1, doc: "ttl: Redlock drift factor, default 0.01"},
		{key: "clock_drift_margin", kind: pDur, doc: "ttl: Redlock constant margin, default 2ms"},
		{key: "lock_at_most_for", kind: pDur, doc: "walltime: lock_until ahead of the holder's wall clock, default 30s"},
		{key: "lock_at_least_for", kind: pDur, doc: "walltime: minimum hold on release, default 0"},
		{key: "extend_interval", kind: pDur, doc: "walltime: extension interval, default lock_at_most_for/2"},
		{key: "request_timeout", kind: pDur, doc: "store request timeout, default 1s"},
		{key: "rejoin_delay", kind: pDur, doc: "wait before competing again after losing the lease, default 0"},
		{key: "shutdown_at", kind: pDur, doc: "graceful shutdown (resign) at this monotonic reading, default never"},
	}, build: func(v map[string]drawn, _ int, _ *sim.Rand) (NodeFactory, error) {
		c := lease.DefaultConfig()
		if x, ok := v["flavor"]; ok {
			c.Flavor = x.s
		}
		setDur(v, "lease_duration", &c.LeaseDuration)
		setDur(v, "renew_deadline", &c.RenewDeadline)
		setDur(v, "retry_period", &c.RetryPeriod)
		setFloat(v, "jitter_factor", &c.JitterFactor)
		setBool(v, "release_on_cancel", &c.ReleaseOnCancel)
		setDur(v, "ttl", &c.TTL)
		setDur(v, "renew_interval", &c.RenewInterval)
		setFloat(v, "clock_drift_factor", &c.ClockDriftFactor)
		setDur(v, "clock_drift_margin", &c.ClockDriftMargin)
		setDur(v, "lock_at_most_for", &c.LockAtMostFor)
		setDur(v, "lock_at_least_for", &c.LockAtLeastFor)
		setDur(v, "extend_interval", &c.ExtendInterval)
		setDur(v, "request_timeout", &c.RequestTimeout)
		setDur(v, "rejoin_delay", &c.RejoinDelay)
		setDur(v, "shutdown_at", &c.ShutdownAt)
		if err := c.Validate(); err != nil {
			return nil, err
		}
		return func(p []sim.NodeID, store sim.NodeID) sim.Node { return lease.New(c, p, store) }, nil
	}},
}

func setDur(v map[string]drawn, k string, out *time.Duration) {
	if x, ok := v[k]; ok {
		*out = x.d
	}
}

func setBool(v map[string]drawn, k string, out *bool) {
	if x, ok := v[k]; ok {
		*out = x.b
	}
}

func setInt(v map[string]drawn, k string, out *int) {
	if x, ok := v[k]; ok {
		*out = x.i
	}
}

func setFloat(v map[string]drawn, k string, out *float64) {
	if x, ok := v[k]; ok {
		*out = x.f
	}
}

func perNode(key string, got, n int) error {
	if got != 0 && got != n {
		return fmt.Errorf("%s has %d entries for %d candidates", key, got, n)
	}
	return nil
}

func candidateIDs(n int) []sim.NodeID {
	ids := make([]sim.NodeID, n)
	for i := range ids {
		ids[i] = sim.NodeID(i)
	}
	return ids
}

// AlgorithmSpec is the algorithm section of a scenario: a name and its
// parameters as written (ranges not yet drawn).
type AlgorithmSpec struct {
	Name   string
	values []paramValue
	at     *ynode
}

// Params lists the parameters set in the file, as key=value text, sorted.
func (a AlgorithmSpec) Params() []string {
	var out []string
	for _, v := range a.values {
		out = append(out, v.def.key+"="+v.text())
	}
	sort.Strings(out)
	return out
}

func (v paramValue) text() string {
	switch v.def.kind {
	case pDur, pDurRange:
		if v.durLo == v.durHi && v.def.kind == pDur {
			return v.durLo.String()
		}
		return v.durLo.String() + ".." + v.durHi.String()
	case pBool:
		return strconv.FormatBool(v.b)
	case pInt:
		if v.intLo == v.intHi {
			return strconv.Itoa(v.intLo)
		}
		return fmt.Sprintf("%d..%d", v.intLo, v.intHi)
	case pFloat:
		if v.fLo == v.fHi {
			return strconv.FormatFloat(v.fLo, 'g', -1, 64)
		}
		return strconv.FormatFloat(v.fLo, 'g', -1, 64) + ".." + strconv.FormatFloat(v.fHi, 'g', -1, 64)
	case pEnum:
		return v.s
	case pNodes:
		parts := make([]string, len(v.nodes))
		for i, n := range v.nodes {
			parts[i] = "n" + strconv.Itoa(int(n)+1)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case pInts:
		parts := make([]string, len(v.ints))
		for i, n := range v.ints {
			parts[i] = strconv.FormatInt(n, 10)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return "?"
}

// draw fixes every parameter for one run. end < 0 takes every range's
// minimum, end > 0 its maximum, end == 0 draws from r.
func (a AlgorithmSpec) draw(r *sim.Rand, end int) map[string]drawn {
	out := map[string]drawn{}
	for _, v := range a.values {
		d := drawn{b: v.b, s: v.s, nodes: v.nodes, ints: v.ints, lo: v.durLo, hi: v.durHi}
		switch v.def.kind {
		case pDur:
			d.d = pickDur(v.durLo, v.durHi, r, end)
		case pInt:
			d.i = int(pickInt(int64(v.intLo), int64(v.intHi), r, end))
		case pFloat:
			d.f = pickFloat(v.fLo, v.fHi, r, end)
		}
		out[v.def.key] = d
	}
	return out
}

func pickDur(lo, hi time.Duration, r *sim.Rand, end int) time.Duration {
	return time.Duration(pickInt(int64(lo), int64(hi), r, end))
}

func pickInt(lo, hi int64, r *sim.Rand, end int) int64 {
	switch {
	case lo == hi || end < 0:
		return lo
	case end > 0:
		return hi
	}
	return r.Int63Range(lo, hi)
}

func pickFloat(lo, hi float64, r *sim.Rand, end int) float64 {
	switch {
	case lo == hi || end < 0:
		return lo
	case end > 0:
		return hi
	}
	return lo + float64(r.Float64()*(hi-lo))
}

// Factory draws the parameters for one run from r and returns the node
// factory for n candidates.
func (a AlgorithmSpec) Factory(n int, r *sim.Rand) (NodeFactory, error) {
	f, _, err := a.factory(n, r)
	return f, err
}

// factory is Factory that also returns the algorithm section with every
// range replaced by the value drawn (and a random ring arrangement by the
// order it produced), for materialized scenarios.
func (a AlgorithmSpec) factory(n int, r *sim.Rand) (NodeFactory, AlgorithmSpec, error) {
	def := findAlgo(a.Name)
	if def == nil {
		return nil, a, fmt.Errorf("unknown algorithm %q", a.Name)
	}
	vals := a.draw(r, 0)
	before := *r // the ring's random arrangement draws next
	f, err := def.build(vals, n, r)
	if err != nil {
		return nil, a, err
	}
	c := AlgorithmSpec{Name: a.Name, at: a.at}
	for _, v := range a.values {
		d := vals[v.def.key]
		switch v.def.kind {
		case pDur:
			v.durLo, v.durHi = d.d, d.d
		case pInt:
			v.intLo, v.intHi = d.i, d.i
		case pFloat:
			v.fLo, v.fHi = d.f, d.f
		case pEnum:
			if v.def.key == "arrangement" && v.s == "random" && !a.hasKey("order") {
				ord := findParam(def, "order")
				rr := before
				c.values = append(c.values, paramValue{def: ord, nodes: ring.Arrange(ring.Random, candidateIDs(n), &rr), isSet: true})
				continue
			}
		}
		c.values = append(c.values, v)
	}
	return f, c, nil
}

func (a AlgorithmSpec) hasKey(k string) bool {
	for _, v := range a.values {
		if v.def.key == k {
			return true
		}
	}
	return false
}

func findParam(d *algoDef, key string) *paramDef {
	for i := range d.params {
		if d.params[i].key == key {
			return &d.params[i]
		}
	}
	return nil
}

// readAlgorithm reads the algorithm section.
func (l *loader) readAlgorithm(n *ynode, path string, nodes int) AlgorithmSpec {
	spec := AlgorithmSpec{at: n}
	if n.kind == yScalar {
		l.errAt(n, path, "want a mapping such as {name: %s}, got %q (parameters go beside the name)", strings.TrimSpace(n.text), n.text)
		return spec
	}
	m := l.mapOf(n, path)
	if !m.oneOf("name", &spec.Name, Algorithms()...) {
		if !m.has("name") && m.ok && !m.misspelt("name") {
			l.errAt(m.n, join(path, "name"), "missing: one of %s", strings.Join(Algorithms(), ", "))
		}
		m.asked = append(m.asked, allParamKeys()...) // no unknown-field noise
		m.finish()
		return spec
	}
	def := findAlgo(spec.Name)
	for i := range def.params {
		p := &def.params[i]
		if v, ok := l.readParam(m, p, path, nodes); ok {
			spec.values = append(spec.values, v)
		}
	}
	// Keys that belong to another algorithm get a clearer message than
	// "unknown field".
	for _, k := range m.n.keys {
		if k.name == "name" || def.has(k.name) {
			continue
		}
		if owners := paramOwners(k.name); len(owners) > 0 {
			l.errAt(k.at(), join(path, k.name), "not a parameter of %s (it belongs to %s)", spec.Name, strings.Join(owners, ", "))
			m.asked = append(m.asked, k.name)
		}
	}
	m.finish()
	// Validate the configuration at both ends of every range.
	if len(l.errs) == 0 {
		for _, end := range []int{-1, 1} {
			if _, err := def.build(spec.draw(sim.NewRand(0, "validate"), end), nodes, sim.NewRand(0, "validate")); err != nil {
				l.configError(n, path, def, spec, err)
				break
			}
		}
	}
	return spec
}

// configError reports an algorithm package's validation error in the
// grammar's words: its Go field names become the parameters' keys, and the
// error points at the first parameter it names that the file sets.
func (l *loader) configError(n *ynode, path string, def *algoDef, spec AlgorithmSpec, err error) {
	msg := strings.TrimPrefix(err.Error(), def.pkg+": ")
	for _, g := range def.goNames {
		msg = replaceWord(msg, g.goName, g.text)
	}
	at, field, first := n, path, len(msg)+1
	for _, v := range spec.values {
		if i := indexWord(msg, v.def.key); i >= 0 && i < first {
			at, field, first = v.at, join(path, v.def.key), i
		}
	}
	l.errAt(at, field, "%s", msg)
}

// indexWord finds word in s as a whole word (not inside a longer
// identifier), or -1.
func indexWord(s, word string) int {
	for i := 0; i+len(word) <= len(s); {
		j := strings.Index(s[i:], word)
		if j < 0 {
			return -1
		}
		j += i
		end := j + len(word)
		if (j == 0 || !isIdentByte(s[j-1])) && (end == len(s) || !isIdentByte(s[end])) {
			return j
		}
		i = j + 1
	}
	return -1
}

// replaceWord replaces every whole-word occurrence of old in s.
func replaceWord(s, old, repl string) string {
	var b strings.Builder
	for {
		i := indexWord(s, old)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		b.WriteString(repl)
		s = s[i+len(old):]
	}
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func (d *algoDef) has(key string) bool {
	for _, p := range d.params {
		if p.key == key {
			return true
		}
	}
	return false
}

func paramOwners(key string) []string {
	var out []string
	for _, a := range algoDefs {
		if a.has(key) {
			out = append(out, a.name)
		}
	}
	return out
}

func allParamKeys() []string {
	var out []string
	for _, a := range algoDefs {
		for _, p := range a.params {
			out = append(out, p.key)
		}
	}
	return out
}

func (l *loader) readParam(m *mapReader, p *paramDef, path string, nodes int) (paramValue, bool) {
	v := paramValue{def: p, at: m.get(p.key)}
	if v.at == nil || v.at.kind == yNull {
		return v, false
	}
	key := join(path, p.key)
	ok := false
	switch p.kind {
	case pDur, pDurRange:
		ok = m.durRange(p.key, &v.durLo, &v.durHi, false)
	case pBool:
		ok = m.boolean(p.key, &v.b)
	case pInt:
		var lo, hi float64
		if ok = m.floatRange(p.key, &lo, &hi, p.lo, p.hi); ok {
			if lo != float64(int(lo)) || hi != float64(int(hi)) {
				l.errAt(v.at, key, "want a whole number or range, got %q", v.at.text)
				ok = false
			}
			v.intLo, v.intHi = int(lo), int(hi)
		}
	case pFloat:
		ok = m.floatRange(p.key, &v.fLo, &v.fHi, p.lo, p.hi)
	case pEnum:
		ok = m.oneOf(p.key, &v.s, p.enum...)
	case pNodes:
		v.nodes, ok = l.nodeList(v.at, key, nodes)
	case pInts:
		v.ints, ok = l.intList(v.at, key)
	}
	return v, ok
}

// nodeRef parses a candidate reference: "n3" or 3 (1-based).
func nodeRef(s string, nodes int) (sim.NodeID, error) {
	t := strings.TrimPrefix(strings.TrimSpace(s), "n")
	k, err := strconv.Atoi(t)
	switch {
	case err != nil:
		return sim.None, fmt.Errorf("%q is not a node (want n1..n%d)", s, nodes)
	case k < 1 || k > nodes:
		return sim.None, fmt.Errorf("%q is not a node of this %d-node cluster (n1..n%d)", s, nodes, nodes)
	}
	return sim.NodeID(k - 1), nil
}

func (l *loader) nodeList(n *ynode, path string, nodes int) ([]sim.NodeID, bool) {
	items := []*ynode{n}
	if n.kind == ySeq {
		items = n.items
	}
	var out []sim.NodeID
	ok := true
	for i, it := range items {
		if it.kind != yScalar {
			l.errAt(it, index(path, i), "want a node, got %s", describe(it))
			ok = false
			continue
		}
		id, err := nodeRef(it.text, nodes)
		if err != nil {
			l.errAt(it, index(path, i), "%v", err)
			ok = false
			continue
		}
		out = append(out, id)
	}
	return out, ok
}

func (l *loader) intList(n *ynode, path string) ([]int64, bool) {
	if n.kind != ySeq {
		l.errAt(n, path, "want a list of whole numbers, got %s", describe(n))
		return nil, false
	}
	var out []int64
	ok := true
	for i, it := range n.items {
		v, err := strconv.ParseInt(strings.TrimSpace(it.text), 10, 64)
		if it.kind != yScalar || err != nil {
			l.errAt(it, index(path, i), "want a whole number, got %s", describe(it))
			ok = false
			continue
		}
		out = append(out, v)
	}
	return out, ok
}
