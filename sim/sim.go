package sim

import (
	"fmt"
	"math/bits"
	"slices"
	"sync/atomic"
	"time"
)

// Config describes a run's engine. The zero value is usable: seed 0, calendar
// start 2026-01-01T00:00:00Z, 1 ms constant latency, no loss, and generous
// budgets.
type Config struct {
	// Seed is the run's only source of randomness.
	Seed uint64
	// WallStart is the calendar time every wall clock reads at true time 0
	// (before offsets). Default 2026-01-01T00:00:00Z.
	WallStart time.Time
	// MaxTime bounds simulated time for Run; RunUntil beyond it stops there.
	// Default 24h.
	MaxTime time.Duration
	// MaxEvents, if non-zero, bounds the number of queue entries processed
	// over the whole run (an absolute cap; default none: a long, healthy
	// run must not hit it).
	MaxEvents uint64
	// MaxEventRate bounds how many queue entries may be processed per
	// simulated second, measured over windows of RateWindow simulated time:
	// a guard against runaway timers and message storms (a 1 ns timer takes
	// a billion events per simulated second) that lets a run of any
	// simulated length through. Default DefaultMaxEventRate.
	MaxEventRate uint64
	// RateWindow is the simulated-time window over which MaxEventRate is
	// judged. Default DefaultRateWindow.
	RateWindow time.Duration
	// MaxInFlight bounds how many messages may be in flight at once (sent,
	// not yet delivered or lost): the event-rate guard bounds events, but
	// one event can broadcast to every node, so a runaway broadcast timer
	// among 64 nodes fills memory before the rate window closes. The send
	// that would take the count past it stops the run at that call (the
	// handler does not continue) with OutcomeInFlight. Default
	// DefaultMaxInFlight.
	MaxInFlight uint64
	// MaxTimers bounds the timers armed at once, over all nodes: the
	// SetTimer that would exceed it (a handler arming timers in a loop)
	// stops the handler there, with OutcomeTimers. Default
	// DefaultMaxTimers.
	MaxTimers int
	// MaxPersist bounds the bytes of one Env.Persist call: a larger write
	// breaks the engine's contract and crashes the run (OutcomeCrashed).
	// Default DefaultMaxPersist.
	MaxPersist int
	// Beat, if set, shows a watchdog outside the engine that the run loop
	// is making progress: the loop stores the count of entries processed
	// on entry and at least every rate window (RateWindow of simulated
	// time or MaxEventRate × RateWindow entries, off the hot path), and
	// -1 when Run* returns. A value that stays the same, not -1, for long
	// is a handler that has not returned (simrun's -handler-timeout). The
	// engine only writes it: it never changes the run.
	Beat *atomic.Int64
	// Link is the default configuration of every directed link.
	// Zero Latency means constant 1 ms.
	Link LinkConfig
	// Abort, if set, is read between events: once it holds true the run
	// ends with OutcomeStopped, as after Stop. It lets another goroutine
	// (a signal handler) abandon a long run; it is read on the budget's
	// slow path, at least once per RateWindow of simulated time and every
	// MaxEventRate × RateWindow events, so it costs the hot loop nothing.
	// A run it stops is abandoned, not a result: its outcome depends on
	// when the flag was set.
	Abort *atomic.Bool
	// Guard, if set, checks what the engine cannot see from inside
	// (simrun's worker processes: that no handler started a goroutine,
	// docs/engine.md "When a handler fails"). See Guard.
	Guard Guard
}

// Guard is a host's check on a run's handlers (Config.Guard). It must
// answer the same for the same run, or the run is not deterministic.
type Guard interface {
	// Check is called after every handler call (Start, OnMessage,
	// OnTimer) returns. A non-nil error breaks the engine's contract
	// there: the run stops at that event, crashed, with a Failure marked
	// Contract that names the handler and holds the error.
	Check() error
	// Crashed is told the Failure as soon as the run stops crashed,
	// before Run returns (a worker process whose Check failed ends
	// itself there, before anything it runs next lets a stray goroutine
	// run).
	Crashed(f *Failure)
	// Ended is called by End, after the run's last handler and before
	// anything judges the run.
	Ended()
}

// DefaultMaxEventRate is Config.MaxEventRate's default: far above any
// healthy simulation (five Raft nodes with 50 ms heartbeats take about 250
// events per simulated second; a swarm nemesis a few thousand) and far below
// a runaway timer.
const DefaultMaxEventRate = 1_000_000

