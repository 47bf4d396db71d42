package faults

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/electsim/electsim/sim"
)

// The fault kinds, as Fault.Kind returns them and as Nemesis.Kinds names them
// (the nemesis splits "store" into KindStoreUnavailable and KindStoreFailover).
const (
	KindPartition = "partition"
	KindHeal      = "heal"
	KindPause     = "pause"
	KindCrash     = "crash"
	KindRestart   = "restart"
	KindClock     = "clock"
	KindLink      = "link"
	KindDisk      = "disk"
	KindStore     = "store"
	KindResign    = "resign"
)

// Fault is one fault of a scenario: when it fires (At, or After a protocol
// event), what it does (exactly one of the kind fields), and for how long
// (For). Ranges are drawn from the run's fault stream when the fault fires.
type Fault struct {
	// Name optionally labels the fault in trace notes and Applied.Source.
	// Default "faults[i]".
	Name string
	// At is when the fault fires, in true time since the run started. With
	// After, it is when the trigger is armed (events before At are ignored).
	At DurRange
	// For is how long the fault lasts before it is reverted; nil means it
	// lasts until Settle. Not allowed for instantaneous faults (heal, restart,
	// a clock step alone, a store failover alone).
	For *DurRange
	// After makes the fault fire on a protocol event instead of at At.
	After *Trigger

	Partition *Partition
	Heal      *Heal
	Pause     *Pause
	Crash     *Crash
	Restart   *Restart
	Clock     *Clock
	Link      *Link
	Disk      *Disk
	Store     *Store
	Resign    *Resign
}

// Trigger fires its fault Delay after the first matching event at or after
// the fault's At. A trigger fires at most once.
type Trigger struct {
	// Event is one of the Event constants; "" with State.
	Event string
	// State, instead of Event, is a protocol state the algorithm declares
	// (Environment.States, registry.Algorithm.States): the trigger waits
	// for a candidate's effect with sim.FactProtocolState naming it, so
	// "crash right after granting a vote" is one fault.
	State string
	// Node says whose event counts; the zero Target (empty Kind) means any
	// node. Allowed kinds: leader (the event's node acts as leader, or the
	// event is elected/stepped_down), lease_holder (the event's node holds the
	// lease, or the event is a lease event: renew, acquired, expired),
	// candidate and followers (a candidate not acting as leader), all (any
	// candidate), node, store, resource.
	Node Target
	// Delay is how long after the event the fault fires.
	Delay DurRange
}

// The events a Trigger can wait for, and the trace records that are them.
const (
	// EventElected: a lead record (ActAsLeader) of the node.
	EventElected = "elected"
	// EventSteppedDown: a step_down record (StopLeading) of the node.
	EventSteppedDown = "stepped_down"
	// EventRenew: a store effect with sim.FactLeaseRenewed for
	// Environment.LeaseKey; the event's node is the holder that renewed
	// (the effect's A).
	EventRenew = "renew"
	// EventAcquired: a store effect with sim.FactLeaseAcquired for the lease
	// key; the event's node is the new holder.
	EventAcquired = "acquired"
	// EventExpired: a store effect with sim.FactLeaseExpired for the lease
	// key; the event's node is the holder whose lease expired.
	EventExpired = "expired"
	// EventJobStarted: an effect with sim.FactRunStarted (the cron layer's
	// cron.run_started) of the node.
	EventJobStarted = "job_started"
	// EventJobFinished: an effect with sim.FactRunFinished (cron.run_finished)
	// of the node.
	EventJobFinished = "job_finished"
)

var events = []string{EventElected, EventSteppedDown, EventRenew, EventAcquired, EventExpired, EventJobStarted, EventJobFinished}

// Events lists every Event constant, in order.
func Events() []string { return slices.Clone(events) }

// statePrefix marks a protocol state in the event key a trigger waits for,
// so a state cannot be confused with an event of the same name.
const statePrefix = "state:"

// key is what the trigger waits for: its Event, or its State marked.
func (t *Trigger) key() string {
	if t.State != "" {
		return statePrefix + t.State
	}
	return t.Event
}

// Validate checks the trigger on its own.
func (t *Trigger) Validate() error {
	switch {
	case t.State != "" && t.Event != "":
		return fmt.Errorf("state: not with event %q (a trigger waits for one or the other)", t.Event)
	case t.State != "":
	case !contains(events, t.Event):
		if t.Event == "" {
			return fmt.Errorf("event: missing (one of %v)", events)
		}
		return fmt.Errorf("event: unknown %q (one of %v)", t.Event, events)
	}
	if t.Node.Kind != "" {
		switch t.Node.Kind {
		case TargetRandom, TargetRandomMinority, TargetEventNode, TargetService:
			return fmt.Errorf("node: kind %q cannot name whose event counts", string(t.Node.Kind))
		}
		if err := t.Node.Validate(); err != nil {
			return fmt.Errorf("node.%w", err)
		}
	}
	return t.Delay.validateNonNeg("delay")
}

