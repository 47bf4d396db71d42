package proptest

import (
	"cmp"
	"fmt"
	"math/bits"
	"slices"
	"strings"
	"time"

	"pgregory.net/rapid"

	"github.com/electsim/electsim/faults"
	"github.com/electsim/electsim/sim"
)

// Kind is what a fault Op does.
type Kind uint8

// The fault kinds a Schedule is drawn from. Each lasting kind is reverted
// after the op's For (or by the settle phase, whichever comes first).
const (
	// Pause pauses the node's process for For (a GC pause).
	Pause Kind = iota + 1
	// Crash crashes the node and restarts it after For (Wipe: with an empty
	// disk).
	Crash
	// Restart crashes the node and starts it again at once (Wipe: with an
	// empty disk).
	Restart
	// Isolate cuts every link to and from the node for For.
	Isolate
	// Split partitions the Side nodes from every other node for For.
	Split
	// Clock runs both of the node's clocks at Percent/100 of true speed for For.
	Clock
	// Offset steps the node's wall clock by Offset for For, then back.
	Offset
	// Loss drops Percent% of the messages on every link for For.
	Loss
)

var kindNames = [...]string{"", "pause", "crash", "restart", "isolate", "split", "clock", "offset", "loss"}

// String names the kind.
func (k Kind) String() string {
	if int(k) < len(kindNames) && k > 0 {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// AllKinds are every fault kind.
var AllKinds = []Kind{Pause, Crash, Restart, Isolate, Split, Clock, Offset, Loss}

// Leader is the Op.Node of a fault aimed at whichever candidate acts as
// leader when it fires (the highest epoch, see faults.TargetLeader); it is
// skipped if none does.
const Leader = -1

// All is the Op.Node of a fault aimed at every candidate at once (a
// whole-cluster restart after a power loss, say; see faults.TargetAll).
const All = -2

// Op is one fault of a Schedule.
type Op struct {
	// At is when the fault fires (true time since the run started).
	At time.Duration
	// For is how long a lasting fault lasts.
	For time.Duration
	// Kind is what the fault does.
	Kind Kind
	// Node is the target candidate's index, Leader or All.
	Node int
	// Side lists the node indexes cut off from the rest (Split).
	Side []int
	// Percent is the clock rate (Clock, 100 = exact) or the loss (Loss).
	Percent int
	// Offset is the wall-clock step (Offset).
	Offset time.Duration
	// Wipe restarts a Crash or Restart target with an empty disk.
	Wipe bool
}

// Schedule is a list of faults, sorted by At, that rapid draws and shrinks.
type Schedule struct {
	Ops []Op
	// Names are the nodes' display names by index (default "n<i>").
	Names []string
}

// Gen describes the schedules to draw.
type Gen struct {
	// Kinds are the kinds to draw from. Default AllKinds.
	Kinds []Kind
	// Candidates is the number of candidates: node faults target indexes
	// 0..Candidates-1 (or Leader, All).
	Candidates int
	// Nodes is the number of nodes a Split may cut (candidates first, then
	// services). Default Candidates.
	Nodes int
	// Horizon: faults fire in [0, Horizon).
	Horizon time.Duration
	// MinFor and MaxFor bound a lasting fault's For. Defaults 50ms and
	// Horizon/2.
	MinFor, MaxFor time.Duration
	// MaxOps bounds the number of faults. Default 8.
	MaxOps int
	// LeaderTargets lets node faults target Leader.
	LeaderTargets bool
	// AllTargets lets node faults target All.
	AllTargets bool
	// Wipe lets Crash and Restart wipe the disk.
	Wipe bool
	// MinPercent and MaxPercent bound a Clock rate in percent. Defaults 50
	// and 200.
	MinPercent, MaxPercent int
	// MaxLossPercent bounds Loss. Default 30.
	MaxLossPercent int
	// MaxOffset bounds an Offset step either way (it shrinks towards 0).
	// Default 10s.
	MaxOffset time.Duration
	// Names are the nodes' display names (default "n<i>").
	Names []string
}

func (g Gen) withDefaults() Gen {
	if len(g.Kinds) == 0 {
		g.Kinds = AllKinds
	}
	if g.Nodes < g.Candidates {
		g.Nodes = g.Candidates
	}
	if g.MinFor <= 0 {
		g.MinFor = 50 * time.Millisecond
	}
	if g.MaxFor <= 0 {
		g.MaxFor = g.Horizon / 2
	}
	if g.MaxFor < g.MinFor {
		g.MaxFor = g.MinFor
	}
	if g.MaxOps <= 0 {
		g.MaxOps = 8
	}
	if g.MinPercent <= 0 {
		g.MinPercent = 50
	}
	if g.MaxPercent <= 0 {
		g.MaxPercent = 200
	}
	if g.MaxLossPercent <= 0 {
		g.MaxLossPercent = 30
	}
	if g.MaxOffset <= 0 {
		g.MaxOffset = 10 * time.Second
	}
	return g
}

// Uniform returns a generator of integers spread evenly over [lo, hi].
// rapid's own integer generators favour values near the bottom of a range
// (most fault times would fall in the first half second of a ten-second
// run); this one draws the bits of a scaled index as fair coins, which rapid
// still shrinks towards lo.
func Uniform(lo, hi int64) *rapid.Generator[int64] {
	if hi < lo {
		panic(fmt.Sprintf("proptest: Uniform(%d, %d)", lo, hi))
	}
	if hi == lo {
		return rapid.Just(lo)
	}
	span := uint64(hi-lo) + 1
	k := bits.Len64(span - 1)
	return rapid.Custom(func(t *rapid.T) int64 {
		var v uint64
		for i := 0; i < k; i++ {
			v <<= 1
			if rapid.Bool().Draw(t, "bit") {
				v |= 1
			}
		}
		// v in [0, 2^k) scaled onto [0, span).
		scaled, _ := bits.Mul64(v<<(64-k), span)
		return lo + int64(scaled)
	})
}

// ms draws a duration in whole milliseconds, evenly from [lo, hi]; rapid
// shrinks it towards lo.
func ms(t *rapid.T, lo, hi time.Duration, label string) time.Duration {
	return time.Duration(Uniform(int64(lo/time.Millisecond), int64(hi/time.Millisecond)).Draw(t, label)) * time.Millisecond
}

// Op returns the generator of one fault.
func (g Gen) Op() *rapid.Generator[Op] {
	g = g.withDefaults()
	// Node targets in the order rapid shrinks them to: n0 first.
	var targets []int
	for i := 0; i < g.Candidates; i++ {
		targets = append(targets, i)
	}
	if g.LeaderTargets {
		targets = append(targets, Leader)
	}
	if g.AllTargets {
		targets = append(targets, All)
	}
	return rapid.Custom(func(t *rapid.T) Op {
		op := Op{Kind: rapid.SampledFrom(g.Kinds).Draw(t, "kind")}
		op.At = ms(t, 0, g.Horizon-time.Millisecond, "at")
		switch op.Kind {
		case Split:
			op.Side = rapid.SliceOfNDistinct(rapid.IntRange(0, g.Nodes-1), 1, g.Nodes-1, rapid.ID[int]).Draw(t, "side")
			slices.Sort(op.Side)
		case Loss:
		default:
			op.Node = targets[rapid.IntRange(0, len(targets)-1).Draw(t, "node")]
		}
		switch op.Kind {
		case Clock:
			op.Percent = rapid.IntRange(g.MinPercent, g.MaxPercent).Draw(t, "percent")
		case Loss:
			op.Percent = rapid.IntRange(1, g.MaxLossPercent).Draw(t, "percent")
		case Offset:
			op.Offset = ms(t, 0, g.MaxOffset, "offset")
			if rapid.Bool().Draw(t, "backwards") {
				op.Offset = -op.Offset
			}
		case Crash, Restart:
			if g.Wipe {
				op.Wipe = rapid.Bool().Draw(t, "wipe")
			}
		}
		if op.Kind != Restart {
			op.For = ms(t, g.MinFor, g.MaxFor, "for")
		}
		return op
	})
}

// Schedule returns the generator of a schedule: up to MaxOps faults, sorted
// by time.
func (g Gen) Schedule() *rapid.Generator[Schedule] {
	g = g.withDefaults()
	ops := rapid.SliceOfN(g.Op(), 0, g.MaxOps)
	return rapid.Custom(func(t *rapid.T) Schedule {
		s := Schedule{Ops: ops.Draw(t, "ops"), Names: g.Names}
		slices.SortStableFunc(s.Ops, func(a, b Op) int { return cmp.Compare(a.At, b.At) })
		return s
	})
}

func (s Schedule) name(i int) string {
	switch i {
	case Leader:
		return "leader"
	case All:
		return "all"
	}
	if i >= 0 && i < len(s.Names) {
		return s.Names[i]
	}
	return fmt.Sprintf("n%d", i)
}

// String renders one op, e.g. "at 1.200s for 3.000s: pause leader".
func (s Schedule) opString(op Op) string {
	var b strings.Builder
	fmt.Fprintf(&b, "at %v", sim.Time(op.At))
	if op.Kind != Restart {
		fmt.Fprintf(&b, " for %v", sim.Time(op.For))
	}
	fmt.Fprintf(&b, ": %v", op.Kind)
	switch op.Kind {
	case Split:
		names := make([]string, len(op.Side))
		for i, x := range op.Side {
			names[i] = s.name(x)
		}
		fmt.Fprintf(&b, " {%s} from the rest", strings.Join(names, ","))
	case Loss:
		fmt.Fprintf(&b, " %d%% on every link", op.Percent)
	default:
		fmt.Fprintf(&b, " %s", s.name(op.Node))
	}
	switch op.Kind {
	case Clock:
		fmt.Fprintf(&b, " rate %.2f", float64(op.Percent)/100)
	case Offset:
		fmt.Fprintf(&b, " by %+v", op.Offset)
	case Crash, Restart:
		if op.Wipe {
			b.WriteString(" (disk wiped)")
		}
	}
	return b.String()
}

// String renders the schedule one fault per line.
func (s Schedule) String() string {
	if len(s.Ops) == 0 {
		return "no faults"
	}
	lines := make([]string, len(s.Ops))
	for i, op := range s.Ops {
		lines[i] = s.opString(op)
	}
	return strings.Join(lines, "\n")
}

// GoString is how rapid prints a drawn schedule.
func (s Schedule) GoString() string {
	return "schedule:\n    " + strings.ReplaceAll(s.String(), "\n", "\n    ")
}

// Faults converts the schedule into explicit faults for faults.New; ids maps
// node indexes to NodeIDs (candidates first, then services).
func (s Schedule) Faults(ids []sim.NodeID) []faults.Fault {
	out := make([]faults.Fault, 0, len(s.Ops))
	for i, op := range s.Ops {
		f := faults.Fault{Name: fmt.Sprintf("schedule[%d]", i), At: faults.Dur(op.At)}
		if op.Kind != Restart {
			d := faults.Dur(op.For)
			f.For = &d
		}
		var target faults.Target
		switch op.Node {
		case Leader:
			target = faults.Leader()
		case All:
			target = faults.Of(faults.TargetAll)
		default:
			target = faults.Nodes(ids[op.Node])
		}
		switch op.Kind {
		case Pause:
			f.Pause = &faults.Pause{Target: target}
		case Crash:
			f.Crash = &faults.Crash{Target: target, WipeDisk: op.Wipe}
		case Restart:
			f.Restart = &faults.Restart{Target: target, WipeDisk: op.Wipe}
		case Isolate:
			f.Partition = &faults.Partition{Shape: faults.ShapeIsolate, Target: &target}
		case Split:
			var side, rest []sim.NodeID
			for x, id := range ids {
				if slices.Contains(op.Side, x) {
					side = append(side, id)
				} else {
					rest = append(rest, id)
				}
			}
			f.Partition = &faults.Partition{Shape: faults.ShapeGroups,
				Groups: [][]faults.Target{{faults.Nodes(side...)}, {faults.Nodes(rest...)}}}
		case Clock:
			r := faults.Float(float64(op.Percent) / 100)
			f.Clock = &faults.Clock{Target: target, Rate: &r}
		case Offset:
			d := faults.Dur(op.Offset)
			f.Clock = &faults.Clock{Target: target, Offset: &d}
		case Loss:
			p := faults.Float(float64(op.Percent) / 100)
			f.Link = &faults.Link{Drop: &p}
		}
		out = append(out, f)
	}
	return out
}

// Inject schedules the faults on s through a faults.Injector and starts the
// settle phase at settle: every fault still active is reverted, crashed
// nodes restart with their disks, links, clock rates and the store are
// restored (faults.Injector.Settle). ids maps node indexes to NodeIDs.
// Inject panics on an invalid schedule (a bug in the generator, not a
// property violation).
func (s Schedule) Inject(sm *sim.Sim, env faults.Environment, ids []sim.NodeID, settle sim.Time) *faults.Injector {
	in, err := faults.New(sm, env, s.Faults(ids), nil)
	if err != nil {
		panic(fmt.Sprintf("proptest: schedule rejected: %v\n%v", err, s))
	}
	in.Settle(settle)
	return in
}

// IDs returns the NodeIDs 0..n-1.
func IDs(n int) []sim.NodeID {
	out := make([]sim.NodeID, n)
	for i := range out {
		out[i] = sim.NodeID(i)
	}
	return out
}

// Names returns "n0".."n<k-1>" followed by extra.
func Names(k int, extra ...string) []string {
	out := make([]string, 0, k+len(extra))
	for i := 0; i < k; i++ {
		out = append(out, fmt.Sprintf("n%d", i))
	}
	return append(out, extra...)
}
