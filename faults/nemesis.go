package faults

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/electsim/electsim/sim"
)

// The nemesis kinds besides KindPartition, KindPause, KindCrash, KindRestart,
// KindClock, KindLink and KindDisk.
const (
	// KindStoreUnavailable makes the lease store unavailable for For.
	KindStoreUnavailable = "store_unavailable"
	// KindStoreFailover is an instantaneous lossy store failover.
	KindStoreFailover = "store_failover"
)

var nemesisKinds = []string{KindPartition, KindPause, KindCrash, KindRestart, KindClock, KindLink, KindDisk,
	KindStoreUnavailable, KindStoreFailover}

// Nemesis is a random fault generator: from Start on, every Every it draws a
// kind from Kinds (by Weights), a target from Targets and the kind's
// parameters, and injects that fault for For — until Until or Settle. Faults
// may overlap. Each nemesis draws only from its own stream ("nemesis/<i>"),
// so its schedule is the same whatever the cluster does and whatever other
// faults the scenario has.
type Nemesis struct {
	// Kinds are the kinds it draws from (see the Kind constants and
	// KindStoreUnavailable, KindStoreFailover). Restart and store_failover
	// are instantaneous.
	Kinds []string
	// Weights are the kinds' relative rates, one per kind (each >= 1).
	// Default: all equal. Not with Swarm.
	Weights []int
	// Swarm draws, per seed, a random non-empty subset of Kinds and a weight
	// of 1 to 4 for each (swarm testing: Groce et al., ISSTA 2012).
	Swarm bool
	// Start is when the nemesis begins; its first fault comes Every later.
	// Default 0.
	Start DurRange
	// Until, if positive, is when it stops drawing. Default: at Settle.
	Until DurRange
	// Every is the time between two injections (Min > 0).
	Every DurRange
	// For is how long each fault lasts.
	For DurRange
	// Targets are drawn from uniformly for each fault. Default leader and
	// random (half the faults hit the leader).
	Targets []Target
	// Shapes are the partition shapes drawn from (not groups). Default
	// isolate, majority_minority, bridge, one_way.
	Shapes []PartitionShape
	// ClockRate is the rate factor of a clock fault (both clocks). Default 0.5..2.
	ClockRate *FloatRange
	// ClockOffset is the wall-clock offset of a clock fault. Default -5s..5s.
	ClockOffset *DurRange
	// LinkLatency is the constant latency of a link fault (the target's
	// links, both ways). Default 50ms..500ms.
	LinkLatency *DurRange
	// LinkDrop is the loss probability of a link fault. Default 0.1..0.9.
	LinkDrop *FloatRange
	// FsyncLatency is the constant fsync latency of a disk fault. Default
	// 50ms..2s.
	FsyncLatency *DurRange
	// LoseLastWrites is how many writes a store failover loses. Default 1..3.
	LoseLastWrites *IntRange
}

// The nemesis parameter defaults.
var (
	DefaultNemesisShapes = []PartitionShape{ShapeIsolate, ShapeMajorityMinority, ShapeBridge, ShapeOneWay}
	DefaultClockRate     = FloatRange{Min: 0.5, Max: 2}
	DefaultClockOffset   = DurRange{Min: -5 * time.Second, Max: 5 * time.Second}
	DefaultLinkLatency   = DurRange{Min: 50 * time.Millisecond, Max: 500 * time.Millisecond}
	DefaultLinkDrop      = FloatRange{Min: 0.1, Max: 0.9}
	DefaultFsyncLatency  = DurRange{Min: 50 * time.Millisecond, Max: 2 * time.Second}
	DefaultLoseLast      = IntRange{Min: 1, Max: 3}
)

