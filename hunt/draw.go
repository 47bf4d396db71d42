package hunt

import (
	"math"
	"strconv"
	"time"

	"github.com/electsim/electsim/faults"
	"github.com/electsim/electsim/registry"
	"github.com/electsim/electsim/sim"
)

// The draws' ranges.
const (
	maxSwarmFaults = 10                     // faults in a swarm schedule: 1..this
	maxStateFaults = 3                      // state-triggered faults: 1..this
	minFor         = 5 * time.Millisecond   // a lasting fault's shortest
	maxFor         = 5 * time.Second        // and longest
	minRestart     = time.Millisecond       // a state crash's shortest downtime
	maxRestart     = time.Second            // and longest
	maxStateDelay  = 20 * time.Millisecond  // "right after": the trigger's delay
	maxClockStep   = 5 * time.Second        // a clock step or offset, either way
	minLatency     = 50 * time.Millisecond  // a link fault's latency
	maxLatency     = 500 * time.Millisecond //
	minDuplicate   = 0.1                    // a link fault's duplication rate
	maxDuplicate   = 0.5                    //
	minFsync       = 50 * time.Millisecond  // a disk fault's fsync latency
	maxFsync       = 2 * time.Second        //
	maxTimescale   = 2 * time.Minute        // the longest algorithm timescale hunt sizes faults to
	longPct        = 25                     // lasting faults drawn as long as the algorithm's timeouts (when beyond maxFor)
)

// long draws, when the cluster's algorithm declares a timescale beyond
// maxFor (registry.Algorithm.Timescale: a lease's duration, a session's
// timeout), whether a lasting fault is a long one, and if so its length:
// half to one and a half times the timescale. A fault shorter than the
// algorithm's timeouts cannot make a holder lose its lease while it still
// acts on it; one of every four lasting faults is long enough to. Nothing
// is drawn for algorithms without one, so their schedules are unchanged.
func (d *drawer) long(c *cluster) (time.Duration, bool) {
	ts := min(c.timescale, maxTimescale)
	if ts <= maxFor || d.rng.Intn(100) >= longPct {
		return 0, false
	}
	return d.rng.DurationRange(ts/2, ts*3/2).Round(time.Millisecond), true
}

// drawer draws schedules for one base.
type drawer struct {
	o    *Options
	b    *base
	rng  *sim.Rand
	dur  time.Duration // the fault phase
	nmin int           // cluster sizes drawn (0, 0: the base's)
	nmax int
}

// logDur draws a duration between lo and hi, uniform in its logarithm (as
// many short faults as long ones).
func (d *drawer) logDur(lo, hi time.Duration) time.Duration {
	l, h := math.Log(float64(lo)), math.Log(float64(hi))
	v := time.Duration(math.Exp(l + (h-l)*d.rng.Float64()))
	return min(max(v, lo), hi).Round(time.Microsecond)
}

// at draws a firing time in the fault phase.
func (d *drawer) at() faults.DurRange {
	return d.inPhase(d.rng.DurationRange(0, d.dur))
}

// inPhase is at rounded to the millisecond and moved into the fault
// phase, [0, dur): a fault at the phase's end or later would never fire,
// and the scenario loader refuses it ("not before the fault phase ends"),
// so a run whose scenario crosses to a worker process as YAML
// (Runner) would not load.
func (d *drawer) inPhase(at time.Duration) faults.DurRange {
	at = max(at.Round(time.Millisecond), 0)
	if last := (d.dur - 1).Truncate(time.Millisecond); at > last {
		at = max(last, 0)
	}
	return faults.Dur(at)
}

// nodes draws a cluster size (0: the base's).
func (d *drawer) nodes() int {
	if d.nmax == 0 {
		return 0
	}
	return d.nmin + d.rng.Intn(d.nmax-d.nmin+1)
}