// DefaultRateWindow is Config.RateWindow's default. A runaway is stopped
// after at most MaxEventRate × RateWindow events (100,000 by default), so
// a 1 ns timer stops within a fraction of a second of wall time; the
// messages those events leave in flight are bounded by MaxInFlight (one
// event can send to every node). A healthy burst (an election among 64
// nodes is about 8,000 messages) fits a window many times.
const DefaultRateWindow = 100 * time.Millisecond

// DefaultMaxInFlight is Config.MaxInFlight's default: about 30 MB of
// message slots and queue entries, far above any healthy run (an election
// among 64 nodes has about 8,000 messages in flight; 64 nodes broadcasting
// every millisecond over 10 ms links about 40,000).
const DefaultMaxInFlight = 250_000

// DefaultMaxTimers is Config.MaxTimers's default: about 64 MB of timer
// slots and queue entries, far above any healthy run (a node arms a few
// timers; a lease store one per key).
const DefaultMaxTimers = 1_000_000

// DefaultMaxPersist is Config.MaxPersist's default, 16 MiB: a node's
// durable state is its vote, term and log, far smaller in every shipped
// algorithm.
const DefaultMaxPersist = 16 << 20

// DefaultWallStart is the calendar time at true time 0 when Config.WallStart is zero.
var DefaultWallStart = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Outcome is how a call to Run or RunUntil ended.
type Outcome uint8

// The outcomes of a run.
const (
	// OutcomeHorizon: RunUntil reached its time horizon.
	OutcomeHorizon Outcome = iota + 1
	// OutcomeQuiescent: Run found no event left to process.
	OutcomeQuiescent
	// OutcomeTimeBudget: simulated time reached Config.MaxTime with events pending.
	OutcomeTimeBudget
	// OutcomeEventBudget: Config.MaxEvents events were processed.
	OutcomeEventBudget
	// OutcomeEventRate: more than Config.MaxEventRate events per simulated
	// second were processed within one Config.RateWindow (a runaway).
	OutcomeEventRate
	// OutcomeStopped: a driver or sink called Stop (simrun -fail-fast stops
	// a run at its first violation).
	OutcomeStopped
	// OutcomeInFlight: more than Config.MaxInFlight messages were in
	// flight at once (a runaway broadcast).
	OutcomeInFlight
	// OutcomeCrashed: a node's handler panicked or broke the engine's
	// contract (Failure says which, where and why). The run stops at that
	// event; Run and RunUntil return OutcomeCrashed on every later call.
	OutcomeCrashed
	// OutcomeTimers: more than Config.MaxTimers timers were armed at
	// once: a handler arming timers in a loop. Checked at the call that
	// would exceed it.
	OutcomeTimers
)

var outcomeNames = [...]string{"", "horizon", "quiescent", "budget_exhausted:time", "budget_exhausted:events", "budget_exhausted:event_rate", "stopped", "budget_exhausted:in_flight", "crashed", "budget_exhausted:timers"}

// String names the outcome, e.g. "budget_exhausted:events".
func (o Outcome) String() string {
	if int(o) < len(outcomeNames) && o > 0 {
		return outcomeNames[o]
	}
	return fmt.Sprintf("outcome(%d)", uint8(o))
}

// Exhausted reports whether the run was stopped by a budget.
func (o Outcome) Exhausted() bool {
	return o == OutcomeTimeBudget || o == OutcomeEventBudget || o == OutcomeEventRate || o == OutcomeInFlight || o == OutcomeTimers
}

// Stats are a run's counters. Per-kind arrays are indexed by MsgKind.
type Stats struct {
	Events      uint64 // node events handled (starts, deliveries, timers, disk completions)
	Controls    uint64 // driver callbacks run (At, AtLate): faults, nemeses; not part of the simulated system
	Stale       uint64 // queue entries skipped (cancelled or re-armed timers)
	TimersFired uint64
	Sent        [MaxKinds]uint64
	Delivered   [MaxKinds]uint64
	Dropped     [MaxKinds]uint64
	Duplicated  [MaxKinds]uint64
	DropReasons [8]uint64 // indexed by DropReason
}

// msgSlot is a message in flight in the slab.
type msgSlot struct {
	m      Message
	sentAt Time
	srcInc uint32
	dstInc uint32
	tries  uint8 // a stream's retransmissions after cuts so far
}

