package checker

import (
	"fmt"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/electsim/electsim/contract"
	"github.com/electsim/electsim/sim"
)

// checkLeaderLinearizability runs the leadership history against a lock:
// every tenure is an acquire at its start and a release at its end.
func (c *checker) checkLeaderLinearizability() (Check, Linearization) {
	ch := Check{Name: CheckLeaderLinearizability}
	ops := leadershipOps(c.tl, c.in.name)
	m := lockModel(c.in.name)
	lin, bad := c.runPorcupine(CheckLeaderLinearizability, "lock", m, ops, [][]porcupine.Operation{ops}, false)
	ch.Status = verdict(porcupine.CheckResult(lin.Result))
	switch ch.Status {
	case StatusOK:
		ch.Summary = fmt.Sprintf("porcupine: the leadership history (%d operations) is linearizable as a lock", len(ops))
	case StatusUnknown:
		ch.Summary = fmt.Sprintf("porcupine did not decide within %v: verdict unknown, not ok", c.in.PorcupineTimeout)
	case StatusViolated:
		ch.Summary = fmt.Sprintf("porcupine: the leadership history (%d operations) is not linearizable as a lock", len(ops))
		for _, u := range bad {
			in := u.op.Input.(lockInput)
			holder := u.state.(sim.NodeID)
			v := Violation{Kind: CheckLeaderLinearizability, At: sim.Time(u.op.Call), End: sim.Time(u.op.Return),
				Nodes: []string{in.name}, NodeIDs: []sim.NodeID{in.node}, Tokens: []int64{in.token},
				Details: fmt.Sprintf("porcupine linearized %d of %d operations; it cannot place %s at t=%v while the lock is %s",
					u.prefix, u.size, lockDescribe(in), sim.Time(u.op.Call), lockState(holder, c.in.name))}
			if holder != sim.None && holder != in.node {
				// The lock's holder is part of the finding too: a fault on
				// it (a pause that kept it from releasing) reaches it.
				v.Nodes, v.NodeIDs = append(v.Nodes, c.in.name(holder)), append(v.NodeIDs, holder)
			}
			// The lock is broken exactly where two tenures overlap: tell
			// that overlap's story, and share its harm verdict.
			v.Harmless = c.harmfulOverlaps == 0 && c.in.hasResource()
			if sb, ok := c.overlapStory(in.node, sim.Time(u.op.Call)); ok {
				v.Explanation, v.Why = sb.Explanation, sb.Why
				v.Harmless = sb.Harmless
				// ... and its contract verdict, when the contract covers
				// split_brain but says nothing of the lock.
				if _, own := c.in.Contract.For(CheckLeaderLinearizability); !own {
					v.Contract, v.Excuse, v.ExcusedBy, v.ExcusedNode, v.ExcusedAt = sb.Contract, sb.Excuse, sb.ExcusedBy, sb.ExcusedNode, sb.ExcusedAt
					v.KnownBug = sb.KnownBug
					v.judged = sb.Contract != contract.Uncovered
				}
			}
			c.add(&ch, v)
		}
		if len(bad) == 0 {
			c.add(&ch, Violation{Details: "porcupine found no linearization of the leadership history"})
		}
	}
	return ch, lin
}

func lockDescribe(in lockInput) string {
	if in.op == lockRelease {
		return fmt.Sprintf("%s's release (epoch %d)", in.name, in.epoch)
	}
	return fmt.Sprintf("%s's acquire (epoch %d, token %d)", in.name, in.epoch, in.token)
}

func lockState(h sim.NodeID, name func(sim.NodeID) string) string {
	if h == sim.None {
		return "free"
	}
	return "held by " + name(h)
}

// overlapStory finds the split-brain violation that node's operation at t
// belongs to.
func (c *checker) overlapStory(node sim.NodeID, t sim.Time) (Violation, bool) {
	sb := c.splitBrain
	nm := c.in.name(node)
	for _, v := range sb.Violations {
		if (v.At == t || v.End == t) && (v.Nodes[0] == nm || v.Nodes[1] == nm) {
			return v, true
		}
	}
	for _, v := range sb.Violations {
		if v.At <= t && t <= v.End {
			return v, true
		}
	}
	return Violation{}, false
}

