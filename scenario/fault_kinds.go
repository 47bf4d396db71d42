package scenario

import (
	"github.com/electsim/electsim/faults"
)

// readHeal checks that heal has no settings: heal: true, an empty map or
// nothing.
func (l *loader) readHeal(kn *ynode, kp string) bool {
	if kn.kind != yNull && !(kn.kind == yScalar && kn.text == "true") && !(kn.kind == yMap && len(kn.keys) == 0) {
		l.errAt(kn, kp, "heal takes no parameters (write heal: true)")
		return false
	}
	return true
}

// readNodeFault reads a fault that strikes nodes (pause, crash, restart,
// resign): its target, given as the kind's value or as {target, …} with
// the kind's options (wipe_disk for crash and restart, grace for resign).
func (l *loader) readNodeFault(m *mapReader, kind string, kn *ynode, kp string, sc *Scenario, f *faults.Fault) bool {
	var t faults.Target
	var wipe bool
	var grace *faults.DurRange
	ok, tok := true, false
	if kn.kind == yMap {
		km := l.mapOf(kn, kp)
		if tn := km.get("target"); tn != nil {
			t, tok = l.readTarget(tn, join(kp, "target"), sc)
		} else {
			l.errAt(kn, join(kp, "target"), "missing: which node(s), e.g. leader or n3")
		}
		if kind == "crash" || kind == "restart" {
			km.boolean("wipe_disk", &wipe)
		} else if km.has("wipe_disk") {
			l.errAt(km.keyNode("wipe_disk"), join(kp, "wipe_disk"), "applies only to crash and restart")
			ok = false
		}
		if kind == "resign" && km.has("grace") {
			var g faults.DurRange
			if km.durRange("grace", &g.Min, &g.Max, false) {
				grace = &g
			} else {
				ok = false
			}
		}
		km.finish()
	} else {
		t, tok = l.readTarget(kn, kp, sc)
		if kind == "crash" || kind == "restart" {
			m.boolean("wipe_disk", &wipe)
		}
	}
	switch kind {
	case "pause":
		f.Pause = &faults.Pause{Target: t}
	case "crash":
		f.Crash = &faults.Crash{Target: t, WipeDisk: wipe}
	case "restart":
		f.Restart = &faults.Restart{Target: t, WipeDisk: wipe}
	case "resign":
		f.Resign = &faults.Resign{Target: t, Grace: grace}
	}
	return ok && tok
}

// readDisk reads a disk fault: the node(s) (target, or node as an alias)
// and their fsync latency.
func (l *loader) readDisk(kn *ynode, kp string, sc *Scenario) (*faults.Disk, bool) {
	dm := l.mapOf(kn, kp)
	d := &faults.Disk{}
	tn := dm.get("target")
	if tn == nil {
		tn = dm.get("node")
	} else {
		dm.get("node")
	}
	ok := false // until a target is read
	if tn != nil {
		var t faults.Target
		if t, ok = l.readTarget(tn, join(kp, "target"), sc); ok {
			d.Target = t
		}
	} else {
		l.errAt(kn, join(kp, "target"), "missing: which node(s)")
	}
	if fn := dm.get("fsync"); fn != nil {
		if dist, dok := l.readDist(fn, join(kp, "fsync")); dok {
			d.Fsync = dist
		} else {
			ok = false
		}
	} else {
		l.errAt(kn, join(kp, "fsync"), "missing: the disk write latency, e.g. 200ms or 50ms..2s")
		ok = false
	}
	dm.finish()
	return d, ok
}

// readStoreFault reads a lease store fault: unavailable, failover (lose
// the last write), or {unavailable, lose_last_writes}. A scenario without
// a lease store has nothing to strike.
func (l *loader) readStoreFault(kn *ynode, kp string, sc *Scenario) (*faults.Store, bool) {
	st := &faults.Store{}
	ok := true
	if !sc.hasStore() {
		l.errAt(kn, kp, "this scenario has no lease store (store faults need algorithm lease or cron.mode shedlock)")
		ok = false
	}
	if kn.kind == yScalar {
		switch kn.text {
		case "unavailable":
			st.Unavailable = true
		case "failover":
			st.LoseLastWrites = &faults.IntRange{Min: 1, Max: 1}
		default:
			l.errAt(kn, kp, "%q: want unavailable, failover, or {unavailable: true, lose_last_writes: 1..3}%s", kn.text, suggest(kn.text, []string{"unavailable", "failover"}))
			ok = false
		}
		return st, ok
	}
	sm := l.mapOf(kn, kp)
	sm.boolean("unavailable", &st.Unavailable)
	if sm.has("lose_last_writes") {
		if r, rok := l.intRange(sm, "lose_last_writes", 1, 1e6); rok {
			st.LoseLastWrites = r
		} else {
			ok = false
		}
	}
	if sm.ok && !st.Unavailable && st.LoseLastWrites == nil && !sm.has("lose_last_writes") {
		l.errAt(kn, kp, "does nothing: give unavailable: true, lose_last_writes: 1..3, or both")
		ok = false
	}
	sm.finish()
	return st, ok
}
