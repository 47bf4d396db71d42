package scenario

import (
	"strings"
	"time"

	"github.com/electsim/electsim/faults"
)

// nemesisKinds are the kinds a random nemesis draws from.
var nemesisKinds = []string{"partition", "pause", "crash", "restart", "clock", "link", "disk", "store_unavailable", "store_failover"}

// nemesisShapes are the partition shapes a random nemesis may draw (groups
// takes groups a nemesis cannot name).
var nemesisShapes = []string{"isolate", "majority_minority", "bridge", "one_way"}

// readNemesis reads random: {kinds, every, for, …}: each setting in turn
// (every one is read even after an error, so one pass reports them all),
// then refuses settings given beside random instead of inside it, then
// validates the whole.
func (l *loader) readNemesis(fm *mapReader, path string, sc *Scenario) (faults.Nemesis, bool) {
	n := fm.get("random")
	kp := join(path, "random")
	m := l.mapOf(n, kp)
	nem := faults.Nemesis{}
	ok := m.ok
	kinds, kok := l.readNemesisKinds(m, n, kp, sc, &nem)
	ok = kok && ok
	m.boolean("swarm", &nem.Swarm)
	ok = l.readNemesisWeights(m, kp, &nem, kinds) && ok
	ok = l.readNemesisTiming(m, n, kp, &nem) && ok
	if tl := m.list("targets"); tl != nil {
		for i, tn := range tl {
			if t, tok := l.readTarget(tn, index(join(kp, "targets"), i), sc); tok {
				nem.Targets = append(nem.Targets, t)
			} else {
				ok = false
			}
		}
	}
	ok = l.readNemesisShapes(m, kp, &nem) && ok
	ok = l.readNemesisRanges(m, &nem) && ok
	m.finish()
	for _, k := range fm.n.keys {
		if k.name != "random" && k.name != "name" {
			l.errAt(k.at(), join(path, k.name), "a random nemesis takes its settings inside random: {…}")
			fm.asked = append(fm.asked, k.name)
			ok = false
		}
	}
	fm.get("name")
	if ok {
		if err := nem.Validate(); err != nil {
			l.errAt(n, kp, "%v", err)
			ok = false
		}
	}
	return nem, ok
}

// readNemesisKinds reads kinds: the fault kinds drawn, each once, and a
// store kind only where there is a lease store. listed is how many the
// file lists (the weights give one per kind listed).
func (l *loader) readNemesisKinds(m *mapReader, n *ynode, kp string, sc *Scenario, nem *faults.Nemesis) (listed int, ok bool) {
	ok = true
	names, nodes := m.strList("kinds")
	if len(names) == 0 && m.ok {
		l.errAt(n, join(kp, "kinds"), "missing: some of %s", strings.Join(nemesisKinds, ", "))
		ok = false
	}
	for i, k := range names {
		if !containsStr(nemesisKinds, k) {
			l.errAt(nodes[i], index(join(kp, "kinds"), i), "unknown kind %q (one of %s)%s", k, strings.Join(nemesisKinds, ", "), suggest(k, nemesisKinds))
			ok = false
			continue
		}
		if strings.HasPrefix(k, "store") && !sc.hasStore() {
			l.errAt(nodes[i], index(join(kp, "kinds"), i), "%s: this scenario has no lease store", k)
			ok = false
		}
		if containsStr(nem.Kinds, k) {
			l.errAt(nodes[i], index(join(kp, "kinds"), i), "%s is listed twice", k)
			ok = false
			continue
		}
		nem.Kinds = append(nem.Kinds, k)
	}
	return len(names), ok
}