// resourceSegmented decides the resource history segment by segment
// (checkResourceSegments) and, with a story, draws a window of it.
func (c *checker) resourceSegmented(ops []porcupine.Operation, parts [][]porcupine.Operation, partName func(porcupine.Operation) string) (Linearization, []unplaced) {
	res, bad, w, wp := c.checkResourceSegments(parts)
	lin := Linearization{Check: CheckLinearizability, Model: "fenced-store", Result: string(res), Operations: len(ops),
		Partitions: len(parts), Timeout: c.in.PorcupineTimeout}
	if w == nil {
		return lin, bad
	}
	seg := parts[wp][w.from:w.to]
	m := fencedStoreModelFrom(c.in.name, nil, w.init)
	_, info := porcupine.CheckOperationsVerbose(m, seg, c.in.PorcupineTimeout)
	lin.model, lin.info, lin.ran = m, info, true
	lin.Window = fmt.Sprintf("writes %d–%d of the %d of partition %s", w.from+1, w.to, len(parts[wp]), partName(parts[wp][0]))
	c.annotate(&lin, seg, true)
	return lin, bad
}

// checkLinearizability runs the resource history against the fenced-store
// model, partitioned by fencing scope (or by slot without fencing).
func (c *checker) checkLinearizability() (Check, Linearization) {
	ch := Check{Name: CheckLinearizability}
	if !c.in.hasResource() {
		return skipped(ch, "no fenced resource in this run"), Linearization{Check: CheckLinearizability, Model: "fenced-store"}
	}
	ops := resourceOps(c.in.Resource, c.sentAt)
	part, partName := resourcePartition(c.in.Policy)
	m := fencedStoreModel(c.in.name, part)
	parts := part(ops)
	var lin Linearization
	var bad []unplaced
	if c.hasStory() && len(ops) <= visualizeMax {
		// Small enough to draw whole: one porcupine run gives the verdict
		// and the visualization.
		lin, bad = c.runPorcupine(CheckLinearizability, "fenced-store", m, ops, parts, true)
	} else {
		lin, bad = c.resourceSegmented(ops, parts, partName)
	}
	ch.Status = verdict(porcupine.CheckResult(lin.Result))
	scope := "slot"
	if c.in.Policy.Fencing {
		scope = "fencing scope"
	}
	switch ch.Status {
	case StatusOK:
		ch.Summary = fmt.Sprintf("porcupine: the resource history (%d writes, %d partitions by %s) is linearizable as a fenced store", len(ops), len(parts), scope)
	case StatusUnknown:
		ch.Summary = fmt.Sprintf("porcupine did not decide within %v: verdict unknown, not ok", c.in.PorcupineTimeout)
	case StatusViolated:
		ch.Summary = fmt.Sprintf("porcupine: the resource history (%d writes, %d partitions by %s) is not linearizable as a fenced store", len(ops), len(parts), scope)
		for _, u := range bad {
			in := u.op.Input.(*writeInput)
			st := u.state.(storeState)
			e := in.LogEntry
			why := "its slot was already applied from another run"
			if st.has && in.Token < st.highest {
				why = fmt.Sprintf("a higher token (%d) was already applied", st.highest)
			} else if o, found := st.find(in.JobIndex, in.Slot); found {
				why = fmt.Sprintf("its slot was already applied from %s run@%v", c.in.name(o.node), time.Duration(o.run))
			}
			v := Violation{Kind: CheckLinearizability, At: e.At, End: e.At, Nodes: []string{c.in.name(e.Node)}, NodeIDs: []sim.NodeID{e.Node}, Tokens: []int64{e.Token},
				Slot: c.slotName(e.JobIndex, e.Slot),
				Details: fmt.Sprintf("partition %s: porcupine linearized %d of %d writes; it cannot place %s → applied, because %s",
					partName(parts[u.partition][0]), u.prefix, u.size, writeDesc(in.LogEntry, c.in.name), why)}
			c.hintRestated(&v, in)
			if c.wants(&ch) {
				// Tell the applied writes of the partition's conflicting runs.
				var idx []int
				for _, op := range parts[u.partition] {
					w := op.Input.(*writeInput)
					if op.Output.(bool) && (w.Slot == in.Slot || w.Token > in.Token) {
						idx = append(idx, w.idx)
					}
				}
				if len(idx) > 8 {
					idx = idx[len(idx)-8:]
				}
				v.Explanation = c.story(c.writeStory(idx, -1, 0), "not linearizable as a fenced store")
			}
			c.add(&ch, v)
		}
		if len(bad) == 0 {
			c.add(&ch, Violation{Details: "porcupine found no linearization of the resource history"})
		}
	}
	return ch, lin
}