// target draws what a fault hits: any node of the cluster (candidates,
// lease stores, the fenced resource) or a role (leader, lease holder).
func (d *drawer) target(c *cluster) faults.Target {
	switch x := d.rng.Intn(10); {
	case x < 2:
		return faults.Leader()
	case x < 3 && len(c.stores) > 0:
		return faults.LeaseHolder()
	}
	all := c.nodeIDs()
	return faults.Nodes(all[d.rng.Intn(len(all))])
}

// fault draws one fault of kind k at time at aimed at t.
func (d *drawer) fault(c *cluster, k string, at faults.DurRange, t faults.Target) faults.Fault {
	forD := faults.Dur(d.logDur(minFor, maxFor))
	if l, ok := d.long(c); ok {
		forD = faults.Dur(l)
	}
	f := faults.Fault{At: at, For: &forD}
	switch k {
	case KindCrash:
		f.Crash = &faults.Crash{Target: t}
	case KindWipeDisk:
		f.Crash = &faults.Crash{Target: t, WipeDisk: true}
	case KindRestart:
		f.For = nil
		f.Restart = &faults.Restart{Target: t}
	case KindPause:
		f.Pause = &faults.Pause{Target: t}
	case KindPartition:
		f.Partition = &faults.Partition{Shape: faults.ShapeIsolate, Target: &t}
	case KindOneWay:
		f.Partition = &faults.Partition{Shape: faults.ShapeOneWay, Target: &t}
	case KindClockRate:
		r := 0.5 + 1.5*d.rng.Float64()
		if d.rng.Intn(2) == 0 { // the edges too: a clock at half or twice speed
			r = []float64{0.5, 2}[d.rng.Intn(2)]
		}
		rate := faults.Float(math.Round(r*1000) / 1000)
		f.Clock = &faults.Clock{Target: t, Rate: &rate}
	case KindClockStep:
		f.For = nil
		step := faults.Dur(d.rng.DurationRange(-maxClockStep, maxClockStep).Round(time.Millisecond))
		f.Clock = &faults.Clock{Target: t, Step: &step}
	case KindLink:
		f.Link = d.link(c, t)
	case KindDisk:
		f.Disk = &faults.Disk{Target: t, Fsync: sim.Constant(d.rng.DurationRange(minFsync, maxFsync).Round(time.Millisecond))}
	case KindStoreUnavailable:
		f.Store = &faults.Store{Unavailable: true}
	case KindStoreFailover:
		f.For = nil
		lose := faults.Int(1 + d.rng.Intn(3))
		f.Store = &faults.Store{LoseLastWrites: &lose}
	}
	return f
}

// link draws a link fault on t's links, both ways: any non-empty mix of a
// latency (no longer than the contract assumes, see assumedLatency), a
// loss rate and a duplication rate (a network that delivers a message
// twice, as UDP and retrying RPC layers do; a protocol counting messages
// rather than senders breaks only under it).
func (d *drawer) link(c *cluster, t faults.Target) *faults.Link {
	l := &faults.Link{From: &t, BothWays: true}
	mix := 1 + d.rng.Intn(7) // bits: latency, loss, duplication
	if mix&1 != 0 {
		lo, hi := minLatency, maxLatency
		if a := c.assumedLatency(); a > 0 && a < hi {
			// Within the contract's fault model: a synchronous model
			// (contract.LatencyTerms.Assume) voids the whole contract on a
			// slower link, so a slower draw could only find what the
			// algorithm never promised.
			lo, hi = min(lo, a/2), a
		}
		lat := sim.Constant(d.rng.DurationRange(lo, hi).Round(time.Millisecond))
		l.Latency = &lat
	}
	if mix&2 != 0 {
		drop := faults.Float(math.Round((0.1+0.8*d.rng.Float64())*100) / 100)
		l.Drop = &drop
	}
	if mix&4 != 0 {
		dup := faults.Float(math.Round((minDuplicate+(maxDuplicate-minDuplicate)*d.rng.Float64())*100) / 100)
		l.Duplicate = &dup
	}
	return l
}