// readNemesisWeights reads weights: one per kind listed, each in
// [1, 1000000], and none with swarm (which draws its own).
func (l *loader) readNemesisWeights(m *mapReader, kp string, nem *faults.Nemesis, kinds int) bool {
	wn := m.get("weights")
	if wn == nil {
		return true
	}
	ws, wok := l.intList(wn, join(kp, "weights"))
	for i, w := range ws {
		if wok && (w < 1 || w > 1e6) {
			l.errAt(wn.items[i], index(join(kp, "weights"), i), "%d is out of range [1, 1000000]", w)
			wok = false
		}
		nem.Weights = append(nem.Weights, int(w))
	}
	switch {
	case !wok:
	case nem.Swarm:
		l.errAt(wn, join(kp, "weights"), "not with swarm: true (swarm draws the weights)")
		wok = false
	case kinds > 0 && len(ws) != kinds:
		l.errAt(wn, join(kp, "weights"), "%s for %s: give one per kind", plural(len(ws), "weight", "weights"), plural(kinds, "kind", "kinds"))
		wok = false
	}
	return wok
}

// readNemesisTiming reads start, until, every and for; every is required
// and at least a millisecond.
func (l *loader) readNemesisTiming(m *mapReader, n *ynode, kp string, nem *faults.Nemesis) bool {
	ok, everyBad := true, false
	for _, d := range []struct {
		key string
		out *faults.DurRange
	}{{"start", &nem.Start}, {"until", &nem.Until}, {"every", &nem.Every}, {"for", &nem.For}} {
		if m.has(d.key) {
			read := m.durRange(d.key, &d.out.Min, &d.out.Max, false)
			ok = read && ok
			if d.key == "every" && !read {
				everyBad = true
			}
		}
	}
	switch {
	case !m.ok:
	case !m.has("every"):
		if !m.misspelt("every") {
			l.errAt(n, join(kp, "every"), "missing: how often a fault is drawn, e.g. 5s..15s")
		}
		ok = false
	case everyBad:
	case nem.Every.Min < time.Millisecond:
		// Every fault is a trace record and a callback the run's event
		// budget does not count; below a millisecond a nemesis only
		// exhausts memory.
		l.errAt(m.get("every"), join(kp, "every"), "must be at least 1ms, got %s", fmtDur(nem.Every.Min))
		ok = false
	}
	return ok
}

// readNemesisShapes reads shapes: the partition shapes drawn.
func (l *loader) readNemesisShapes(m *mapReader, kp string, nem *faults.Nemesis) bool {
	ok := true
	shapes, snodes := m.strList("shapes")
	for i, s := range shapes {
		if !containsStr(nemesisShapes, s) {
			l.errAt(snodes[i], index(join(kp, "shapes"), i), "unknown shape %q (one of %s)%s", s, strings.Join(nemesisShapes, ", "), suggest(s, nemesisShapes))
			ok = false
			continue
		}
		nem.Shapes = append(nem.Shapes, faults.PartitionShape(s))
	}
	return ok
}

// readNemesisRanges reads the ranges the drawn faults take their values
// from (absent: the faults' defaults).
func (l *loader) readNemesisRanges(m *mapReader, nem *faults.Nemesis) bool {
	ok := true
	floatR := func(key string, lo, hi float64) *faults.FloatRange {
		if !m.has(key) {
			return nil
		}
		var r faults.FloatRange
		if !m.floatRange(key, &r.Min, &r.Max, lo, hi) {
			ok = false
			return nil
		}
		return &r
	}
	durR := func(key string, signed bool) *faults.DurRange {
		if !m.has(key) {
			return nil
		}
		var r faults.DurRange
		if !m.durRange(key, &r.Min, &r.Max, signed) {
			ok = false
			return nil
		}
		return &r
	}
	nem.ClockRate = floatR("clock_rate", 0.001, 1000)
	nem.ClockOffset = durR("clock_offset", true)
	nem.LinkLatency = durR("link_latency", false)
	nem.LinkDrop = floatR("link_drop", 0, 1)
	nem.FsyncLatency = durR("fsync_latency", false)
	if m.has("lose_last_writes") {
		if r, rok := l.intRange(m, "lose_last_writes", 1, 1e6); rok {
			nem.LoseLastWrites = r
		} else {
			ok = false
		}
	}
	return ok
}
