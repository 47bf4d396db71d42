package cron

import "github.com/electsim/electsim/sim"

// Message kinds of queue mode. Field use:
//
//	ExecCreate:     Term=token, Index=slot, A=job, B=request; the scheduler asks the store for an execution of a slot
//	ExecCreateResp: as ExecCreate, Body=*ExecTicket (nil: nothing to enqueue)
//	ExecReap:       Term=token, B=request; the leader asks for dead executions
//	ExecReapResp:   as ExecReap, Body=[]ExecTicket to enqueue again
//	ExecBeat:       A=execution, B=worker run; a worker's heartbeat
//	ExecDone:       A=execution, B=worker run, Index=status (execDone*)
//	ExecClaim:      A=execution, B=request; a worker's claim_execution before it runs a message
//	ExecClaimResp:  as ExecClaim, Flag=claimed
//	Enqueue:        A=execution, B=request, Body=*QueueMsg
//	EnqueueResp:    A=execution, B=request
//	Receive:        B=poll; an idle worker asks for a message
//	Deliver:        B=poll, A=receipt, Body=*QueueMsg (nil: queue empty)
//	Ack:            A=receipt; deletes the message
var (
	KindExecCreate     = sim.RegisterKind("cron.ExecCreate", sim.Fields{Term: "token", Index: "slot", A: "job", B: "request"})
	KindExecCreateResp = sim.RegisterKind("cron.ExecCreateResp", sim.Fields{Term: "token", Index: "slot", A: "job", B: "request"})
	KindExecReap       = sim.RegisterKind("cron.ExecReap", sim.Fields{Term: "token", B: "request"})
	KindExecReapResp   = sim.RegisterKind("cron.ExecReapResp", sim.Fields{Term: "token", B: "request"})
	KindExecBeat       = sim.RegisterKind("cron.ExecBeat", sim.Fields{A: "execution", B: "run"})
	KindExecDone       = sim.RegisterKind("cron.ExecDone", sim.Fields{Index: "status", A: "execution", B: "run"})
	KindExecClaim      = sim.RegisterKind("cron.ExecClaim", sim.Fields{A: "execution", B: "request"})
	KindExecClaimResp  = sim.RegisterKind("cron.ExecClaimResp", sim.Fields{A: "execution", B: "request", Flag: "claimed"})
	KindEnqueue        = sim.RegisterKind("cron.Enqueue", sim.Fields{A: "execution", B: "request"})
	KindEnqueueResp    = sim.RegisterKind("cron.EnqueueResp", sim.Fields{A: "execution", B: "request"})
	KindReceive        = sim.RegisterKind("cron.Receive", sim.Fields{B: "poll"})
	KindDeliver        = sim.RegisterKind("cron.Deliver", sim.Fields{A: "receipt", B: "poll"})
	KindAck            = sim.RegisterKind("cron.Ack", sim.Fields{A: "receipt"})
)

// queueKinds are queue mode's kinds; IsKind counts them as the cron layer's.
var queueKinds = []sim.MsgKind{KindExecCreate, KindExecCreateResp, KindExecReap, KindExecReapResp, KindExecBeat,
	KindExecDone, KindExecClaim, KindExecClaimResp, KindEnqueue, KindEnqueueResp, KindReceive, KindDeliver, KindAck}

// Statuses a worker reports in an ExecDone.
const (
	execDoneCompleted = 1
	execDoneFailed    = 2
	execDoneDead      = 3
)

// ExecTicket is an execution the scheduler must enqueue: its ID at the
// store, its slot and job, the token it runs with and its attempt number
// (1 for the first).
type ExecTicket struct {
	Exec    int64
	Job     int
	Slot    int64
	Token   int64
	Attempt int
}

// QueueMsg is a queue message: the execution to run and, on Enqueue, how
// long it stays invisible first (a retry's backoff).
type QueueMsg struct {
	ExecTicket
	Delay int64 // ns
}
