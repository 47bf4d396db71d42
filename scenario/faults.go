package scenario

import (
	"strconv"
	"strings"

	"github.com/electsim/electsim/cron"
	"github.com/electsim/electsim/faults"
	"github.com/electsim/electsim/sim"
)

// faultKinds are the keys that name a fault's kind; exactly one per entry.
var faultKinds = []string{"partition", "heal", "pause", "crash", "restart", "resign", "clock", "link", "disk", "store", "random"}

// faultFields are the keys a fault entry has besides its kind.
var faultFields = []string{"name", "at", "for", "after", "delay", "wipe_disk", "target", "to", "groups", "services"}

var targetKinds = []string{"leader", "lease_holder", "candidate", "followers", "random", "random_minority", "all", "store", "resource", "event_node", "service",
	"workers", "busy_worker", "queue", "exec_store"}

// readFaults reads the faults list into explicit faults and nemeses.
func (l *loader) readFaults(n *ynode, sc *Scenario) {
	if n == nil || n.kind == yNull {
		return
	}
	if n.kind != ySeq {
		l.errAt(n, "faults", "want a list of faults, got %s", describe(n))
		return
	}
	for i, it := range n.items {
		path := index("faults", i)
		m := l.mapOf(it, path)
		if !m.ok {
			continue
		}
		var kinds []string
		for _, k := range it.keys {
			for _, fk := range faultKinds {
				if k.name == fk {
					kinds = append(kinds, fk)
				}
			}
		}
		switch {
		case len(kinds) == 0:
			reported := false
			for _, k := range it.keys {
				if s := suggest(k.name, faultKinds); s != "" && !containsStr(faultFields, k.name) {
					l.errAt(k.at(), join(path, k.name), "unknown fault kind%s", s)
					reported = true
				}
			}
			if !reported {
				l.errAt(it, path, "a fault needs one of %s", strings.Join(faultKinds, ", "))
			}
			continue // the other keys cannot be judged without a kind
		case len(kinds) > 1:
			l.errAt(m.keyNode(kinds[1]), join(path, kinds[1]), "one fault per entry: this one is already a %s fault (write a second entry)", kinds[0])
			continue
		}
		if kinds[0] == "random" {
			if nem, ok := l.readNemesis(m, path, sc); ok {
				sc.Nemeses = append(sc.Nemeses, nem)
			}
			m.finish()
			continue
		}
		f, ok := l.readFault(m, kinds[0], path, sc)
		m.finish()
		if !ok {
			continue
		}
		if f.For != nil && instantaneous(&f) {
			l.errAt(m.get("for"), join(path, "for"), "a %s is instantaneous and cannot last; remove for", instantWhat(&f))
			continue
		}
		if err := f.Validate(); err != nil {
			l.errAt(it, path, "%v", err)
			continue
		}
		sc.Faults = append(sc.Faults, f)
	}
}

