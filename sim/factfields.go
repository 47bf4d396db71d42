package sim

import "time"

// The numeric arguments of a record, read by name. Record.A, B and C are
// positional so that the hot loop moves three integers and nothing else; what
// they mean depends on the record's Type and Fact (the tables in trace.go and
// facts.go). Code that judges or draws a run reads them through the accessors
// below, one per fact family, so "execution A of slot B of job index C" is
// written once, here, beside the fact table, and reads as words everywhere
// else. An accessor does not check the record's Fact: the caller has already
// switched on it.

// LeaseFields are a lease service's effect's arguments (FactLeaseAcquired,
// FactLeaseRenewed, FactLeaseReleased, FactLeaseExpired).
type LeaseFields struct {
	// Holder is the node the lease concerns.
	Holder NodeID
	// Token is the lease's fencing token (its acquisition number).
	Token int64
}

// Lease reads a lease service's effect (A = holder, B = token).
func (r *Record) Lease() LeaseFields {
	return LeaseFields{Holder: NodeID(r.A), Token: r.B}
}

// SlotRef names one scheduled slot of one cron job: the part the run and
// execution facts share (B = slot, C = job index).
type SlotRef struct {
	// Slot is the scheduled slot's number within its job.
	Slot int64
	// Job is the job's index in the cron configuration.
	Job int
}

func (r *Record) slotRef() SlotRef { return SlotRef{Slot: r.B, Job: int(r.C)} }

// effect is the Effect stating a (the family's own first argument) of s.
func (s SlotRef) effect(name, detail string, a int64, fact Fact) Effect {
	return Effect{Name: name, Detail: detail, A: a, B: s.Slot, C: int64(s.Job), Fact: fact}
}

// RunFields are a cron node's run effect's arguments (FactRunStarted,
// FactRunSkipped, FactRunFinished).
type RunFields struct {
	// Token is the fencing token the run carries (0 on FactRunSkipped).
	Token int64
	SlotRef
}

// Run reads a cron node's run effect (A = token, B = slot, C = job index).
func (r *Record) Run() RunFields { return RunFields{Token: r.A, SlotRef: r.slotRef()} }

// RunEffect is the Effect that states f with fact (one of the run facts).
func (f RunFields) RunEffect(name, detail string, fact Fact) Effect {
	return f.SlotRef.effect(name, detail, f.Token, fact)
}

// ExecFields are a queue-mode execution's effect's arguments (FactExecCreated
// through FactExecAcked).
type ExecFields struct {
	// Exec is the execution's id (the store's, or a worker's run number on
	// FactExecStarted, FactExecCompleted and FactExecFailed).
	Exec int64
	SlotRef
}

// Exec reads an execution's effect (A = execution, B = slot, C = job index).
func (r *Record) Exec() ExecFields { return ExecFields{Exec: r.A, SlotRef: r.slotRef()} }

// ExecEffect is the Effect that states f with fact (one of the exec facts).
func (f ExecFields) ExecEffect(name, detail string, fact Fact) Effect {
	return f.SlotRef.effect(name, detail, f.Exec, fact)
}

// StateFields are a protocol-state effect's arguments (FactProtocolState).
type StateFields struct {
	// State is the state's number among those the algorithm (and past them
	// its cron mode) declares.
	State int64
	// Epoch is the node's epoch (a term) when the state has one.
	Epoch int64
}

// ProtocolState reads a protocol-state effect (A = state, B = epoch).
func (r *Record) ProtocolState() StateFields {
	return StateFields{State: r.A, Epoch: r.B}
}

// StateEffect is the Effect that states f (FactProtocolState).
func (f StateFields) StateEffect(name string) Effect {
	return Effect{Name: name, A: f.State, B: f.Epoch, Fact: FactProtocolState}
}

// WriteLag reads a FactLeaseWriteLag effect: how much older than its success
// the time the write carried was (B, in nanoseconds).
func (r *Record) WriteLag() time.Duration {
	return time.Duration(r.B)
}

// Restarted reads a RecStart: true when the node started again after a
// crash (A = 1), false on its first start.
func (r *Record) Restarted() bool {
	return r.A == 1
}

// PersistFields are a RecPersist's arguments.
type PersistFields struct {
	// Bytes is the write's size.
	Bytes int64
	// Durable is when the write becomes durable.
	Durable Time
}

// Persist reads a RecPersist (A = bytes, B = durable time).
func (r *Record) Persist() PersistFields {
	return PersistFields{Bytes: r.A, Durable: Time(r.B)}
}

// TimerFields are a RecTimer's arguments.
type TimerFields struct {
	// Tag is the node's tag for the timer (its kind, named by the
	// algorithm's timer names).
	Tag int
	// ID is the armed timer's identity.
	ID TimerID
}

// Timer reads a RecTimer (A = tag, B = timer id).
func (r *Record) Timer() TimerFields {
	return TimerFields{Tag: int(r.A), ID: TimerID(r.B)}
}