// Sim is one simulated run. Build it with New, add nodes, then Run. A Sim is
// not safe for concurrent use; run many Sims in parallel instead.
type Sim struct {
	cfg      Config
	now      Time
	seq      uint64 // last ordinary event seq (from firstSeq up)
	handSeq  uint64 // last seq given to an event handed over on Resume
	lateSeq  uint64 // last seq given to a late control event (from lateFirstSeq up)
	q        queue
	nodes    []*nodeState
	started  bool
	net      network
	netRand  Rand
	msgs     []msgSlot
	freeMsgs []int32
	controls []func()
	freeCtl  []int32
	sinks    []Sink     // every sink, for records other than messages and timers
	full     []Sink     // the sinks that want message and timer records in full
	lean     []LeanSink // the sinks that take messages lean and skip timers
	hash     hasher
	rec      Record
	kindHash [MaxKinds]uint64
	hostKind [MaxKinds]bool // RegisterHostKind
	stats    Stats
	wallBase int64
	popped   uint64
	outcome  Outcome
	winEnd   Time   // end of the current rate window
	winLimit uint64 // events per window (MaxEventRate × RateWindow)
	winStop  uint64 // popped count at which the current window is full
	checkAt  uint64 // min(winStop, MaxEvents); 0 after Stop
	stopReq  bool   // Stop was called
	flooded  bool   // more than MaxInFlight messages were in flight
	// timerSlots counts every node's timer slots (slots are reused, so it
	// is the timers armed at once at the peak); timersFull: a SetTimer
	// would have exceeded MaxTimers.
	timerSlots int
	timersFull bool
	failure    *Failure
	// For a Failure's attribution, without a store per event: ev is the
	// entry being processed (the run loop pops into it), booting the node
	// whose Start is running, firingTag the tag of the timer being fired.
	ev        event
	booting   *nodeState
	firingTag int
}

// budget is the slow path of the run loop: a Stop, the absolute cap, a new
// rate window (t is the next event's time), or a full one.
func (s *Sim) budget(t Time) (Outcome, bool) {
	if s.cfg.Beat != nil {
		s.cfg.Beat.Store(int64(s.popped))
	}
	if s.cfg.Abort != nil && s.cfg.Abort.Load() {
		s.stopReq = true
	}
	if o := s.halted(); o != 0 {
		s.outcome = o
		return o, true
	}
	switch {
	case s.popped >= s.cfg.MaxEvents:
		s.outcome = OutcomeEventBudget
		return s.outcome, true
	case t >= s.winEnd:
		// A new rate window: it starts at the window holding t, so a quiet
		// stretch does not bank events for a later burst.
		w := Time(s.cfg.RateWindow)
		s.winEnd = t - t%w + w
		s.winStop = s.popped + s.winLimit
		if s.winStop < s.popped { // overflow: no practical limit
			s.winStop = ^uint64(0)
		}
	case s.popped >= s.winStop:
		s.outcome = OutcomeEventRate
		return s.outcome, true
	}
	s.checkAt = min(s.winStop, s.cfg.MaxEvents)
	return 0, false
}

// halted is the outcome a flood of messages in flight or a Stop ends the
// run with, or 0.
func (s *Sim) halted() Outcome {
	switch {
	case s.failure != nil:
		return OutcomeCrashed
	case s.timersFull:
		return OutcomeTimers
	case s.flooded:
		return OutcomeInFlight
	case s.stopReq:
		return OutcomeStopped
	}
	return 0
}

// Stop ends the run after the event being processed: Run and RunUntil
// return OutcomeStopped, now and on every later call. A sink may call it
// from Record (a checker that found what it was looking for).
func (s *Sim) Stop() { s.stopReq, s.checkAt = true, 0 }

