package scenario

import (
	"github.com/electsim/electsim/faults"
)

// readFault reads one explicit fault entry of the given kind: its name,
// when it strikes (at, or after an event with a delay), how long it
// lasts, then the kind's own settings. Every part is read even after an
// error, so one pass reports them all, in the order of the entry's keys.
func (l *loader) readFault(m *mapReader, kind, path string, sc *Scenario) (faults.Fault, bool) {
	var f faults.Fault
	m.str("name", &f.Name)
	l.faultHasAfter = m.has("after")
	defer func() { l.faultHasAfter = false }()
	ok := l.readAt(m, path, sc, &f)
	if m.has("for") {
		var d faults.DurRange
		if m.durRange("for", &d.Min, &d.Max, false) {
			f.For = &d
		} else {
			ok = false
		}
	}
	ok = l.readAfter(m, path, sc, &f) && ok
	return f, l.readFaultKind(m, kind, path, sc, &f) && ok
}

// readAfter reads the fault's trigger: after: {event, node} or {state},
// and the delay that only a trigger takes.
func (l *loader) readAfter(m *mapReader, path string, sc *Scenario, f *faults.Fault) bool {
	an := m.get("after")
	if an == nil {
		if m.has("delay") {
			l.errAt(m.keyNode("delay"), join(path, "delay"), "delay only applies with after: {event, node}")
			return false
		}
		return true
	}
	am := l.mapOf(an, join(path, "after"))
	tr := &faults.Trigger{}
	ok := true
	if am.has("state") {
		ok = l.readTriggerState(am, tr, path, sc) && ok
	} else if !am.oneOf("event", &tr.Event, faults.EventElected, faults.EventSteppedDown, faults.EventRenew,
		faults.EventAcquired, faults.EventExpired, faults.EventJobStarted, faults.EventJobFinished) {
		if !am.has("event") && am.ok && !am.misspelt("event") {
			l.errAt(an, join(path, "after.event"), "missing: elected, stepped_down, renew, acquired, expired, job_started or job_finished (or state: a protocol state the algorithm declares)")
		}
		ok = false
	}
	ok = l.checkTriggerEvent(am, tr, path, sc) && ok
	if nn := am.get("node"); nn != nil {
		ok = l.readTriggerNode(nn, tr, path, sc) && ok
	}
	am.finish()
	if m.has("delay") {
		ok = m.durRange("delay", &tr.Delay.Min, &tr.Delay.Max, false) && ok
	}
	f.After = tr
	return ok
}

// checkTriggerEvent refuses an event the scenario cannot produce: a lease
// store's event without a lease store, a cron event without cron.
func (l *loader) checkTriggerEvent(am *mapReader, tr *faults.Trigger, path string, sc *Scenario) bool {
	switch tr.Event {
	case faults.EventRenew, faults.EventAcquired, faults.EventExpired:
		if !sc.hasStore() {
			l.errAt(am.get("event"), join(path, "after.event"), "%s is a lease store event; this scenario has no lease store (algorithm lease or cron.mode shedlock)", tr.Event)
			return false
		}
	case faults.EventJobStarted, faults.EventJobFinished:
		if sc.Cron == nil {
			l.errAt(am.get("event"), join(path, "after.event"), "%s is a cron event; this scenario has no cron section", tr.Event)
			return false
		}
	}
	return true
}

// readTriggerNode reads after.node: whose event counts. A target drawn
// at random, or one that is itself defined by the event, cannot say.
func (l *loader) readTriggerNode(nn *ynode, tr *faults.Trigger, path string, sc *Scenario) bool {
	l.inTrigger = true
	t, tok := l.readTarget(nn, join(path, "after.node"), sc)
	l.inTrigger = false
	switch {
	case !tok:
		return false
	case t.Kind == faults.TargetRandom || t.Kind == faults.TargetRandomMinority || t.Kind == faults.TargetEventNode || t.Kind == faults.TargetService:
		l.errAt(nn, join(path, "after.node"), "%s cannot say whose event counts (use leader, lease_holder, candidate, followers, all or nodes)", t.Kind)
		return false
	}
	tr.Node = t
	return true
}

// readFaultKind reads the settings under the entry's kind key into f:
// one reader per kind (readFaults has checked the kind is one of
// faultKinds, random aside).
func (l *loader) readFaultKind(m *mapReader, kind, path string, sc *Scenario, f *faults.Fault) bool {
	kn := m.get(kind)
	kp := join(path, kind)
	ok := true
	switch kind {
	case "heal":
		ok = l.readHeal(kn, kp)
		f.Heal = &faults.Heal{}
	case "pause", "crash", "restart", "resign":
		ok = l.readNodeFault(m, kind, kn, kp, sc, f)
	case "partition":
		f.Partition, ok = l.readPartition(m, kn, kp, path, sc)
	case "clock":
		f.Clock, ok = l.readClock(kn, kp, sc)
	case "link":
		f.Link, ok = l.readLink(kn, kp, sc)
	case "disk":
		f.Disk, ok = l.readDisk(kn, kp, sc)
	case "store":
		f.Store, ok = l.readStoreFault(kn, kp, sc)
	}
	return ok
}