// readTarget reads a target: a role (leader, lease_holder, …), a node (n3 or
// 3), a list of nodes, or {kind: random, count: 2}.
func (l *loader) readTarget(n *ynode, path string, sc *Scenario) (faults.Target, bool) {
	switch n.kind {
	case yScalar:
		s := strings.TrimSpace(n.text)
		for _, k := range targetKinds {
			if s == k {
				t := faults.Of(faults.TargetKind(k))
				return t, l.checkTargetAvailable(n, path, t, sc)
			}
		}
		if id, err := nodeRef(s, sc.Nodes); err == nil {
			return faults.Nodes(id), true
		}
		if id, svc := sc.serviceID(s); svc && id != sim.None {
			sc.namesService = true
			return faults.Nodes(id), true // store2, store3, …: Redlock's other masters
		}
		if _, err := strconv.Atoi(strings.TrimPrefix(s, "n")); err == nil {
			l.errAt(n, path, "%q is not a node of this %d-node cluster (n1..n%d)", s, sc.Nodes, sc.Nodes)
			return faults.Target{}, false
		}
		l.errAt(n, path, "unknown target %q (a role: %s; or a node n1..n%d)%s", s, strings.Join(targetKinds, ", "), sc.Nodes, suggest(s, targetKinds))
	case ySeq:
		ids, ok := l.targetNodeList(n, path, sc)
		if ok && len(ids) == 0 {
			l.errAt(n, path, "empty list of nodes")
			ok = false
		}
		return faults.Nodes(ids...), ok
	case yMap:
		m := l.mapOf(n, path)
		var kind string
		t := faults.Target{}
		ok := m.oneOf("kind", &kind, targetKinds...)
		t.Kind = faults.TargetKind(kind)
		if m.has("count") {
			if kind != "random" {
				l.errAt(m.keyNode("count"), join(path, "count"), "count only applies to kind random")
				ok = false
			}
			m.integer("count", &t.Count, 1, MaxNodes)
		}
		m.finish()
		return t, ok && l.checkTargetAvailable(n, path, t, sc)
	default:
		l.errAt(n, path, "missing target")
	}
	return faults.Target{}, false
}

// targetNodeList reads a list of nodes in a target: candidates (n3 or 3)
// and, by name, the service nodes (store, resource).
func (l *loader) targetNodeList(n *ynode, path string, sc *Scenario) ([]sim.NodeID, bool) {
	var out []sim.NodeID
	ok := true
	for i, it := range n.items {
		p := index(path, i)
		if it.kind != yScalar {
			l.errAt(it, p, "want a node, got %s", describe(it))
			ok = false
			continue
		}
		s := strings.TrimSpace(it.text)
		if id, svc := sc.serviceID(s); svc {
			if id == sim.None {
				l.errAt(it, p, "this scenario has no %s node", s)
				ok = false
				continue
			}
			sc.namesService = true
			out = append(out, id)
			continue
		}
		id, err := nodeRef(s, sc.Nodes)
		if err != nil {
			l.errAt(it, p, "%v", err)
			ok = false
			continue
		}
		out = append(out, id)
	}
	return out, ok
}

// serviceID resolves "store", "store2"… or "resource" to the node ID runs give it
// (sim.None if the scenario has no such node); svc is false for other names.
func (sc *Scenario) serviceID(name string) (id sim.NodeID, svc bool) {
	if id, svc := sc.celeryServiceID(name); svc {
		return id, true
	}
	if id, svc := sc.queueServiceID(name); svc {
		return id, true
	}
	if id, svc := sc.kubeServiceID(name); svc {
		return id, true
	}
	next := sim.NodeID(sc.Nodes)
	store := sim.None
	if sc.hasStore() {
		store = next
		next++
	}
	if k, err := strconv.Atoi(strings.TrimPrefix(name, "store")); err == nil && strings.HasPrefix(name, "store") && k >= 2 {
		if k > sc.storeBound() {
			return sim.None, true
		}
		return extraStoreID(k, sc.Nodes, sc.Cron != nil), true
	}
	switch name {
	case "store":
		return store, true
	case "resource":
		if sc.Cron == nil {
			return sim.None, true
		}
		return next, true
	}
	return sim.None, false
}

