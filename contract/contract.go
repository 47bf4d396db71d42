// Package contract is the typed vocabulary of safety contracts: what an
// election algorithm (or the cron layer on top of it) guarantees, and under
// which faults the guarantee is void. An algorithm declares its contract in
// its registry descriptor (registry.Algorithm.Contract), the cron layer
// declares its own (cron.Contract), and the checker holds every finding of a
// run against them: a finding the contract excuses is reported as such, one
// it does not is a breach and fails the run whatever the scenario allows
// (docs/checkers.md, "Contracts").
//
// The package names no algorithm and no check implementation: check names are
// the checker's (checker.CheckNames), and a test in the scenario package
// holds every registered contract to them.
package contract

import (
	"fmt"
	"slices"
	"time"
)

// FaultClass is a kind of fault a contract can name as an exception. The
// checker derives the classes a run suffered from typed trace facts
// (sim.Fact and record types), never from text.
type FaultClass uint8

// The fault classes. Per-node classes (crash, restart, disk_loss, pause,
// clock_rate, clock_step, disk) excuse a finding only when they hit a node the finding
// involves or a service node (a lease store, the fenced resource); the
// network and service classes (partition, link, loss, service_down) excuse
// any finding. Every class excuses only findings that end at or after its first
// occurrence.
const (
	// Crash: a node crashed (crash-recovery when it restarts with its disk).
	Crash FaultClass = iota + 1
	// DiskLoss: a node restarted without its durable state.
	DiskLoss
	// Pause: a process was paused (a GC or SIGSTOP pause).
	Pause
	// Partition: links were cut.
	Partition
	// Link: a link's latency or ordering changed from the network's
	// configured one (a link fault, or a per-link override).
	Link
	// ClockRate: a node's clock ran at a rate other than exact.
	ClockRate
	// ClockStep: a node's wall clock was stepped.
	ClockStep
	// Disk: a node's disk write latency changed.
	Disk
	// ServiceDown: a service node (a lease store) stopped answering.
	ServiceDown
	// Loss: links lose or duplicate messages (the run's network from the
	// start, a per-link override, or a link fault).
	Loss
	// Restart: a crashed node came back (crash-recovery, with or without
	// its disk). A crash alone, the node never back, is crash-stop: the
	// classic algorithms' model, so they name restart, not crash.
	Restart
	numClasses
)

// NumClasses is one more than the largest FaultClass, for arrays indexed
// by class.
const NumClasses = int(numClasses)

var classNames = [...]string{"", "crash", "disk_loss", "pause", "partition", "link", "clock_rate", "clock_step", "disk", "service_down", "loss", "restart"}

// one name per class: adding a class without its name does not compile.
var _ = [1]struct{}{}[len(classNames)-int(numClasses)]

// String is the class's name in scenario files, summaries and docs.
func (c FaultClass) String() string {
	if c > 0 && int(c) < len(classNames) {
		return classNames[c]
	}
	return fmt.Sprintf("fault_class(%d)", uint8(c))
}

// PerNode reports whether the class hits one node (and so excuses only
// findings about that node, or any finding when it hits a service node).
func (c FaultClass) PerNode() bool {
	switch c {
	case Partition, Link, ServiceDown, Loss:
		return false
	}
	return true
}

// Classes lists every class in order.
func Classes() []FaultClass {
	out := make([]FaultClass, 0, NumClasses-1)
	for c := FaultClass(1); c < numClasses; c++ {
		out = append(out, c)
	}
	return out
}

// ParseClass returns the class named s.
func ParseClass(s string) (FaultClass, bool) {
	for c := FaultClass(1); c < numClasses; c++ {
		if classNames[c] == s {
			return c, true
		}
	}
	return 0, false
}

