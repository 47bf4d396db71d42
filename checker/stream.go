package checker

import (
	"sort"

	"github.com/electsim/electsim/cron"
	"github.com/electsim/electsim/sim"
)

// Checker is the streaming checker: a sim.Sink that judges a run as its
// records happen. It keeps live state (who leads, who is up, which links are
// cut, the open failover) and what it will report (tenures, pauses, crashes,
// recognition spans, failovers), never the records themselves, so its
// memory does not grow with the length of the run but only with what it
// finds. It is the one implementation of every check; Run feeds it a
// recorded trace.
//
// Explanations (the narrative of each violation) and porcupine's
// visualization annotations need the run's story: with Input.KeepStory the
// checker also keeps the records a story tells (lifecycle, leadership,
// faults, notes, effects; never messages, timers or disk writes). Sweeps
// leave it off and re-run the runs they explain, which is exact because
// runs are deterministic (docs/checkers.md, "Streaming and replay").
type Checker struct {
	c   *checker
	rp  *replayer
	seq int64 // ordinal of the next record
	// Online detection for Input.OnViolation.
	epochLeader map[int64]sim.NodeID // lookups only: the first leader of each epoch
	openSince   sim.Time             // when two or more tenures became open, -1 if not
	told        [2]bool              // election_safety, split_brain reported
}

// New returns a streaming checker for a run described by in. in.Records is
// ignored; in.Candidates is required (the majority that recognises a
// leader must be known before the first record). Subscribe it with
// sim.AddSink before the run, and call Finish after sim.End.
func New(in Input) *Checker {
	c := &checker{in: in.withDefaults()}
	c.faults = newFaultSpans(c.in.Standing)
	c.stab = stabilityFor(c.in.Contract)
	c.tl = &timeline{}
	ck := &Checker{c: c, openSince: -1}
	ck.rp = newReplayer(&c.in, c.tl)
	if c.in.Exec != nil {
		c.exec = newExecState(&c.in)
	}
	if in.OnViolation != nil {
		ck.epochLeader = map[int64]sim.NodeID{}
	}
	return ck
}

// Record implements sim.Sink.
func (k *Checker) Record(r *sim.Record) {
	seq := k.seq
	k.seq++
	c := k.c
	c.tl.end = r.At
	switch r.Type {
	case sim.RecDeliver, sim.RecDrop:
		k.seq--
		k.Message(r.Type, r.Reason, r.Kind, r.Node, r.Peer, r.Epoch, r.At, r.SentAt)
		return
	case sim.RecTimer, sim.RecPersist, sim.RecPersistDone:
		return
	}
	if m := max(int(r.Node), int(r.Peer)) + 1; m > len(k.rp.leading) {
		k.rp.grow(m)
	}
	c.faults.observe(r)
	if c.stab != nil {
		c.stab.observe(r, c.in.Candidates)
	}
	if c.exec != nil {
		c.exec.observe(r)
	}
	if c.in.KeepStory && toldInStories(r) {
		c.keep(seq, r)
	}
	if c.in.OnViolation != nil {
		k.overlappedUntil(r.At)
	}
	if r.Type != sim.RecNote {
		c.tl.add(seq, r)
		k.rp.step(seq, r)
	}
	if c.in.OnViolation != nil {
		k.online(r)
	}
}

// online reports the violations decidable as the records stream by.
func (k *Checker) online(r *sim.Record) {
	if k.told[0] && k.told[1] {
		return // both told: nothing left to decide online
	}
	c := k.c
	if r.Type == sim.RecLead {
		if first, ok := k.epochLeader[r.Epoch]; !ok {
			k.epochLeader[r.Epoch] = r.Node
		} else if first != r.Node && !k.told[0] {
			k.told[0] = true
			c.in.OnViolation(CheckElectionSafety)
		}
	}
	open := 0
	for _, t := range c.tl.openT {
		if t >= 0 {
			open++
		}
	}
	switch {
	case open < 2:
		k.openSince = -1
	case k.openSince < 0:
		k.openSince = r.At
	}
}

// overlappedUntil reports split_brain when two or more tenures have been
// open from openSince up to a record at at, a positive time (tenures that
// only touch do not count). It runs before the record is applied: the
// record that ends the overlap (a step-down) must still see it.
func (k *Checker) overlappedUntil(at sim.Time) {
	if k.openSince >= 0 && at > k.openSince && !k.told[1] {
		k.told[1] = true
		k.c.in.OnViolation(CheckSplitBrain)
	}
}

// Message implements sim.LeanSink: the checker needs a delivery's or
// drop's kind, ends, term and times, never a Record (so the engine builds
// none for it on the hot path), and no timer records.
func (k *Checker) Message(t sim.RecordType, why sim.DropReason, kind sim.MsgKind, to, from sim.NodeID, term int64, at, sentAt sim.Time) {
	k.seq++
	c := k.c
	c.tl.end = at
	c.faults.used.mark(from, to)
	if why == sim.DropLoss {
		c.faults.lost.mark(from, at)
		c.faults.lost.mark(to, at)
	}
	if t == sim.RecDeliver && kind == cron.KindWrite {
		c.writeSends = append(c.writeSends, writeSend{at: at, from: from, token: term, sentAt: sentAt})
	}
	if !cron.IsKind(kind) {
		k.countMessage(kind, sentAt)
	}
}