// New returns an empty simulation for cfg.
func New(cfg Config) *Sim {
	if cfg.WallStart.IsZero() {
		cfg.WallStart = DefaultWallStart
	}
	if cfg.MaxTime <= 0 {
		cfg.MaxTime = 24 * time.Hour
	}
	if cfg.MaxEvents == 0 {
		cfg.MaxEvents = ^uint64(0)
	}
	if cfg.MaxEventRate == 0 {
		cfg.MaxEventRate = DefaultMaxEventRate
	}
	if cfg.RateWindow <= 0 {
		cfg.RateWindow = DefaultRateWindow
	}
	if cfg.MaxInFlight == 0 {
		cfg.MaxInFlight = DefaultMaxInFlight
	}
	if cfg.MaxTimers <= 0 {
		cfg.MaxTimers = DefaultMaxTimers
	}
	if cfg.MaxPersist <= 0 {
		cfg.MaxPersist = DefaultMaxPersist
	}
	if cfg.Link.Latency == (Dist{}) {
		cfg.Link.Latency = Constant(time.Millisecond)
	}
	mustLink(cfg.Link)
	s := &Sim{cfg: cfg, wallBase: cfg.WallStart.UnixNano(), seq: firstSeq, lateSeq: lateFirstSeq}
	s.net.def = cfg.Link
	s.netRand.Reset(cfg.Seed, "network")
	s.winLimit = rateLimit(cfg.MaxEventRate, cfg.RateWindow)
	s.winEnd, s.winStop = Time(cfg.RateWindow), s.winLimit
	s.checkAt = min(s.winStop, cfg.MaxEvents)
	s.hash.h = cfg.Seed
	s.hashKinds()
	return s
}

// hashKinds (re)computes the kind-name hashes; start calls it again so
// kinds registered after New still hash by name.
func (s *Sim) hashKinds() {
	for i, name := range kindNames() {
		if i > 0 { // kind 0 (no message) hashes as 0 on every path
			s.kindHash[i] = strHash(name)
			if s.kindHash[i] == 0 {
				s.kindHash[i] = 1 // 0 marks a kind not registered (Send refuses it)
			}
		}
	}
	copy(s.hostKind[:], hostKinds())
}

// rateLimit is how many events one window of d may take at rate per
// simulated second (at least 1), without overflow.
func rateLimit(rate uint64, d time.Duration) uint64 {
	hi, lo := bits.Mul64(rate, uint64(d))
	if hi >= uint64(time.Second) {
		return ^uint64(0)
	}
	n, _ := bits.Div64(hi, lo, uint64(time.Second))
	return max(n, 1)
}

// mustLink panics on a malformed link configuration: a negative latency
// would deliver messages before they were sent.
func mustLink(c LinkConfig) {
	if err := c.Latency.Validate(); err != nil {
		panic("sim: link latency: " + err.Error())
	}
	if c.Drop < 0 || c.Drop > 1 || c.Duplicate < 0 || c.Duplicate > 1 {
		panic(fmt.Sprintf("sim: link drop %v / duplicate %v outside [0, 1]", c.Drop, c.Duplicate))
	}
}

// Seed returns the run's seed.
func (s *Sim) Seed() uint64 { return s.cfg.Seed }

// Now returns the current true time.
func (s *Sim) Now() Time { return s.now }

// Stats returns the run's counters so far.
func (s *Sim) Stats() *Stats { return &s.stats }

// TraceHash returns the fingerprint of the trace so far.
func (s *Sim) TraceHash() uint64 { return s.hash.h }

// TraceHashHex returns TraceHash as 16 hex digits.
func (s *Sim) TraceHashHex() string { return fmt.Sprintf("%016x", s.hash.h) }

// Stream returns a fresh random stream for (seed, label), independent of every
// other label — for fault generators and other drivers outside the nodes.
func (s *Sim) Stream(label string) *Rand { return NewRand(s.cfg.Seed, label) }

// AddSink subscribes sink to every trace record from now on.
// A sink that implements LeanSink gets deliveries and drops through
// Message instead of Record, and no timer records.
func (s *Sim) AddSink(sink Sink) {
	s.sinks = append(s.sinks, sink)
	if l, ok := sink.(LeanSink); ok {
		s.lean = append(s.lean, l)
	} else {
		s.full = append(s.full, sink)
	}
}

// RemoveSink unsubscribes sink (the value given to AddSink, usually a
// pointer): it gets no record after the one being handed out, if any (a
// sink may remove itself from its Record). Sinks only read, so the trace
// and its hash are the same; what removing a full sink saves is building a
// Record for every event, which the engine skips when no full sink is left.
func (s *Sim) RemoveSink(sink Sink) {
	// New slices, not in place: a dispatch loop in progress keeps ranging
	// over the old ones.
	s.sinks = slices.DeleteFunc(slices.Clone(s.sinks), func(k Sink) bool { return k == sink })
	s.full = slices.DeleteFunc(slices.Clone(s.full), func(k Sink) bool { return k == sink })
	s.lean = slices.DeleteFunc(slices.Clone(s.lean), func(k LeanSink) bool { return Sink(k) == sink })
}

