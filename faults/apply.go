package faults

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/electsim/electsim/sim"
)

// outcome is what applying a fault did.
type outcome struct {
	concrete Fault         // the kind field with concrete targets and values
	nodes    []sim.NodeID  // the nodes it acted on
	body     string        // "pause n3 (leader, epoch 4)"
	undo     func() string // reverts it (nil: instantaneous)
	skip     string        // why it did not fire
}

// concretize returns a copy of f whose numeric ranges are drawn from r, in
// field order. Targets are left to apply.
func concretize(f *Fault, r *sim.Rand) Fault {
	c := Fault{Name: f.Name, At: f.At, For: f.For}
	drawDur := func(d *DurRange) *DurRange {
		if d == nil {
			return nil
		}
		v := Dur(d.Draw(r))
		return &v
	}
	drawFloat := func(x *FloatRange) *FloatRange {
		if x == nil {
			return nil
		}
		v := Float(x.Draw(r))
		return &v
	}
	switch {
	case f.Partition != nil:
		p := *f.Partition
		c.Partition = &p
	case f.Heal != nil:
		c.Heal = &Heal{}
	case f.Pause != nil:
		p := *f.Pause
		c.Pause = &p
	case f.Crash != nil:
		x := *f.Crash
		c.Crash = &x
	case f.Resign != nil:
		x := *f.Resign
		g := Dur(DefaultResignGrace)
		if x.Grace != nil {
			g = Dur(x.Grace.Draw(r))
		}
		x.Grace = &g
		c.Resign = &x
	case f.Restart != nil:
		x := *f.Restart
		c.Restart = &x
	case f.Clock != nil:
		x := *f.Clock
		x.Offset, x.Step = drawDur(x.Offset), drawDur(x.Step)
		x.Rate, x.MonoRate, x.WallRate = drawFloat(x.Rate), drawFloat(x.MonoRate), drawFloat(x.WallRate)
		c.Clock = &x
	case f.Link != nil:
		x := *f.Link
		x.Drop, x.Duplicate = drawFloat(x.Drop), drawFloat(x.Duplicate)
		c.Link = &x
	case f.Disk != nil:
		x := *f.Disk
		c.Disk = &x
	case f.Store != nil:
		x := *f.Store
		if x.LoseLastWrites != nil {
			v := Int(x.LoseLastWrites.Draw(r))
			x.LoseLastWrites = &v
		}
		c.Store = &x
	}
	return c
}

// apply resolves f's targets and applies it now. f's ranges are constants.
func (in *Injector) apply(f *Fault, c *ctx) outcome {
	switch {
	case f.Partition != nil:
		return in.applyPartition(f.Partition, c)
	case f.Heal != nil:
		return in.applyHeal()
	case f.Pause != nil:
		return in.applyPause(f.Pause, c)
	case f.Crash != nil:
		return in.applyCrash(f.Crash, c)
	case f.Resign != nil:
		return in.applyResign(f.Resign, c)
	case f.Restart != nil:
		return in.applyRestart(f.Restart, c)
	case f.Clock != nil:
		return in.applyClockFault(f.Clock, c)
	case f.Link != nil:
		return in.applyLinkFault(f.Link, c)
	case f.Disk != nil:
		return in.applyDiskFault(f.Disk, c)
	case f.Store != nil:
		return in.applyStore(f.Store)
	}
	return outcome{skip: "no kind"}
}

func (in *Injector) applyPartition(p *Partition, c *ctx) outcome {
	pl, skip := in.planPartition(p, c)
	if skip != "" {
		return outcome{skip: skip}
	}
	held := in.cutLinks(pl)
	// A copy: &pl.concrete would keep the whole plan, its link list
	// included (16 KB for 64 nodes), alive in the fault history.
	concrete := pl.concrete
	return outcome{concrete: Fault{Partition: &concrete}, nodes: pl.nodes, body: pl.body,
		undo: func() string { return "heal partition: " + in.releaseLinks(held) }}
}

func (in *Injector) applyHeal() outcome {
	for i := range in.holds {
		in.holds[i] = 0
	}
	in.s.Heal()
	for _, a := range in.active {
		if a.kind == KindPartition {
			in.revert(a, RevertedByHeal)
		}
	}
	return outcome{concrete: Fault{Heal: &Heal{}}, body: "heal all links"}
}