// countMessage adds an election message (delivered or lost) to the
// failover during which it was sent. Failovers do not overlap; the open one
// has no end yet.
func (k *Checker) countMessage(kind sim.MsgKind, sentAt sim.Time) {
	fos := k.rp.out.failovers
	if fo := k.rp.fo; fo != nil && fo.f.FaultAt <= sentAt {
		if len(fos) == 0 || fos[len(fos)-1].LeaderAt < sentAt {
			fo.counts.add(kind)
			return
		}
	}
	if len(fos) == 0 || sentAt > fos[len(fos)-1].LeaderAt {
		return
	}
	i := sort.Search(len(fos), func(i int) bool { return fos[i].LeaderAt >= sentAt })
	if i < len(fos) && fos[i].FaultAt <= sentAt {
		k.rp.out.counts[i].add(kind)
	}
}

// Input returns the checker's input, so that what is known only after the
// run (SettleStart, SettleBound, FaultEnd, Policy, Jobs, CronFrom, CronTo)
// can be set before Finish. Fields the checker uses while records stream
// (Candidates, LeaseStore, Names, KeepStory) must not change.
func (k *Checker) Input() *Input { return &k.c.in }

// Story returns a copy of the kept story records (nil without
// Input.KeepStory): lifecycle, leadership, faults, notes and effects, in
// trace order.
func (k *Checker) Story() []sim.Record {
	if len(k.c.kept) == 0 {
		return nil
	}
	out := make([]sim.Record, len(k.c.kept))
	for i := range k.c.kept {
		out[i] = k.c.kept[i].r
	}
	return out
}

// Finish judges the run. resource is the fenced resource's log
// (cron.Resource.Log; nil without a resource). The Checker must not be
// used after.
func (k *Checker) Finish(resource []cron.LogEntry) Report {
	c := k.c
	c.in.Resource = resource
	k.rp.finish()
	c.tl.finish()
	c.rp = k.rp.out
	return c.run()
}

// toldInStories reports whether a record can appear in an explanation, a
// porcupine annotation or the leadership timeline: lifecycle, leadership,
// faults and notes, and the effects with a typed fact a story tells (lease
// hand-overs and service availability, cron run starts and skips). Beliefs
// and the other effects (renewals, resource decisions: the log tells those)
// are left out, so a long run's story stays small.
func toldInStories(r *sim.Record) bool {
	switch r.Type {
	case sim.RecBelieve:
		return false
	case sim.RecEffect:
		switch r.Fact {
		case sim.FactLeaseAcquired, sim.FactLeaseExpired, sim.FactLeaseReleased, sim.FactLeaseReverted,
			sim.FactServiceDown, sim.FactServiceUp, sim.FactRunStarted, sim.FactRunSkipped,
			sim.FactExecStarted, sim.FactExecRedelivered, sim.FactExecDead, sim.FactExecCompleted, sim.FactExecFailed, sim.FactExecAcked:
			return true
		}
		return false
	}
	return true
}

// MaxStoryFaults bounds the fault-driven records (faults, notes, pauses,
// resumes, crashes and starts) a story keeps: a run with a fault every
// millisecond would otherwise keep three or more records per fault, tens of
// MB an hour of simulated time. Past it the story keeps only the other
// records (leadership, effects), and StoryDropped counts what it left out
// (docs/output.md, "Limits").
const MaxStoryFaults = 20_000

// MaxStoryRecords bounds the other records a story keeps (leadership
// changes, lease hand-overs, service availability, cron run starts and
// skips): a month of simulated time with a leader change every second
// would otherwise keep millions. Past it the story keeps none of them, and
// StoryDropped counts them too (docs/output.md, "Limits").
const MaxStoryRecords = 100_000

// faultDriven reports whether a story record is one a fault makes (and so
// one MaxStoryFaults counts).
func faultDriven(r *sim.Record) bool {
	switch r.Type {
	case sim.RecFault, sim.RecNote, sim.RecPause, sim.RecResume, sim.RecCrash, sim.RecStart:
		return true
	}
	return false
}

// keep adds r to the story, without its changed links (the replay reads
// them as the record streams by; the story's readers do not), unless it is
// a fault-driven record past MaxStoryFaults.
func (c *checker) keep(seq int64, r *sim.Record) {
	if faultDriven(r) {
		if c.keptFaults >= MaxStoryFaults {
			c.storyDropped++
			return
		}
		c.keptFaults++
	} else if len(c.kept)-c.keptFaults >= MaxStoryRecords {
		c.storyDropped++
		return
	}
	c.kept = append(c.kept, storyRec{seq: seq, r: *r})
	c.kept[len(c.kept)-1].r.Links = nil
}

// StoryDropped returns how many records the story left out past
// MaxStoryFaults and MaxStoryRecords (0 without Input.KeepStory).
func (k *Checker) StoryDropped() int { return k.c.storyDropped }

// storyRec is a kept record and its ordinal in the trace.
type storyRec struct {
	seq int64
	r   sim.Record
}

// writeSend is the delivery of a write message to the resource.
type writeSend struct {
	at     sim.Time
	from   sim.NodeID
	token  int64
	sentAt sim.Time
}