// Outcome returns how the last Run/RunUntil ended (0 before any).
func (s *Sim) Outcome() Outcome { return s.outcome }

// firstSeq splits the seq space: ordinary events take seqs above it, events
// handed over on Resume take seqs below it, so a resumed node works through
// its backlog before anything else due at the resume instant (arrival order).
const firstSeq = 1 << 62

// lateFirstSeq starts the band of late control events (AtLate), above every
// ordinary seq a run can reach.
const lateFirstSeq = 1 << 63

func (s *Sim) push(at Time, kind eventKind, node int16, ref int32) {
	s.seq++
	e := s.q.slot(at, s.seq)
	e.at, e.seq, e.ref, e.node, e.kind = at, s.seq, ref, node, kind
}

// At schedules fn to run at true time t (or now, if t is in the past). fn runs
// between node events and may use any Sim method. Scheduling the same func
// value repeatedly allocates nothing.
func (s *Sim) At(t Time, fn func()) {
	s.push(max(t, s.now), evControl, -1, s.control(fn))
}

// control stores fn in the control table and returns its slot.
func (s *Sim) control(fn func()) int32 {
	if n := len(s.freeCtl); n > 0 {
		ref := s.freeCtl[n-1]
		s.freeCtl = s.freeCtl[:n-1]
		s.controls[ref] = fn
		return ref
	}
	s.controls = append(s.controls, fn)
	return int32(len(s.controls) - 1)
}

// AtLate schedules fn like At, but after every event that is not itself
// late due at the same instant, whenever it was scheduled. Fault injectors
// use it so a fault at instant t runs after the nodes' own events at t
// whether it was scheduled before the run or during it — which is what lets
// a materialized fault schedule replay a run exactly.
func (s *Sim) AtLate(t Time, fn func()) {
	s.lateSeq++
	s.q.push(event{at: max(t, s.now), seq: s.lateSeq, kind: evControl, node: -1, ref: s.control(fn)})
}

// After schedules fn to run d from now.
func (s *Sim) After(d time.Duration, fn func()) { s.At(s.now.Add(d), fn) }

func (s *Sim) allocMsg() int32 {
	if n := len(s.freeMsgs); n > 0 {
		ref := s.freeMsgs[n-1]
		s.freeMsgs = s.freeMsgs[:n-1]
		return ref
	}
	// The slab grows only when every slot is in flight: the count to
	// bound is its length, checked off the hot path. The send that would
	// exceed it stops the handler there (a handler sending in a loop
	// would otherwise fill memory before the event ends); a handler that
	// swallows the panic gets no slot either, and the run stops after
	// the event.
	if uint64(len(s.msgs)) >= s.cfg.MaxInFlight {
		s.flooded, s.checkAt = true, 0
		panic(budgetStop(OutcomeInFlight))
	}
	s.msgs = append(s.msgs, msgSlot{})
	return int32(len(s.msgs) - 1)
}

func (s *Sim) freeMsg(ref int32) {
	s.msgs[ref].m.Body = nil
	s.freeMsgs = append(s.freeMsgs, ref)
}

// emit hashes s.rec and hands it to the sinks. Notes are annotations, not
// behaviour: they reach the sinks but not the hash, so a materialized
// scenario (whose notes name its faults differently) hashes the same.
// Protocol-state effects (FactProtocolState) and write lags
// (FactLeaseWriteLag) are observations of the same kind: an algorithm that
// starts declaring them hashes as before.
func (s *Sim) emit() {
	if s.rec.Type != RecNote && s.rec.Fact != FactProtocolState && s.rec.Fact != FactLeaseWriteLag {
		s.hash.record(&s.rec, s.kindHash[s.rec.Kind])
	}
	for _, k := range s.sinks {
		k.Record(&s.rec)
	}
}