// live resolves t to the nodes that are up.
func (in *Injector) live(t Target, c *ctx) (nodes []sim.NodeID, why, skip string) {
	all, why, skip := in.resolve(t, c)
	if skip != "" {
		return nil, "", skip
	}
	for _, id := range all {
		if in.s.IsUp(id) {
			nodes = append(nodes, id)
		}
	}
	if len(nodes) == 0 {
		return nil, "", in.describe(all, why) + " down"
	}
	return nodes, why, ""
}

func (in *Injector) applyPause(p *Pause, c *ctx) outcome {
	nodes, why, skip := in.live(p.Target, c)
	if skip != "" {
		return outcome{skip: skip}
	}
	for _, id := range nodes {
		in.pauseHolds[id]++
		in.s.Pause(id)
	}
	return outcome{concrete: Fault{Pause: &Pause{Target: Nodes(nodes...)}}, nodes: nodes,
		body: "pause " + in.describe(nodes, why),
		undo: func() string {
			for _, id := range nodes {
				if in.pauseHolds[id] > 0 {
					in.pauseHolds[id]--
				}
				if in.pauseHolds[id] == 0 {
					in.s.Resume(id)
				}
			}
			return "resume " + in.names(nodes)
		}}
}

func diskText(wipe bool) string {
	if wipe {
		return "disk wiped"
	}
	return "disk kept"
}

func (in *Injector) applyCrash(x *Crash, c *ctx) outcome {
	nodes, why, skip := in.live(x.Target, c)
	if skip != "" {
		return outcome{skip: skip}
	}
	for _, id := range nodes {
		in.crashHolds[id]++
		in.downByFault[id] = true
		in.s.Crash(id)
	}
	wipe := x.WipeDisk
	return outcome{concrete: Fault{Crash: &Crash{Target: Nodes(nodes...), WipeDisk: wipe}}, nodes: nodes,
		body: "crash " + in.describe(nodes, why),
		undo: func() string {
			for _, id := range nodes {
				if in.crashHolds[id] > 0 {
					in.crashHolds[id]--
				}
				if in.crashHolds[id] == 0 && !in.s.IsUp(id) {
					in.s.Restart(id, !wipe)
					in.downByFault[id] = false
				}
			}
			return "restart " + in.names(nodes) + ", " + diskText(wipe)
		}}
}

// applyResign runs each target's Resign hook now and crashes it after the
// grace period; the revert restarts it with its disk (or, if it comes before
// the grace period ends, cancels the exit).
func (in *Injector) applyResign(x *Resign, c *ctx) outcome {
	nodes, why, skip := in.live(x.Target, c)
	if skip != "" {
		return outcome{skip: skip}
	}
	body := "resign " + in.describe(nodes, why)
	for _, id := range nodes {
		// Recorded before the hook runs, so a checker reading the trace sees
		// the shutdown (sim.FactResigning) before the step-down it causes.
		in.s.Resigning(id, in.s.NodeName(id)+" shuts down gracefully (SIGTERM)")
		if r, ok := in.s.Node(id).(Resigner); ok {
			r.Resign()
		} else {
			body += " (" + in.s.NodeName(id) + " has no resign hook: it just stops)"
		}
	}
	grace := DefaultResignGrace
	if x.Grace != nil {
		grace = x.Grace.Min
	}
	body += ", exits after " + grace.String()
	exited, cancelled := false, false
	var crash outcome
	in.s.AtLate(in.s.Now().Add(grace), func() {
		if cancelled {
			return
		}
		exited = true
		crash = in.applyCrash(&Crash{Target: Nodes(nodes...)}, c)
	})
	g := Dur(grace)
	return outcome{concrete: Fault{Resign: &Resign{Target: Nodes(nodes...), Grace: &g}}, nodes: nodes, body: body,
		undo: func() string {
			if !exited {
				cancelled = true
				return "resign of " + in.names(nodes) + " ended before the process exited"
			}
			return crash.undo()
		}}
}