func (l *loader) checkTargetAvailable(n *ynode, path string, t faults.Target, sc *Scenario) bool {
	switch t.Kind {
	case faults.TargetStore, faults.TargetLeaseHolder:
		if !sc.hasStore() {
			l.errAt(n, path, "%s: this scenario has no lease store (algorithm lease or cron.mode shedlock)", t.Kind)
			return false
		}
	case faults.TargetResource:
		if sc.Cron == nil {
			l.errAt(n, path, "resource: this scenario has no cron section, so no fenced resource")
			return false
		}
	case faults.TargetService:
		if sc.Cron == nil && !sc.hasStore() {
			l.errAt(n, path, "service: this scenario has no service node (no lease store, no cron section)")
			return false
		}
	case faults.TargetWorkers, faults.TargetBusyWorker:
		if sc.celeryMode() {
			return true // Celery's workers
		}
		if !sc.queueMode() && !sc.kubeMode() {
			l.errAt(n, path, "%s: this scenario has no queue-mode cron (cron.mode: queue), kubelets (cron.mode: kubernetes) or Celery workers (cron.mode: celery)", t.Kind)
			return false
		}
	case faults.TargetQueue, faults.TargetExecStore:
		if sc.celeryMode() && t.Kind == faults.TargetQueue {
			return true // the Redis node (lock and broker)
		}
		if !sc.queueMode() {
			l.errAt(n, path, "%s: this scenario has no queue-mode cron (cron.mode: queue)", t.Kind)
			return false
		}
	case faults.TargetEventNode:
		if !l.faultHasAfter && !l.inTrigger {
			l.errAt(n, path, "event_node is the node whose event fired the fault's trigger; this fault has no after: {event, node}")
			return false
		}
	}
	return true
}

func (l *loader) readPartition(fm *mapReader, kn *ynode, kp, path string, sc *Scenario) (*faults.Partition, bool) {
	p := &faults.Partition{}
	ok := true
	shapes := []string{"groups", "isolate", "majority_minority", "bridge", "one_way"}
	// Shorthand: partition: isolate, with target/to/groups/services beside it.
	m := fm
	mp := path
	if kn.kind == yMap {
		m = l.mapOf(kn, kp)
		mp = kp
		var s string
		if !m.oneOf("shape", &s, shapes...) {
			if !m.has("shape") {
				l.errAt(kn, join(kp, "shape"), "missing: one of %s", strings.Join(shapes, ", "))
			}
			ok = false
		}
		p.Shape = faults.PartitionShape(s)
	} else if kn.kind == yScalar {
		s := strings.TrimSpace(kn.text)
		found := false
		for _, sh := range shapes {
			if s == sh {
				found = true
			}
		}
		if !found {
			l.errAt(kn, kp, "unknown shape %q (one of %s)%s", s, strings.Join(shapes, ", "), suggest(s, shapes))
			ok = false
		}
		p.Shape = faults.PartitionShape(s)
	} else {
		l.errAt(kn, kp, "want a shape (isolate, majority_minority, bridge, one_way, groups) or a mapping")
		return p, false
	}
	if tn := m.get("target"); tn != nil {
		if t, tok := l.readTarget(tn, join(mp, "target"), sc); tok {
			p.Target = &t
		} else {
			ok = false
		}
	}
	if tn := m.get("to"); tn != nil {
		if t, tok := l.readTarget(tn, join(mp, "to"), sc); tok {
			p.To = &t
		} else {
			ok = false
		}
	}
	var svc string
	if m.oneOf("services", &svc, "both", "majority", "minority") {
		p.Services = faults.ServicePlacement(svc)
	}
	for gi, g := range m.list("groups") {
		gp := index(join(mp, "groups"), gi)
		items := []*ynode{g}
		if g.kind == ySeq {
			items = g.items
		}
		var group []faults.Target
		for ti, tn := range items {
			if t, tok := l.readTarget(tn, index(gp, ti), sc); tok {
				group = append(group, t)
			} else {
				ok = false
			}
		}
		p.Groups = append(p.Groups, group)
	}
	if m != fm {
		m.finish()
	}
	if ok {
		if err := p.Validate(); err != nil {
			l.errAt(kn, kp, "%v", err)
			ok = false
		}
	}
	return p, ok
}