// emitMsg records a delivery or drop. It hashes the fields directly and
// builds a Record only for sinks that want one (the hot path); the hash is
// the same either way.
func (s *Sim) emitMsg(t RecordType, why DropReason, m *Message, sentAt Time) {
	s.hash.message(t, why, m, s.now, sentAt, s.kindHash[m.Kind])
	for _, k := range s.lean {
		k.Message(t, why, m.Kind, m.To, m.From, m.Term, s.now, sentAt)
	}
	if len(s.full) == 0 {
		return
	}
	s.rec = Record{At: s.now, Type: t, Reason: why, Kind: m.Kind, Node: m.To, Peer: m.From, SentAt: sentAt, Epoch: m.Term}
	for _, k := range s.full {
		k.Record(&s.rec)
	}
}

// start starts every node that is not marked to start down.
func (s *Sim) start() {
	s.started = true
	s.hashKinds()
	for _, n := range s.nodes {
		if !n.startDown {
			n.boot(false)
		}
	}
}

// Run processes events until none is left (OutcomeQuiescent) or a budget is
// exhausted.
func (s *Sim) Run() Outcome {
	return s.run(Time(s.cfg.MaxTime), true)
}

// RunUntil processes every event due at or before t, then advances time to t
// (OutcomeHorizon), unless a budget stops it first. t beyond Config.MaxTime
// ends at MaxTime with OutcomeTimeBudget.
func (s *Sim) RunUntil(t Time) Outcome {
	if t > Time(s.cfg.MaxTime) {
		o := s.run(Time(s.cfg.MaxTime), false)
		if o == OutcomeHorizon {
			o = OutcomeTimeBudget
			s.outcome = o
		}
		return o
	}
	return s.run(t, false)
}

// RunFor is RunUntil(Now() + d).
func (s *Sim) RunFor(d time.Duration) Outcome { return s.RunUntil(s.now.Add(d)) }

// run is the event loop. Its deferred recover (one per call, nothing per
// event) turns a panic in any handler into OutcomeCrashed and a bound
// checked at a call (budgetStop) into its outcome; either way the run
// stops at that event.
func (s *Sim) run(limit Time, quiesce bool) (o Outcome) {
	if o := s.halted(); o == OutcomeCrashed || o == OutcomeTimers {
		s.outcome = o
		return o
	}
	defer s.recoverRun(&o)
	if s.cfg.Beat != nil {
		s.cfg.Beat.Store(int64(s.popped))
	}
	if !s.started {
		s.start()
	}
	for len(s.q.ev) > 0 {
		t := s.q.peekTime()
		if t > limit {
			break
		}
		// One compare per event covers every budget and Stop: checkAt is
		// the popped count at which the current window's allowance or the
		// absolute cap runs out (0 after Stop), winEnd when a new window
		// begins.
		if s.popped >= s.checkAt || t >= s.winEnd {
			if o, stop := s.budget(t); stop {
				return o
			}
		}
		e := &s.ev
		s.q.pop(e)
		s.popped++
		s.now = e.at
		switch e.kind {
		case evDeliver:
			s.deliver(e, true)
		case evTimer:
			s.fireTimer(e)
		default:
			s.dispatch(e)
		}
	}
	if o := s.halted(); o != 0 {
		s.outcome = o
		return o
	}
	if quiesce && len(s.q.ev) == 0 {
		s.outcome = OutcomeQuiescent
		return s.outcome
	}
	if s.now < limit {
		s.now = limit
	}
	if quiesce {
		s.outcome = OutcomeTimeBudget
	} else {
		s.outcome = OutcomeHorizon
	}
	return s.outcome
}

// End records the run's end in the trace with its outcome; call it once after
// the last Run so the trace (and hash) say how the run ended.
func (s *Sim) End() {
	if s.cfg.Guard != nil {
		s.cfg.Guard.Ended()
	}
	s.rec = Record{At: s.now, Type: RecEnd, Node: None, Peer: None, Detail: s.outcome.String(), A: int64(s.stats.Events)}
	s.emit()
}

func (s *Sim) dispatch(e *event) {
	switch e.kind {
	case evDeliver:
		s.deliver(e, true)
	case evTimer:
		s.fireTimer(e)
	case evDepart:
		s.depart(e)
	case evPersistDone:
		s.persistDone(e)
	case evControl:
		fn := s.controls[e.ref]
		s.controls[e.ref] = nil
		s.freeCtl = append(s.freeCtl, e.ref)
		s.stats.Controls++
		fn()
	case evLocal:
		s.deliver(e, false)
	case evResend:
		s.resend(e)
	}
}

// QueueLen returns the number of pending queue entries (for diagnostics).
func (s *Sim) QueueLen() int { return len(s.q.ev) }