// Guarantee is one promise: the named check holds in every run, except
// runs in which a fault of an Unless class reached the finding (see
// FaultClass), and, for split_brain, except overlaps no longer than
// MaxOverlap.
type Guarantee struct {
	// Check is the checker's name for the property (checker.CheckNames).
	Check string
	// Unless are the fault classes that void the guarantee for the
	// findings they reach. Empty: it holds under any fault.
	Unless []FaultClass
	// MaxOverlap, for split_brain, is the longest overlap of two acting
	// leaders the algorithm admits (derived from its parameters; the
	// algorithm's docs page gives the formula). Zero: none. Before
	// Contract.Resolve adds the Latency terms it may be negative (latency
	// makes up for it; Resolve never leaves it below zero).
	MaxOverlap time.Duration
	// Anywhere are per-node classes of Unless that void the guarantee
	// wherever they hit, not only on the nodes the finding involves: a
	// quorum member that loses its vote (its disk, or its process when
	// the algorithm keeps the vote in memory) breaks a promise about two
	// other nodes, the leaders it voted for.
	Anywhere []FaultClass
	// Deadline, for missed_slots, is how long a run of a slot may take,
	// from the moment it should start (the slot falling due on a leader
	// that keeps leading, or a new tenure starting within Recovery of it)
	// until its write is applied when no fault intervenes; the checker
	// dates a missed slot's finding at that deadline, so a fault up to it
	// can excuse the finding, and a deadline past the run's end leaves the
	// finding within bound (docs/cron.md, "Missed slots"). Before
	// Contract.Resolve it holds the latency-free part; Resolve adds the
	// Latency terms to it (not to MaxOverlap) when it is set.
	Deadline time.Duration
	// Recovery, for missed_slots, is how long after a slot fell due a new
	// tenure still recovers it (the misfire threshold, within the
	// lookback).
	Recovery time.Duration
	// Window, for disruption, is how long a leader and a majority of the
	// candidates must have been up, running and connected to it both ways
	// for its stepping down to be a disruption (checker.CheckDisruption).
	Window time.Duration
	// TermState, for disruption, is 1 + the index of the protocol state
	// the algorithm reports when a node's term rises (its
	// registry.Algorithm.States; sim.FactProtocolState's A, B the term);
	// 0: none declared, and the check cannot run.
	TermState int
	// Lasting are classes of Unless whose effect outlasts the fault on the
	// nodes it hit: a store that lost its counter in a crash hands out old
	// epochs again until it passes them. They excuse a finding on those
	// nodes however long after (no Aftermath), still only where they hit.
	Lasting []FaultClass
	// Known are bugs of the real library version the configuration names
	// under which the real system breaks the guarantee (a release's issue).
	// A finding a fault of a known bug's classes reached is not excused:
	// it is a breach labelled with the bug, so a user on that version sees
	// the bug rather than a clean verdict (docs/checkers.md, "Known bugs").
	Known []KnownBug
	// WriteLag: a split_brain overlap's bound also stretches by how much
	// older than its success the holder's latest lease write was
	// (sim.FactLeaseWriteLag) when it succeeded within the Aftermath
	// before the overlap: client-go writes the renewTime of an attempt's
	// start, and a record whose renewTime second is already written looks
	// unchanged to followers while the holder counts from its success.
	WriteLag bool
	// Aftermath is how long after a fault ended it can still excuse a
	// finding of this check: the time the algorithm needs to recover from
	// it (a deposed leader to notice, a lease to run out, an election to
	// finish). A fault excuses a finding only if it acted while the
	// finding lasted or ended at most Aftermath before it began
	// (docs/checkers.md, "Excuses"). Zero: the scenario fills in the
	// algorithm's (Contract.WithAftermath).
	Aftermath time.Duration
	// Latency is how the guarantee depends on message latency; the
	// scenario resolves it against the run's network (Contract.Resolve)
	// before the checker sees it.
	Latency LatencyTerms
	// Source says where the guarantee comes from: a paper section, or a
	// file and function of the real system. For people.
	Source string
}

// ExcusesAnywhere reports whether class c voids g wherever it hits.
func (g Guarantee) ExcusesAnywhere(c FaultClass) bool {
	if !g.Excuses(c) {
		return false
	}
	for _, a := range g.Anywhere {
		if a == c {
			return true
		}
	}
	return false
}

// Lasts reports whether class c is one of g's exceptions whose effect
// outlasts the fault (Lasting).
func (g Guarantee) Lasts(c FaultClass) bool {
	if !g.Excuses(c) {
		return false
	}
	for _, a := range g.Lasting {
		if a == c {
			return true
		}
	}
	return false
}

// Excuses reports whether class c voids g.
func (g Guarantee) Excuses(c FaultClass) bool {
	for _, u := range g.Unless {
		if u == c {
			return true
		}
	}
	return false
}

// Contract is everything an algorithm (with given parameter values)
// guarantees. Checks it does not name are judged by the scenario's expect
// as before.
type Contract struct {
	// Guarantees, at most one per check.
	Guarantees []Guarantee
}

// For returns the guarantee on check, if the contract has one.
func (c Contract) For(check string) (Guarantee, bool) {
	for _, g := range c.Guarantees {
		if g.Check == check {
			return g, true
		}
	}
	return Guarantee{}, false
}

// Empty reports whether the contract promises nothing.
func (c Contract) Empty() bool { return len(c.Guarantees) == 0 }