// Validate checks the nemesis on its own.
func (n *Nemesis) Validate() error {
	if len(n.Kinds) == 0 {
		return fmt.Errorf("kinds: empty (some of %v)", nemesisKinds)
	}
	for i, k := range n.Kinds {
		if !contains(nemesisKinds, k) {
			return fmt.Errorf("kinds[%d]: unknown %q (one of %v)", i, k, nemesisKinds)
		}
		if contains(n.Kinds[:i], k) {
			return fmt.Errorf("kinds[%d]: %q listed twice", i, k)
		}
	}
	if len(n.Weights) > 0 {
		if n.Swarm {
			return errors.New("weights: not with swarm (swarm draws them)")
		}
		if len(n.Weights) != len(n.Kinds) {
			return fmt.Errorf("weights: %d for %d kinds", len(n.Weights), len(n.Kinds))
		}
		for i, w := range n.Weights {
			if w < 1 {
				return fmt.Errorf("weights[%d]: %d < 1", i, w)
			}
		}
	}
	for _, d := range []struct {
		name string
		r    DurRange
	}{{"start", n.Start}, {"until", n.Until}, {"every", n.Every}, {"for", n.For}} {
		if err := d.r.validateNonNeg(d.name); err != nil {
			return err
		}
	}
	if n.Every.Min <= 0 {
		return fmt.Errorf("every: must be positive, got %v", n.Every)
	}
	for i, t := range n.Targets {
		if t.Kind == TargetEventNode {
			return fmt.Errorf("targets[%d]: kind %q needs a trigger", i, string(t.Kind))
		}
		if err := t.Validate(); err != nil {
			return fmt.Errorf("targets[%d].%w", i, err)
		}
	}
	for i, s := range n.Shapes {
		if s == ShapeGroups || !contains(shapes, s) {
			return fmt.Errorf("shapes[%d]: %q is not one of %v", i, string(s), DefaultNemesisShapes)
		}
	}
	if n.ClockRate != nil {
		if err := n.ClockRate.validateIn("clock_rate", 0, 1000, true); err != nil {
			return err
		}
	}
	if n.ClockOffset != nil {
		if err := n.ClockOffset.Validate(); err != nil {
			return prefix("clock_offset: ", err)
		}
	}
	if n.LinkLatency != nil {
		if err := n.LinkLatency.validateNonNeg("link_latency"); err != nil {
			return err
		}
	}
	if n.LinkDrop != nil {
		if err := n.LinkDrop.validateIn("link_drop", 0, 1, false); err != nil {
			return err
		}
	}
	if n.FsyncLatency != nil {
		if err := n.FsyncLatency.validateNonNeg("fsync_latency"); err != nil {
			return err
		}
	}
	if n.LoseLastWrites != nil {
		if err := n.LoseLastWrites.Validate(); err != nil {
			return prefix("lose_last_writes: ", err)
		}
		if n.LoseLastWrites.Min < 0 {
			return fmt.Errorf("lose_last_writes: negative %d", n.LoseLastWrites.Min)
		}
	}
	return nil
}

// nemesisRun is a nemesis in a run.
type nemesisRun struct {
	cfg     Nemesis
	src     string
	rng     *sim.Rand
	kinds   []string
	weights []int
	total   int
	until   sim.Time
	count   int
}

// checkNemesis validates a nemesis against the cluster.
func (in *Injector) checkNemesis(n *Nemesis) error {
	if err := n.Validate(); err != nil {
		return err
	}
	for _, k := range n.Kinds {
		if (k == KindStoreUnavailable || k == KindStoreFailover) && in.env.StoreNode == nil {
			return fmt.Errorf("kinds: %q but no lease store in this scenario", k)
		}
	}
	return in.checkTargets(n.Targets)
}

// startNemesis draws nemesis i's swarm choice and first injection time.
func (in *Injector) startNemesis(i int, cfg Nemesis) {
	nr := &nemesisRun{cfg: cfg, src: fmt.Sprintf("nemesis[%d]", i), rng: in.s.Stream(fmt.Sprintf("nemesis/%d", i))}
	if len(nr.cfg.Targets) == 0 {
		nr.cfg.Targets = []Target{Leader(), Random()}
	}
	if len(nr.cfg.Shapes) == 0 {
		nr.cfg.Shapes = DefaultNemesisShapes
	}
	if cfg.Swarm {
		// Every kind draws its coin and its weight, so the draws do not
		// depend on which kinds came up.
		for _, k := range cfg.Kinds {
			take := nr.rng.Uint64()&1 == 1
			w := 1 + nr.rng.Intn(4)
			if take {
				nr.kinds, nr.weights = append(nr.kinds, k), append(nr.weights, w)
			}
		}
		if len(nr.kinds) == 0 {
			k := nr.rng.Intn(len(cfg.Kinds))
			nr.kinds, nr.weights = []string{cfg.Kinds[k]}, []int{1 + nr.rng.Intn(4)}
		}
	} else {
		nr.kinds = cfg.Kinds
		nr.weights = cfg.Weights
		if len(nr.weights) == 0 {
			nr.weights = make([]int, len(nr.kinds))
			for j := range nr.weights {
				nr.weights[j] = 1
			}
		}
	}
	for _, w := range nr.weights {
		nr.total += w
	}
	if cfg.Swarm {
		parts := make([]string, len(nr.kinds))
		for j, k := range nr.kinds {
			parts[j] = fmt.Sprintf("%s×%d", k, nr.weights[j])
		}
		in.s.Note(NoteSwarm, nr.src+": swarm kinds "+strings.Join(parts, " "), sim.None)
	}
	in.nemeses = append(in.nemeses, nr)
	start := nr.cfg.Start.Draw(nr.rng)
	nr.until = sim.Never
	if cfg.Until.Max > 0 {
		nr.until = sim.Time(cfg.Until.Draw(nr.rng))
	}
	first := sim.Time(start + nr.cfg.Every.Draw(nr.rng))
	in.s.AtLate(first, func() { in.tick(nr) })
}