// Heal restores every link (and ends every active partition fault). It is
// instantaneous.
type Heal struct{}

// Resign shuts the target nodes down gracefully, as a rolling update's
// SIGTERM does: each node's Resign hook runs first (a lease candidate with
// release_on_cancel releases its lease; nodes without the hook just stop),
// the process keeps running for Grace to finish its shutdown, then exits.
// Reverting (For counts from the SIGTERM) starts it again with its disk.
type Resign struct {
	Target Target
	// Grace is how long the process runs after the hook before it exits
	// (Kubernetes' terminationGracePeriodSeconds, here short). Default 1s.
	Grace *DurRange
}

// DefaultResignGrace is Resign.Grace's default.
const DefaultResignGrace = time.Second

// Validate checks the resign fault.
func (r *Resign) Validate() error {
	if r.Grace != nil {
		if err := r.Grace.validateNonNeg("grace"); err != nil {
			return err
		}
	}
	return prefix("target.", r.Target.Validate())
}

// NoteResigning is the Name of the RecFault record (with the typed fact
// sim.FactResigning) written just before a resign fault runs a node's hook.
const NoteResigning = sim.FaultResigning

// Resigner is implemented by nodes with a graceful-shutdown hook.
type Resigner interface {
	Resign()
}

// Pause pauses the target nodes' processes (GC, SIGSTOP); reverting resumes
// them. Nodes that are down are left out.
type Pause struct {
	Target Target
}

// Validate checks the pause.
func (p *Pause) Validate() error { return prefix("target.", p.Target.Validate()) }

// Crash crashes the target nodes; reverting restarts them with their durable
// state (or, with WipeDisk, without it: a replaced disk). Nodes already down
// are left out.
type Crash struct {
	Target Target
	// WipeDisk makes the restart at revert start from an empty disk.
	WipeDisk bool
}

// Validate checks the crash.
func (c *Crash) Validate() error { return prefix("target.", c.Target.Validate()) }

// Restart restarts the target nodes at once: an up node is crashed and
// started again, a down node is started. It is instantaneous.
type Restart struct {
	Target Target
	// WipeDisk starts the nodes without their persisted state.
	WipeDisk bool
}

// Validate checks the restart.
func (r *Restart) Validate() error { return prefix("target.", r.Target.Validate()) }

// Clock changes the target nodes' clocks. Every target gets the same drawn
// values. Reverting steps the wall clock back by Offset and restores the
// rates that were in force without this fault; time gained or lost while a
// rate was off is not undone (a real clock keeps it), and Step never reverts.
type Clock struct {
	Target Target
	// Offset steps the wall clock by this much (signed) when the fault
	// fires and back when it is reverted.
	Offset *DurRange
	// Step steps the wall clock by this much (signed) for good, as an NTP
	// correction does; it is not reverted.
	Step *DurRange
	// Rate sets both clocks' rate factor (1.3 = 30% fast), as a fast
	// oscillator would. Not with MonoRate or WallRate. In (0, 1000].
	Rate *FloatRange
	// MonoRate sets the monotonic clock's rate factor (timers, timeouts).
	MonoRate *FloatRange
	// WallRate sets the wall clock's rate factor.
	WallRate *FloatRange
}

// Validate checks the clock fault.
func (c *Clock) Validate() error {
	if err := c.Target.Validate(); err != nil {
		return prefix("target.", err)
	}
	if c.Offset == nil && c.Step == nil && c.Rate == nil && c.MonoRate == nil && c.WallRate == nil {
		return whole("needs at least one of offset, step, rate, mono_rate, wall_rate")
	}
	if c.Rate != nil && (c.MonoRate != nil || c.WallRate != nil) {
		return errors.New("rate: sets both clocks; not with mono_rate or wall_rate")
	}
	if c.Offset != nil {
		if err := c.Offset.Validate(); err != nil {
			return prefix("offset: ", err)
		}
	}
	if c.Step != nil {
		if err := c.Step.Validate(); err != nil {
			return prefix("step: ", err)
		}
	}
	for _, r := range []struct {
		name string
		v    *FloatRange
	}{{"rate", c.Rate}, {"mono_rate", c.MonoRate}, {"wall_rate", c.WallRate}} {
		if r.v != nil {
			if err := r.v.validateIn(r.name, 0, 1000, true); err != nil {
				return err
			}
		}
	}
	return nil
}

// lasting reports whether the clock fault has anything to revert.
func (c *Clock) lasting() bool {
	return c.Offset != nil || c.Rate != nil || c.MonoRate != nil || c.WallRate != nil
}