// Merge returns c with other's guarantees added. Where both promise the
// same check, the weaker promise wins: the union of their exceptions and
// the larger overlap bound (a run is only as safe as its weaker layer
// says).
func (c Contract) Merge(other Contract) Contract {
	out := Contract{Guarantees: append([]Guarantee(nil), c.Guarantees...)}
	for _, g := range other.Guarantees {
		i := -1
		for k := range out.Guarantees {
			if out.Guarantees[k].Check == g.Check {
				i = k
				break
			}
		}
		if i < 0 {
			out.Guarantees = append(out.Guarantees, g)
			continue
		}
		m := &out.Guarantees[i]
		unless := append([]FaultClass(nil), m.Unless...)
		for _, u := range g.Unless {
			if !m.Excuses(u) {
				unless = append(unless, u)
			}
		}
		m.Unless = unless
		anywhere := append([]FaultClass(nil), m.Anywhere...)
		for _, a := range g.Anywhere {
			if !m.ExcusesAnywhere(a) {
				anywhere = append(anywhere, a)
			}
		}
		m.Anywhere = anywhere
		lasting := append([]FaultClass(nil), m.Lasting...)
		for _, a := range g.Lasting {
			if !m.Lasts(a) {
				lasting = append(lasting, a)
			}
		}
		m.Lasting = lasting
		for _, k := range g.Known {
			if !slices.ContainsFunc(m.Known, func(x KnownBug) bool { return x.Label == k.Label }) {
				m.Known = append(slices.Clone(m.Known), k)
			}
		}
		m.WriteLag = m.WriteLag || g.WriteLag
		m.MaxOverlap = max(m.MaxOverlap, g.MaxOverlap)
		m.Deadline = max(m.Deadline, g.Deadline) // a later deadline lets more faults excuse
		m.Recovery = max(m.Recovery, g.Recovery)
		m.Aftermath = max(m.Aftermath, g.Aftermath)
		m.Window = max(m.Window, g.Window) // a longer window judges fewer step-downs
		m.TermState = max(m.TermState, g.TermState)
		m.Latency = m.Latency.weaker(g.Latency)
		if g.Source != "" && m.Source != g.Source {
			m.Source += "; " + g.Source
		}
	}
	return out
}

// WithAftermath returns c with every guarantee that states no Aftermath
// given d (an algorithm's recovery time, from its timescale).
func (c Contract) WithAftermath(d time.Duration) Contract {
	out := Contract{Guarantees: append([]Guarantee(nil), c.Guarantees...)}
	for i := range out.Guarantees {
		if out.Guarantees[i].Aftermath <= 0 {
			out.Guarantees[i].Aftermath = d
		}
	}
	return out
}

// KnownBug is a bug of a real library release under which the real
// system breaks a guarantee.
type KnownBug struct {
	// Label names the bug and the releases it is in, for people:
	// "CURATOR-696 (Curator 5.4–5.6)".
	Label string
	// Classes are the fault classes that trigger it.
	Classes []FaultClass
}

// KnownBugOf returns the label of g's known bug that fault class c
// triggers, if any.
func (g Guarantee) KnownBugOf(c FaultClass) (string, bool) {
	for _, k := range g.Known {
		for _, x := range k.Classes {
			if x == c {
				return k.Label, true
			}
		}
	}
	return "", false
}

// Stretches reports whether class c, where it is among g's exceptions
// that reached a split_brain finding, lengthens g's MaxOverlap by what it
// can explain rather than voiding it: a paused leader acts on for as long
// as it was paused past its bound, and no longer; a clock that ran at rate
// r for D of real time misjudges any interval by at most D·|r − 1| (a
// slow holder's lease outlives its real end by that much, a fast
// follower's wait ends that much early), and no more (docs/checkers.md,
// "Excuses").
func (g Guarantee) Stretches(c FaultClass) bool {
	return (c == Pause || c == ClockRate) && g.MaxOverlap > 0
}

// Verdict is how a contract judged one finding.
type Verdict uint8

// The verdicts.
const (
	// Uncovered: the contract makes no promise on the finding's check; the
	// scenario's expect judges it.
	Uncovered Verdict = iota
	// Breach: the contract promised the check and no exception applies:
	// the run fails whatever the scenario allows.
	Breach
	// Excused: a fault of an excepted class reached the finding.
	Excused
	// WithinBound: a split-brain overlap no longer than MaxOverlap, or a
	// missed slot whose deadline (Guarantee.Deadline) the run ended
	// before: the cron layer was not yet due to have applied it.
	WithinBound
)

var verdictNames = [...]string{"uncovered", "breach", "excused", "within_bound"}

// String names the verdict as summaries write it.
func (v Verdict) String() string {
	if int(v) < len(verdictNames) {
		return verdictNames[v]
	}
	return fmt.Sprintf("verdict(%d)", uint8(v))
}