func (l *loader) readClock(n *ynode, path string, sc *Scenario) (*faults.Clock, bool) {
	m := l.mapOf(n, path)
	c := &faults.Clock{}
	ok := m.ok
	tn := m.get("target")
	if tn == nil {
		tn = m.get("node")
	} else if m.has("node") {
		l.errAt(m.keyNode("node"), join(path, "node"), "give target or node, not both")
		ok = false
	}
	if tn == nil {
		if m.ok {
			l.errAt(n, join(path, "node"), "missing: which node's clock (node: n3, or target: leader)")
		}
		ok = false
	} else if t, tok := l.readTarget(tn, join(path, "node"), sc); tok {
		c.Target = t
	} else {
		ok = false
	}
	for _, d := range []struct {
		key string
		out **faults.DurRange
	}{{"offset", &c.Offset}, {"step", &c.Step}} {
		if m.has(d.key) {
			var r faults.DurRange
			if m.durRange(d.key, &r.Min, &r.Max, true) {
				*d.out = &r
			} else {
				ok = false
			}
		}
	}
	for _, f := range []struct {
		key string
		out **faults.FloatRange
	}{{"rate", &c.Rate}, {"mono_rate", &c.MonoRate}, {"wall_rate", &c.WallRate}} {
		if m.has(f.key) {
			var r faults.FloatRange
			if m.floatRange(f.key, &r.Min, &r.Max, 0.001, 1000) {
				*f.out = &r
			} else {
				ok = false
			}
		}
	}
	switch {
	case !m.ok:
	case !m.has("offset") && !m.has("step") && !m.has("rate") && !m.has("mono_rate") && !m.has("wall_rate"):
		l.errAt(n, path, "changes nothing: give offset, step, rate, mono_rate or wall_rate")
		ok = false
	case m.has("rate") && (m.has("mono_rate") || m.has("wall_rate")):
		l.errAt(m.get("rate"), join(path, "rate"), "rate sets both clocks; not with mono_rate or wall_rate")
		ok = false
	}
	m.finish()
	return c, ok
}

func (l *loader) readLink(n *ynode, path string, sc *Scenario) (*faults.Link, bool) {
	m := l.mapOf(n, path)
	lk := &faults.Link{}
	ok := m.ok
	for _, e := range []struct {
		key string
		out **faults.Target
	}{{"from", &lk.From}, {"to", &lk.To}} {
		if tn := m.get(e.key); tn != nil {
			if tn.kind == yScalar && tn.text == "all" {
				continue
			}
			if t, tok := l.readTarget(tn, join(path, e.key), sc); tok {
				*e.out = &t
			} else {
				ok = false
			}
		}
	}
	m.boolean("both_ways", &lk.BothWays)
	if dn := m.get("latency"); dn != nil {
		if d, dok := l.readDist(dn, join(path, "latency")); dok {
			lk.Latency = &d
		} else {
			ok = false
		}
	}
	for _, f := range []struct {
		key string
		out **faults.FloatRange
	}{{"drop", &lk.Drop}, {"duplicate", &lk.Duplicate}} {
		if m.has(f.key) {
			var r faults.FloatRange
			if m.floatRange(f.key, &r.Min, &r.Max, 0, 1) {
				*f.out = &r
			} else {
				ok = false
			}
		}
	}
	if m.ok && !m.has("latency") && !m.has("drop") && !m.has("duplicate") {
		l.errAt(n, path, "changes nothing: give latency, drop or duplicate")
		ok = false
	}
	m.finish()
	return lk, ok
}

// hasStore reports whether runs of the scenario have a lease store.
func (sc *Scenario) hasStore() bool { return sc.storeCount() > 0 }

// storeCount is how many lease store nodes runs of the scenario have: one
// for ShedLock mode, else what the algorithm asks for (Redlock: one per
// master).
func (sc *Scenario) storeCount() int {
	if sc.Cron != nil && sc.Cron.Mode == "shedlock" {
		return 1
	}
	return sc.Algorithm.leaseStores()
}

// extraStoreID is the node ID of lease store k (2-based: "store2"), given
// n candidates and whether there is a resource: the first store keeps ID n
// and the resource n+1, so the others come after them.
func extraStoreID(k, n int, resource bool) sim.NodeID {
	id := n + 1 + k - 2
	if resource {
		id++
	}
	return sim.NodeID(id)
}

