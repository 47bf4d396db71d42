package scenario

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/electsim/electsim/registry"
	"github.com/electsim/electsim/sim"
)

// paramValue is a parameter as written in a file.
type paramValue struct {
	def   *registry.Param
	at    *ynode
	durLo time.Duration
	durHi time.Duration
	fLo   float64
	fHi   float64
	b     bool
	s     string
	nodes []sim.NodeID
	ints  []int64
	intLo int
	intHi int
	isSet bool
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

// drawnValues are one run's values by key: the registry.Values an
// algorithm's Build reads.
type drawnValues map[string]drawn

func (v drawnValues) Has(k string) bool                             { _, ok := v[k]; return ok }
func (v drawnValues) Duration(k string) time.Duration               { return v[k].d }
func (v drawnValues) Bool(k string) bool                            { return v[k].b }
func (v drawnValues) Int(k string) int                              { return v[k].i }
func (v drawnValues) Float(k string) float64                        { return v[k].f }
func (v drawnValues) String(k string) string                        { return v[k].s }
func (v drawnValues) Nodes(k string) []sim.NodeID                   { return v[k].nodes }
func (v drawnValues) Ints(k string) []int64                         { return v[k].ints }
func (v drawnValues) DurationRange(k string) (lo, hi time.Duration) { return v[k].lo, v[k].hi }

// NodeFactory builds one candidate node for a run. peers are all candidate
// IDs in ascending order; stores are the lease stores' IDs (nil without one).
type NodeFactory func(peers []sim.NodeID, stores []sim.NodeID) sim.Node

// Algorithms lists the algorithm names scenarios accept: those in
// registry.Default. A program registers electsim's own by importing
// algorithms/builtin (cmd/simrun does), and may register its own.
func Algorithms() []string { return registry.Default.Names() }

func findAlgo(name string) *registry.Algorithm {
	a, _ := registry.Default.Lookup(name)
	return a
}

// needsLeaseStore reports whether algorithm name elects through a lease
// store (its runs add one).
func needsLeaseStore(name string) bool {
	d := findAlgo(name)
	return d != nil && d.LeaseStore
}

func candidateIDs(n int) []sim.NodeID { return registry.CandidateIDs(n) }

// AlgorithmSpec is the algorithm section of a scenario: a name and its
// parameters as written (ranges not yet drawn).
type AlgorithmSpec struct {
	Name   string
	values []paramValue
	at     *ynode
	// stores is the lease store count a worker process reported for a
	// user algorithm the loader read without its code
	// (ParseOptions.LeaseStores; 0: none reported); pending that the
	// loader needed the count and had none (leasestores.go).
	stores  int
	pending bool
}

// Params lists the parameters set in the file, as key=value text, sorted.
func (a AlgorithmSpec) Params() []string {
	var out []string
	for _, v := range a.values {
		out = append(out, v.def.Key+"="+v.text())
	}
	sort.Strings(out)
	return out
}

func (v paramValue) text() string {
	switch v.def.Kind {
	case registry.Duration, registry.DurationRange:
		if v.durLo == v.durHi && v.def.Kind == registry.Duration {
			return v.durLo.String()
		}
		return v.durLo.String() + ".." + v.durHi.String()
	case registry.Bool:
		return strconv.FormatBool(v.b)
	case registry.Int:
		if v.intLo == v.intHi {
			return strconv.Itoa(v.intLo)
		}
		return fmt.Sprintf("%d..%d", v.intLo, v.intHi)
	case registry.Float:
		if v.fLo == v.fHi {
			return strconv.FormatFloat(v.fLo, 'g', -1, 64)
		}
		return strconv.FormatFloat(v.fLo, 'g', -1, 64) + ".." + strconv.FormatFloat(v.fHi, 'g', -1, 64)
	case registry.Enum:
		return v.s
	case registry.Nodes:
		parts := make([]string, len(v.nodes))
		for i, n := range v.nodes {
			parts[i] = "n" + strconv.Itoa(int(n)+1)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case registry.Ints:
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
func (a AlgorithmSpec) draw(r *sim.Rand, end int) drawnValues {
	out := drawnValues{}
	for _, v := range a.values {
		d := drawn{b: v.b, s: v.s, nodes: v.nodes, ints: v.ints, lo: v.durLo, hi: v.durHi}
		switch v.def.Kind {
		case registry.Duration:
			d.d = pickDur(v.durLo, v.durHi, r, end)
		case registry.Int:
			d.i = int(pickInt(int64(v.intLo), int64(v.intHi), r, end))
		case registry.Float:
			d.f = pickFloat(v.fLo, v.fHi, r, end)
		}
		out[v.def.Key] = d
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
	before := *r // where Build's own draws (if any) start
	f, err := def.Build(vals, n, r)
	if err != nil {
		return nil, a, err
	}
	c := AlgorithmSpec{Name: a.Name, at: a.at, stores: a.stores} // the count a worker reported, if any: the concrete run keeps its nodes
	for _, v := range a.values {
		d := vals[v.def.Key]
		switch v.def.Kind {
		case registry.Duration:
			v.durLo, v.durHi = d.d, d.d
		case registry.Int:
			v.intLo, v.intHi = d.i, d.i
		case registry.Float:
			v.fLo, v.fHi = d.f, d.f
		}
		c.values = append(c.values, v)
	}
	if def.Concrete != nil {
		rr := before
		for _, st := range def.Concrete(vals, n, &rr) {
			c.values = slices.DeleteFunc(c.values, func(v paramValue) bool { return v.def.Key == st.Key })
			if p, ok := def.Param(st.Key); ok && !st.Remove {
				c.values = append(c.values, paramValue{def: p, nodes: st.Nodes, isSet: true})
			}
		}
	}
	wrap := func(p []sim.NodeID, stores []sim.NodeID) sim.Node {
		svc := registry.Services{LeaseStore: sim.None, LeaseStores: stores}
		if len(stores) > 0 {
			svc.LeaseStore = stores[0]
		}
		return f(p, svc)
	}
	return wrap, c, nil
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
	for i := range def.Params {
		p := &def.Params[i]
		if v, ok := l.readParam(m, p, path, nodes); ok {
			spec.values = append(spec.values, v)
		}
	}
	// Keys that belong to another algorithm get a clearer message than
	// "unknown field".
	for _, k := range m.n.keys {
		if _, own := def.Param(k.name); k.name == "name" || own {
			continue
		}
		if owners := paramOwners(k.name); len(owners) > 0 {
			l.errAt(k.at(), join(path, k.name), "not a parameter of %s (it belongs to %s)", spec.Name, strings.Join(owners, ", "))
			m.asked = append(m.asked, k.name)
		}
	}
	m.finish()
	// Validate the configuration at both ends of every range (by the
	// algorithm's Build: user code, unless the caller defers it).
	if len(l.errs) == 0 && l.userCode(def) {
		for _, end := range []int{-1, 1} {
			if _, err := def.Build(spec.draw(sim.NewRand(0, "validate"), end), nodes, sim.NewRand(0, "validate")); err != nil {
				l.configError(n, path, def, spec, err)
				break
			}
		}
	}
	return spec
}

// configError reports an algorithm package's validation error. A
// registry.FieldError (Build validates with the scenario's words) is
// reported at the first field it is about that the file sets, in its own
// text; any other error at the algorithm section, as written.
func (l *loader) configError(n *ynode, path string, def *registry.Algorithm, spec AlgorithmSpec, err error) {
	var fe *registry.FieldError
	if !errors.As(err, &fe) {
		l.errAt(n, path, "%s", strings.TrimPrefix(err.Error(), def.Package+": "))
		return
	}
	at, field := n, path
	for _, f := range fe.Fields {
		key, ok := def.KeyOf(f)
		if !ok {
			continue
		}
		if v, set := spec.value(key); set {
			at, field = v.at, join(path, key)
			break
		}
	}
	l.errAt(at, field, "%s", fe.Text)
}

// value returns the parameter key as the file sets it.
func (a AlgorithmSpec) value(key string) (paramValue, bool) {
	for _, v := range a.values {
		if v.def.Key == key {
			return v, true
		}
	}
	return paramValue{}, false
}

func paramOwners(key string) []string {
	var out []string
	for _, a := range registry.Default.All() {
		if _, ok := a.Param(key); ok {
			out = append(out, a.Name)
		}
	}
	return out
}

func allParamKeys() []string {
	var out []string
	for _, a := range registry.Default.All() {
		for _, p := range a.Params {
			out = append(out, p.Key)
		}
	}
	return out
}

func (l *loader) readParam(m *mapReader, p *registry.Param, path string, nodes int) (paramValue, bool) {
	v := paramValue{def: p, at: m.get(p.Key)}
	if v.at == nil || v.at.kind == yNull {
		return v, false
	}
	key := join(path, p.Key)
	ok := false
	switch p.Kind {
	case registry.Duration, registry.DurationRange:
		ok = m.durRange(p.Key, &v.durLo, &v.durHi, false)
	case registry.Bool:
		ok = m.boolean(p.Key, &v.b)
	case registry.Int:
		var lo, hi float64
		if ok = m.floatRange(p.Key, &lo, &hi, p.Min, p.Max); ok {
			if lo != float64(int(lo)) || hi != float64(int(hi)) {
				l.errAt(v.at, key, "want a whole number or range, got %q", v.at.text)
				ok = false
			}
			v.intLo, v.intHi = int(lo), int(hi)
		}
	case registry.Float:
		ok = m.floatRange(p.Key, &v.fLo, &v.fHi, p.Min, p.Max)
	case registry.Enum:
		ok = m.oneOf(p.Key, &v.s, p.Enum...)
	case registry.Nodes:
		v.nodes, ok = l.nodeList(v.at, key, nodes)
	case registry.Ints:
		v.ints, ok = l.intList(v.at, key)
	}
	if ok && p.Single && (v.intLo != v.intHi || v.fLo != v.fHi || v.durLo != v.durHi) {
		l.errAt(v.at, key, "want one value, not a range: %s decides the run's nodes", p.Key)
		ok = false
	}
	return v, ok
}

// leaseStores is how many lease store nodes runs of the algorithm spec
// get: 0 if it needs none, else its descriptor's LeaseStores (read from the
// Single parameters, which never vary between runs), default 1.
func (a AlgorithmSpec) leaseStores() int {
	d := findAlgo(a.Name)
	switch {
	case d == nil || !d.LeaseStore:
		return 0
	case d.LeaseStores == nil:
		return 1
	case a.stores > 0:
		return a.stores // a worker's report: the descriptor's code is the user's
	case a.pending:
		return 1 // not known here: Build refuses the scenario (LeaseStoresPending)
	}
	return max(1, min(registry.MaxLeaseStores, d.LeaseStores(a.draw(nil, -1))))
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

// DriftMargin is the scenario's algorithm's analytic worst case with
// followers' clocks at rate × true time (registry.Algorithm.DriftMargin),
// with the network's latency bounds. A parameter given as a range counts
// at whichever end gives the larger overlap. ok is false when the
// algorithm (or its flavour) has no such bound.
func (sc *Scenario) DriftMargin(rate float64) (registry.Margin, bool) {
	def := findAlgo(sc.Algorithm.Name)
	if def == nil || def.DriftMargin == nil {
		return registry.Margin{}, false
	}
	lat := sc.Network.Latency
	lo, hi := lat.Min, lat.Max
	if hi < lo {
		hi = lo
	}
	var best registry.Margin
	found := false
	for _, end := range []int{-1, 1} {
		m, ok := def.DriftMargin(sc.Algorithm.draw(nil, end), rate, lo, hi)
		if ok && (!found || m.Overlap > best.Overlap || m.SafeRate < best.SafeRate) {
			best, found = m, true
		}
	}
	return best, found
}