// swarmFault draws one fault from kinds.
func (d *drawer) swarmFault(c *cluster, kinds []string) faults.Fault {
	k := kinds[d.rng.Intn(len(kinds))]
	return d.fault(c, k, d.at(), d.target(c))
}

// swarm draws a swarm schedule: a random non-empty subset of the kinds,
// then faults of those kinds at random times on random targets.
func (d *drawer) swarm(s *schedule, c *cluster) {
	var kinds []string
	for _, k := range c.kinds {
		if d.rng.Intn(2) == 0 {
			kinds = append(kinds, k)
		}
	}
	if len(kinds) == 0 {
		kinds = []string{c.kinds[d.rng.Intn(len(c.kinds))]}
	}
	n := 1 + d.rng.Intn(maxSwarmFaults)
	for i := 0; i < n; i++ {
		s.faults = append(s.faults, d.swarmFault(c, kinds))
	}
}

// stateKinds are the kinds a state-targeted fault draws from, with the
// crash (restarted soon after) most likely: it is what loses volatile state
// between two protocol steps.
var stateKinds = []string{KindCrash, KindCrash, KindCrash, KindPause, KindPartition, KindClockStep}

// The state-targeted draws' odds and ranges.
const (
	stateDeclaredPct = 70                     // a declared state, rather than a built-in event
	stateNowPct      = 70                     // no delay after the state: "right after"
	stateShortPct    = 80                     // a short downtime: back before the next request
	stateAtZeroPct   = 40                     // armed from the start (the first election)
	maxShortDown     = 200 * time.Millisecond // a short downtime's longest
	minDown          = 100 * time.Microsecond // any downtime's shortest
	maxStateRepeats  = 3                      // the same fault armed again, later
)

// stateFault draws one fault fired right after a protocol state or event.
func (d *drawer) stateFault(c *cluster) faults.Fault {
	tr := &faults.Trigger{}
	if len(c.states) > 0 && (len(c.events) == 0 || d.rng.Intn(100) < stateDeclaredPct) {
		tr.State = c.states[d.rng.Intn(len(c.states))]
	} else {
		tr.Event = c.events[d.rng.Intn(len(c.events))]
	}
	if d.rng.Intn(100) >= stateNowPct {
		tr.Delay = faults.Dur(d.rng.DurationRange(0, maxStateDelay).Round(time.Microsecond))
	}
	t := faults.Of(faults.TargetEventNode)
	if d.rng.Intn(5) == 0 {
		t = d.target(c)
	}
	var ks []string
	for _, k := range stateKinds {
		if containsStr(c.kinds, k) {
			ks = append(ks, k)
		}
	}
	if len(ks) == 0 {
		ks = c.kinds
	}
	at := faults.Dur(0)
	if d.rng.Intn(100) >= stateAtZeroPct {
		at = d.at()
	}
	f := d.fault(c, ks[d.rng.Intn(len(ks))], at, t)
	if f.For != nil {
		down := d.logDur(maxShortDown, maxRestart)
		if d.rng.Intn(100) < stateShortPct {
			down = d.logDur(minDown, maxShortDown)
		} else if l, ok := d.long(c); ok {
			down = l // cut off past the algorithm's timeouts, right after the state
		}
		f.For = &faults.DurRange{Min: down, Max: down}
	}
	f.After = tr
	return f
}