// Link changes the configuration of the directed links From→To (and To→From
// with BothWays). Fields left nil keep the link's current value. Reverting
// restores what the links would be without this fault.
type Link struct {
	// From and To select the links' ends; nil means every node (services
	// included). Both nil is every link, self-links included.
	From *Target
	To   *Target
	// BothWays also changes the links To→From.
	BothWays bool
	// Latency replaces the one-way delay distribution.
	Latency *sim.Dist
	// Drop replaces the loss probability, in [0, 1].
	Drop *FloatRange
	// Duplicate replaces the duplication probability, in [0, 1].
	Duplicate *FloatRange
}

// Validate checks the link fault.
func (l *Link) Validate() error {
	if l.From != nil {
		if err := l.From.Validate(); err != nil {
			return prefix("from.", err)
		}
	}
	if l.To != nil {
		if err := l.To.Validate(); err != nil {
			return prefix("to.", err)
		}
	}
	if l.Latency == nil && l.Drop == nil && l.Duplicate == nil {
		return whole("needs at least one of latency, drop, duplicate")
	}
	if l.Latency != nil {
		if err := l.Latency.Validate(); err != nil {
			return prefix("latency: ", err)
		}
	}
	if l.Drop != nil {
		if err := l.Drop.validateIn("drop", 0, 1, false); err != nil {
			return err
		}
	}
	if l.Duplicate != nil {
		if err := l.Duplicate.validateIn("duplicate", 0, 1, false); err != nil {
			return err
		}
	}
	return nil
}

// Disk changes the target nodes' fsync latency (a slow disk); reverting
// restores what it would be without this fault.
type Disk struct {
	Target Target
	// Fsync is the disk write latency distribution while the fault lasts.
	Fsync sim.Dist
}

// Validate checks the disk fault.
func (d *Disk) Validate() error {
	if err := d.Target.Validate(); err != nil {
		return prefix("target.", err)
	}
	return prefix("fsync: ", d.Fsync.Validate())
}

// Store is a fault of the lease store (Environment.StoreNode).
//
//   - Unavailable alone: the store ignores every request (clients time out)
//     until reverted.
//   - LoseLastWrites alone: an instantaneous failover to an asynchronously
//     replicated standby that lacks the store's most recent writes (Redis
//     async replication): that many writes are undone.
//   - Both: the store is unavailable, and when the fault is reverted the
//     failover completes — losing the writes — and the store serves again.
type Store struct {
	// Unavailable makes the store ignore requests while the fault lasts.
	Unavailable bool
	// LoseLastWrites is how many of the most recent writes the failover
	// loses (nil: no failover).
	LoseLastWrites *IntRange
}

// Validate checks the store fault.
func (s *Store) Validate() error {
	if !s.Unavailable && s.LoseLastWrites == nil {
		return whole("needs unavailable or lose_last_writes")
	}
	if s.LoseLastWrites != nil {
		if err := s.LoseLastWrites.Validate(); err != nil {
			return prefix("lose_last_writes: ", err)
		}
		if s.LoseLastWrites.Min < 0 {
			return fmt.Errorf("lose_last_writes: negative %d", s.LoseLastWrites.Min)
		}
	}
	return nil
}

// Kind returns the fault's kind (KindPause, …), "" if no kind field is set,
// or the first one set.
func (f *Fault) Kind() string {
	if k := f.kinds(); len(k) > 0 {
		return k[0]
	}
	return ""
}

func (f *Fault) kinds() []string {
	var k []string
	for _, c := range []struct {
		name string
		set  bool
	}{
		{KindPartition, f.Partition != nil}, {KindHeal, f.Heal != nil}, {KindPause, f.Pause != nil},
		{KindCrash, f.Crash != nil}, {KindRestart, f.Restart != nil}, {KindClock, f.Clock != nil},
		{KindLink, f.Link != nil}, {KindDisk, f.Disk != nil}, {KindStore, f.Store != nil},
		{KindResign, f.Resign != nil},
	} {
		if c.set {
			k = append(k, c.name)
		}
	}
	return k
}

// lasting reports whether the fault has anything For could revert.
func (f *Fault) lasting() bool {
	switch {
	case f.Heal != nil, f.Restart != nil:
		return false
	case f.Clock != nil:
		return f.Clock.lasting()
	case f.Store != nil:
		return f.Store.Unavailable
	}
	return true
}