// Swarm returns the kinds and weights nemesis i draws from (after a swarm
// choice).
func (in *Injector) Swarm(i int) (kinds []string, weights []int) {
	nr := in.nemeses[i]
	return append([]string(nil), nr.kinds...), append([]int(nil), nr.weights...)
}

// tick injects one nemesis fault and schedules the next.
func (in *Injector) tick(nr *nemesisRun) {
	if in.settled || in.s.Now() > nr.until {
		return
	}
	f := in.draw(nr)
	nr.count++
	c := &ctx{src: nr.src, event: sim.None}
	in.fire(&f, c, nr.rng)
	next := in.s.Now().Add(nr.cfg.Every.Draw(nr.rng))
	in.s.AtLate(next, func() { in.tick(nr) })
}

// draw builds the nemesis's next fault: its kind, target and parameters, all
// drawn from the nemesis's stream (constants draw nothing).
func (in *Injector) draw(nr *nemesisRun) Fault {
	cfg := &nr.cfg
	kind := nr.kinds[0]
	if len(nr.kinds) > 1 {
		x := nr.rng.Intn(nr.total)
		for j, w := range nr.weights {
			if x < w {
				kind = nr.kinds[j]
				break
			}
			x -= w
		}
	}
	t := cfg.Targets[0]
	if len(cfg.Targets) > 1 {
		t = cfg.Targets[nr.rng.Intn(len(cfg.Targets))]
	}
	forD := cfg.For
	f := Fault{For: &forD}
	switch kind {
	case KindPartition:
		shape := cfg.Shapes[0]
		if len(cfg.Shapes) > 1 {
			shape = cfg.Shapes[nr.rng.Intn(len(cfg.Shapes))]
		}
		tt := t
		f.Partition = &Partition{Shape: shape, Target: &tt}
	case KindPause:
		f.Pause = &Pause{Target: t}
	case KindCrash:
		f.Crash = &Crash{Target: t}
	case KindRestart:
		f.For = nil
		f.Restart = &Restart{Target: t}
	case KindClock:
		rate := Float(orFloat(cfg.ClockRate, DefaultClockRate).Draw(nr.rng))
		off := Dur(orDur(cfg.ClockOffset, DefaultClockOffset).Draw(nr.rng))
		f.Clock = &Clock{Target: t, Offset: &off, Rate: &rate}
	case KindLink:
		lat := sim.Constant(orDur(cfg.LinkLatency, DefaultLinkLatency).Draw(nr.rng))
		drop := Float(orFloat(cfg.LinkDrop, DefaultLinkDrop).Draw(nr.rng))
		tt := t
		f.Link = &Link{From: &tt, BothWays: true, Latency: &lat, Drop: &drop}
	case KindDisk:
		f.Disk = &Disk{Target: t, Fsync: sim.Constant(orDur(cfg.FsyncLatency, DefaultFsyncLatency).Draw(nr.rng))}
	case KindStoreUnavailable:
		f.Store = &Store{Unavailable: true}
	case KindStoreFailover:
		f.For = nil
		lose := cfg.LoseLastWrites
		if lose == nil {
			lose = &DefaultLoseLast
		}
		v := Int(lose.Draw(nr.rng))
		f.Store = &Store{LoseLastWrites: &v}
	}
	return f
}

func orFloat(p *FloatRange, def FloatRange) FloatRange {
	if p != nil {
		return *p
	}
	return def
}

func orDur(p *DurRange, def DurRange) DurRange {
	if p != nil {
		return *p
	}
	return def
}