// state draws a state-targeted schedule: one to maxStateFaults faults,
// each armed again up to maxStateRepeats times, later (a trigger fires
// once: the copies catch the state's next occurrences).
func (d *drawer) state(s *schedule, c *cluster) {
	// Half the schedules first remove the leader once or twice, so the
	// states of an election come again after the first one.
	if d.rng.Intn(2) == 0 {
		for k := 1 + d.rng.Intn(2); k > 0; k-- {
			kind := []string{KindCrash, KindPartition}[d.rng.Intn(2)]
			if containsStr(c.kinds, kind) {
				s.faults = append(s.faults, d.fault(c, kind, d.at(), faults.Leader()))
			}
		}
	}
	churn := len(s.faults)
	n := 1 + d.rng.Intn(maxStateFaults)
	for i := 0; i < n; i++ {
		f := d.stateFault(c)
		if churn > 0 && d.rng.Intn(2) == 0 {
			f.At = s.faults[d.rng.Intn(churn)].At // armed for the election the leader's removal starts
		}
		s.faults = append(s.faults, f)
		for k := d.rng.Intn(maxStateRepeats); k > 0; k-- {
			f.At = d.inPhase(f.At.Min + d.rng.DurationRange(500*time.Millisecond, 3*time.Second))
			s.faults = append(s.faults, f)
		}
	}
}

// extremes draws parameter overrides at the edges of the algorithm's
// declared ranges: an enum parameter (a flavour, a policy) takes any of
// its values, an int or float parameter its minimum or maximum. Each
// unpinned parameter is drawn with probability one half. A boolean is
// drawn only when the algorithm declares a contract: it switches a feature,
// sometimes to a deliberately unsafe setting (raft's persist), and only a
// contract, which is derived from the values, says what that setting still
// promises. A duration takes an edge of its declared range
// (registry.Param.MinDur, MaxDur); one without a range keeps its value
// (its edges are unknown to hunt; set them with -set).
func (d *drawer) extremes() []string {
	var out []string
	for _, p := range d.b.desc.Params {
		if containsStr(d.b.pinned, p.Key) || d.rng.Intn(2) == 0 {
			continue
		}
		var v string
		switch p.Kind {
		case registry.Enum:
			v = p.Enum[d.rng.Intn(len(p.Enum))]
		case registry.Bool:
			if d.b.desc.Contract == nil {
				continue
			}
			v = strconv.FormatBool(d.rng.Intn(2) == 0)
		case registry.Int:
			v = strconv.FormatInt(int64([]float64{p.Min, p.Max}[d.rng.Intn(2)]), 10)
		case registry.Float:
			v = strconv.FormatFloat([]float64{p.Min, p.Max}[d.rng.Intn(2)], 'g', -1, 64)
		case registry.Duration:
			if p.MaxDur == 0 || p.MinDur == p.MaxDur {
				continue // no declared range: its edges are unknown
			}
			v = []time.Duration{p.MinDur, p.MaxDur}[d.rng.Intn(2)].String()
		default:
			continue
		}
		if (p.Kind == registry.Int || p.Kind == registry.Float) && p.Min == p.Max {
			continue
		}
		out = append(out, "algorithm."+p.Key+"="+v)
	}
	return out
}

// mutate changes a corpus schedule in one to three ways.
func (d *drawer) mutate(s *schedule, c *cluster) {
	for n := 1 + d.rng.Intn(3); n > 0; n-- {
		switch d.rng.Intn(6) {
		case 0:
			s.seed = d.rng.Uint64()
		case 1:
			s.faults = append(s.faults, d.swarmFault(c, c.kinds))
		case 2:
			s.faults = append(s.faults, d.stateFault(c))
		case 3:
			if len(s.faults) > 1 {
				i := d.rng.Intn(len(s.faults))
				s.faults = append(s.faults[:i], s.faults[i+1:]...)
			}
		case 4:
			if len(s.faults) > 0 {
				i := d.rng.Intn(len(s.faults))
				f := s.faults[i]
				shift := d.rng.DurationRange(-time.Second, time.Second)
				f.At = d.inPhase(f.At.Min + shift)
				s.faults[i] = f
			}
		case 5:
			if len(s.faults) > 0 {
				i := d.rng.Intn(len(s.faults))
				f := s.faults[i]
				if f.For != nil {
					x := faults.Dur(min(max(time.Duration(float64(f.For.Min)*(0.25+1.75*d.rng.Float64())), time.Millisecond), maxFor).Round(time.Microsecond))
					f.For = &x
				}
				s.faults[i] = f
			}
		}
	}
}