// storeName names lease store k (1-based): "store", "store2", ….
func storeName(k int) string {
	if k == 1 {
		return "store"
	}
	return "store" + strconv.Itoa(k)
}

// instantaneous reports whether a fault has nothing For could revert
// (faults.Fault.Validate rejects For on it).
func instantaneous(f *faults.Fault) bool {
	switch {
	case f.Heal != nil, f.Restart != nil:
		return true
	case f.Clock != nil:
		c := f.Clock
		return c.Offset == nil && c.Rate == nil && c.MonoRate == nil && c.WallRate == nil
	case f.Store != nil:
		return !f.Store.Unavailable
	}
	return false
}

func instantWhat(f *faults.Fault) string {
	switch {
	case f.Heal != nil:
		return "heal"
	case f.Restart != nil:
		return "restart"
	case f.Clock != nil:
		return "clock step (step without offset or a rate)"
	}
	return "store failover (lose_last_writes without unavailable)"
}

// intRange reads a whole number or range a..b within [lo, hi].
func (l *loader) intRange(m *mapReader, key string, lo, hi float64) (*faults.IntRange, bool) {
	var a, b float64
	if !m.floatRange(key, &a, &b, lo, hi) {
		return nil, false
	}
	if a != float64(int(a)) || b != float64(int(b)) {
		l.errAt(m.get(key), join(m.path, key), "want a whole number or range a..b, got %q", m.get(key).text)
		return nil, false
	}
	return &faults.IntRange{Min: int(a), Max: int(b)}, true
}

// readTriggerState reads after.state: a protocol state the scenario's
// algorithm declares (registry.Algorithm.States), instead of an event.
func (l *loader) readTriggerState(am *mapReader, tr *faults.Trigger, path string, sc *Scenario) bool {
	p := join(path, "after.state")
	if am.has("event") {
		l.errAt(am.get("state"), p, "not with event: a trigger waits for an event or a protocol state")
		return false
	}
	if !am.str("state", &tr.State) {
		return false
	}
	var states []string
	if d := findAlgo(sc.AlgorithmName("")); d != nil && !sc.noElection() {
		states = d.States
	}
	if sc.Cron != nil {
		// The cron mode's step states (queue, beat, controller) follow.
		states = append(append([]string(nil), states...), cron.ModeStates(sc.Cron.Mode)...)
	}
	if !containsStr(states, tr.State) {
		if len(states) == 0 {
			l.errAt(am.get("state"), p, "%q: algorithm %s declares no protocol states", tr.State, sc.AlgorithmName(""))
		} else {
			l.errAt(am.get("state"), p, "unknown protocol state %q%s (%s declares %s)", tr.State, suggest(tr.State, states), sc.AlgorithmName(""), strings.Join(states, ", "))
		}
		return false
	}
	return true
}

// readAt reads a fault's at: a time in the fault phase (required unless
// after: triggers the fault).
func (l *loader) readAt(m *mapReader, path string, sc *Scenario, f *faults.Fault) bool {
	switch {
	case !m.has("at") && !m.has("after"):
		l.errAt(m.n, join(path, "at"), "missing: when the fault fires (e.g. at: 10s or at: 10s..20s), or after: {event, node}")
		return false
	case !m.has("at"):
		return true
	case !m.durRange("at", &f.At.Min, &f.At.Max, false):
		return false
	case sc.Duration > 0 && f.At.Min >= sc.Duration && !m.has("after"):
		// Faults fire in the fault phase only; the settle phase reverts
		// them and fires none, so this one never would.
		l.errAt(m.get("at"), join(path, "at"), "%s is not before the fault phase ends (duration: %s): the fault would never fire (settle fires no fault); move it earlier or lengthen duration", fmtDur(f.At.Min), fmtDur(sc.Duration))
		return false
	}
	return true
}