func (in *Injector) applyRestart(x *Restart, c *ctx) outcome {
	nodes, why, skip := in.resolve(x.Target, c)
	if skip != "" {
		return outcome{skip: skip}
	}
	for _, id := range nodes {
		if in.s.IsUp(id) {
			in.s.Crash(id)
		}
		in.s.Restart(id, !x.WipeDisk)
		in.downByFault[id] = false
	}
	return outcome{concrete: Fault{Restart: &Restart{Target: Nodes(nodes...), WipeDisk: x.WipeDisk}}, nodes: nodes,
		body: "restart " + in.describe(nodes, why) + ", " + diskText(x.WipeDisk)}
}

// signed formats a duration as "+2.000s" / "-0.500s".
func signed(d time.Duration) string {
	if d >= 0 {
		return "+" + sim.Time(d).String()
	}
	return sim.Time(d).String()
}

func (in *Injector) applyClockFault(x *Clock, c *ctx) outcome {
	nodes, why, skip := in.resolve(x.Target, c)
	if skip != "" {
		return outcome{skip: skip}
	}
	seq := in.nApplied
	var parts []string
	var offset time.Duration
	if x.Offset != nil {
		offset = x.Offset.Min
		parts = append(parts, "offset "+signed(offset))
	}
	if x.Step != nil {
		parts = append(parts, "step "+signed(x.Step.Min))
	}
	var mono, wall int64
	for _, r := range []struct {
		name string
		v    *FloatRange
		mono bool
		wall bool
	}{{"rate", x.Rate, true, true}, {"mono_rate", x.MonoRate, true, false}, {"wall_rate", x.WallRate, false, true}} {
		if r.v == nil {
			continue
		}
		ppb := sim.Rate(r.v.Min)
		if r.mono {
			mono = ppb
		}
		if r.wall {
			wall = ppb
		}
		parts = append(parts, fmt.Sprintf("%s %.6g", r.name, r.v.Min))
	}
	for _, id := range nodes {
		if offset != 0 {
			in.s.StepWall(id, offset)
		}
		if x.Step != nil {
			in.s.StepWall(id, x.Step.Min)
		}
		if mono != 0 || wall != 0 {
			in.clockLayers = append(in.clockLayers, clockLayer{seq: seq, node: id, mono: mono, wall: wall})
			in.applyClock(id)
		}
	}
	cx := *x
	cx.Target = Nodes(nodes...)
	o := outcome{concrete: Fault{Clock: &cx}, nodes: nodes,
		body: "clock " + in.describe(nodes, why) + ": " + strings.Join(parts, ", ")}
	if x.lasting() {
		o.undo = func() string {
			in.dropClockLayers(seq)
			var what []string
			for _, id := range nodes {
				if offset != 0 {
					in.s.StepWall(id, -offset)
				}
				in.applyClock(id)
			}
			if offset != 0 {
				what = append(what, "offset "+signed(-offset)+" back")
			}
			if mono != 0 || wall != 0 {
				what = append(what, "rates restored")
			}
			return "clock " + in.names(nodes) + ": " + strings.Join(what, ", ")
		}
	}
	return o
}