// Validate checks the fault on its own (node IDs and the presence of a store
// are checked by New, which knows the cluster). Messages name the field.
func (f *Fault) Validate() error {
	k := f.kinds()
	switch {
	case len(k) == 0:
		return errors.New("needs one of partition, heal, pause, crash, restart, clock, link, disk, store, resign")
	case len(k) > 1:
		return fmt.Errorf("has %s: exactly one kind per fault", strings.Join(k, " and "))
	}
	if err := f.At.validateNonNeg("at"); err != nil {
		return err
	}
	if f.For != nil {
		if err := f.For.validateNonNeg("for"); err != nil {
			return err
		}
		if !f.lasting() {
			return fmt.Errorf("for: a %s fault is instantaneous and cannot last", k[0])
		}
	}
	if f.After != nil {
		if err := f.After.Validate(); err != nil {
			return prefix("after.", err)
		}
	}
	var err error
	switch {
	case f.Partition != nil:
		err = f.Partition.Validate()
	case f.Pause != nil:
		err = f.Pause.Validate()
	case f.Crash != nil:
		err = f.Crash.Validate()
	case f.Restart != nil:
		err = f.Restart.Validate()
	case f.Clock != nil:
		err = f.Clock.Validate()
	case f.Link != nil:
		err = f.Link.Validate()
	case f.Disk != nil:
		err = f.Disk.Validate()
	case f.Store != nil:
		err = f.Store.Validate()
	case f.Resign != nil:
		err = f.Resign.Validate()
	}
	if err != nil {
		return prefix(k[0]+".", err)
	}
	if f.After == nil {
		for _, t := range f.targets() {
			if t.Kind == TargetEventNode {
				return fmt.Errorf("%s: target %q needs after (a trigger)", k[0], string(TargetEventNode))
			}
		}
	}
	return nil
}

// MapTargets returns a copy of f whose every target (of its kind and of its
// trigger) is replaced by fn(target). The copy shares nothing mutable with f.
func (f Fault) MapTargets(fn func(Target) Target) Fault {
	ptr := func(t *Target) *Target {
		if t == nil {
			return nil
		}
		x := fn(*t)
		return &x
	}
	if f.After != nil {
		tr := *f.After
		if tr.Node.Kind != "" {
			tr.Node = fn(tr.Node)
		}
		f.After = &tr
	}
	switch {
	case f.Partition != nil:
		p := *f.Partition
		p.Target, p.To = ptr(p.Target), ptr(p.To)
		p.Groups = nil
		for _, g := range f.Partition.Groups {
			ng := make([]Target, len(g))
			for i, t := range g {
				ng[i] = fn(t)
			}
			p.Groups = append(p.Groups, ng)
		}
		f.Partition = &p
	case f.Pause != nil:
		f.Pause = &Pause{Target: fn(f.Pause.Target)}
	case f.Crash != nil:
		x := *f.Crash
		x.Target = fn(x.Target)
		f.Crash = &x
	case f.Restart != nil:
		x := *f.Restart
		x.Target = fn(x.Target)
		f.Restart = &x
	case f.Resign != nil:
		x := *f.Resign
		x.Target = fn(x.Target)
		f.Resign = &x
	case f.Clock != nil:
		x := *f.Clock
		x.Target = fn(x.Target)
		f.Clock = &x
	case f.Disk != nil:
		x := *f.Disk
		x.Target = fn(x.Target)
		f.Disk = &x
	case f.Link != nil:
		x := *f.Link
		x.From, x.To = ptr(x.From), ptr(x.To)
		f.Link = &x
	}
	return f
}

// targets lists every Target the fault names.
func (f *Fault) targets() []Target {
	var out []Target
	switch {
	case f.Partition != nil:
		for _, g := range f.Partition.Groups {
			out = append(out, g...)
		}
		if f.Partition.Target != nil {
			out = append(out, *f.Partition.Target)
		}
		if f.Partition.To != nil {
			out = append(out, *f.Partition.To)
		}
	case f.Pause != nil:
		out = append(out, f.Pause.Target)
	case f.Crash != nil:
		out = append(out, f.Crash.Target)
	case f.Resign != nil:
		out = append(out, f.Resign.Target)
	case f.Restart != nil:
		out = append(out, f.Restart.Target)
	case f.Clock != nil:
		out = append(out, f.Clock.Target)
	case f.Disk != nil:
		out = append(out, f.Disk.Target)
	case f.Link != nil:
		if f.Link.From != nil {
			out = append(out, *f.Link.From)
		}
		if f.Link.To != nil {
			out = append(out, *f.Link.To)
		}
	}
	return out
}

// wholeError is a message about a whole struct rather than one field.
type wholeError string

func (e wholeError) Error() string { return string(e) }

func whole(msg string) error { return wholeError(msg) }

// prefix prepends the field path p to err's message ("pause." +
// "target.kind: …"); a message about the whole struct gets "clock: …".
func prefix(p string, err error) error {
	if err == nil {
		return nil
	}
	var w wholeError
	if errors.As(err, &w) && strings.HasSuffix(p, ".") {
		return fmt.Errorf("%s: %w", strings.TrimSuffix(p, "."), err)
	}
	return fmt.Errorf("%s%w", p, err)
}

func contains[T comparable](xs []T, x T) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