func (in *Injector) applyLinkFault(x *Link, c *ctx) outcome {
	n := in.s.NumNodes()
	everyone := func() []sim.NodeID {
		out := make([]sim.NodeID, n)
		for i := range out {
			out[i] = sim.NodeID(i)
		}
		return out
	}
	var from, to []sim.NodeID
	fromText, toText := "all", "all"
	var cx Link = *x
	if x.From != nil {
		nodes, why, skip := in.resolve(*x.From, c)
		if skip != "" {
			return outcome{skip: skip}
		}
		from, fromText = nodes, in.describe(nodes, why)
		t := Nodes(nodes...)
		cx.From = &t
	} else {
		from = everyone()
	}
	if x.To != nil {
		nodes, why, skip := in.resolve(*x.To, c)
		if skip != "" {
			return outcome{skip: skip}
		}
		to, toText = nodes, in.describe(nodes, why)
		t := Nodes(nodes...)
		cx.To = &t
	} else {
		to = everyone()
	}
	mask := make([]bool, n*n)
	var idx []int
	add := func(a, b sim.NodeID) {
		if a == b && (x.From != nil || x.To != nil) {
			return // self-links only when every link is meant
		}
		if i := int(a)*n + int(b); !mask[i] {
			mask[i] = true
			idx = append(idx, i)
		}
	}
	for _, a := range from {
		for _, b := range to {
			add(a, b)
			if x.BothWays {
				add(b, a)
			}
		}
	}
	if len(idx) == 0 {
		return outcome{skip: "no link between the targets"}
	}
	slices.Sort(idx)
	seq := in.nApplied
	l := linkLayer{seq: seq, mask: mask, latency: x.Latency}
	var parts []string
	if x.Latency != nil {
		parts = append(parts, "latency "+x.Latency.String())
	}
	if x.Drop != nil {
		v := x.Drop.Min
		l.drop = &v
		parts = append(parts, fmt.Sprintf("drop %.6g", v))
	}
	if x.Duplicate != nil {
		v := x.Duplicate.Min
		l.dup = &v
		parts = append(parts, fmt.Sprintf("duplicate %.6g", v))
	}
	in.linkLayers = append(in.linkLayers, l)
	in.applyLinks(idx)
	arrow := " -> "
	if x.BothWays {
		arrow = " <-> "
	}
	ends := fromText + arrow + toText
	var nodes []sim.NodeID
	if x.From != nil {
		nodes = from
	} else if x.To != nil {
		nodes = to
	}
	return outcome{concrete: Fault{Link: &cx}, nodes: nodes,
		body: "link " + ends + ": " + strings.Join(parts, ", "),
		undo: func() string {
			in.linkLayers = slices.DeleteFunc(in.linkLayers, func(l linkLayer) bool { return l.seq == seq })
			in.applyLinks(idx)
			return fmt.Sprintf("link %s restored (%d links)", ends, len(idx))
		}}
}

func (in *Injector) applyDiskFault(x *Disk, c *ctx) outcome {
	nodes, why, skip := in.resolve(x.Target, c)
	if skip != "" {
		return outcome{skip: skip}
	}
	seq := in.nApplied
	for _, id := range nodes {
		in.diskLayers = append(in.diskLayers, diskLayer{seq: seq, node: id, fsync: x.Fsync})
		in.applyDisk(id)
	}
	return outcome{concrete: Fault{Disk: &Disk{Target: Nodes(nodes...), Fsync: x.Fsync}}, nodes: nodes,
		body: "disk " + in.describe(nodes, why) + ": fsync " + x.Fsync.String(),
		undo: func() string {
			in.diskLayers = slices.DeleteFunc(in.diskLayers, func(l diskLayer) bool { return l.seq == seq })
			for _, id := range nodes {
				in.applyDisk(id)
			}
			return "disk " + in.names(nodes) + ": fsync restored"
		}}
}

func (in *Injector) applyStore(x *Store) outcome {
	st, id := in.env.StoreNode, in.env.Store
	nodes := []sim.NodeID{id}
	cx := *x
	lose := -1
	if x.LoseLastWrites != nil {
		lose = x.LoseLastWrites.Min
	}
	failover := func() string {
		if !in.s.IsUp(id) {
			return "failover skipped: store down"
		}
		return fmt.Sprintf("failover lost %d of the last %d writes", st.FailoverLoseLast(lose), lose)
	}
	if !x.Unavailable {
		if !in.s.IsUp(id) {
			return outcome{skip: "store down"}
		}
		return outcome{concrete: Fault{Store: &cx}, nodes: nodes, body: "store " + failover()}
	}
	in.storeHolds++
	st.SetUnavailable(true)
	body := "store unavailable"
	if lose >= 0 {
		body += fmt.Sprintf(", then failover losing the last %d writes", lose)
	}
	return outcome{concrete: Fault{Store: &cx}, nodes: nodes, body: body,
		undo: func() string {
			var what []string
			if lose >= 0 {
				what = append(what, failover())
			}
			if in.storeHolds > 0 {
				in.storeHolds--
			}
			if in.storeHolds == 0 {
				st.SetUnavailable(false)
				what = append(what, "available")
			} else {
				what = append(what, "still unavailable (another fault)")
			}
			return "store " + strings.Join(what, ", ")
		}}
}
