package cron

import (
	"slices"

	"github.com/electsim/electsim/sim"
)

// Message kinds of the cron layer; their fields are registered by name
// (sim.Fields). Field use:
//
//	Write:     Term=token, Index=slot (Unix ns), A=job<<32|step, B=run ID
//	WriteResp: as Write, Flag=accepted
//	Claim:     Term=token, Index=slot, A=job<<32, B=run ID
//	ClaimResp: as Claim, Flag=won
//	Query:     A=job<<32, Index=from slot (exclusive), B=to slot (inclusive)
//	QueryResp: A=job<<32, Index/B as asked, Body=[]int64 completed slots, ascending
var (
	KindWrite     = sim.RegisterKind("cron.Write", sim.Fields{Term: "token", Index: "slot", A: "job_step", B: "run"})
	KindWriteResp = sim.RegisterKind("cron.WriteResp", sim.Fields{Term: "token", Index: "slot", A: "job_step", B: "run", Flag: "accepted"})
	KindClaim     = sim.RegisterKind("cron.Claim", sim.Fields{Term: "token", Index: "slot", A: "job", B: "run"})
	KindClaimResp = sim.RegisterKind("cron.ClaimResp", sim.Fields{Term: "token", Index: "slot", A: "job", B: "run", Flag: "won"})
	KindQuery     = sim.RegisterKind("cron.Query", sim.Fields{Term: "tenure", Index: "from_slot", A: "job", B: "to_slot"})
	KindQueryResp = sim.RegisterKind("cron.QueryResp", sim.Fields{Term: "tenure", Index: "from_slot", A: "job", B: "to_slot"})
)

// cronKinds marks the kinds above, for IsKind: one load where six
// comparisons of package variables were, on every message of a run.
var cronKinds = func() (t [sim.MaxKinds]bool) {
	for _, k := range slices.Concat([]sim.MsgKind{KindWrite, KindWriteResp, KindClaim, KindClaimResp, KindQuery, KindQueryResp}, queueKinds, kubeKinds) {
		t[k] = true
	}
	return t
}()

// IsKind reports whether k is one of the cron layer's message kinds (the
// checker leaves them out of an election's message counts).
func IsKind(k sim.MsgKind) bool { return int(k) < len(cronKinds) && cronKinds[k] }

func packJobStep(job, step int) int64 { return int64(job)<<32 | int64(uint32(step)) }

func unpackJobStep(a int64) (job, step int) { return int(a >> 32), int(uint32(a)) }

// FireTime is the body of a write or claim whose run's scheduled fire time
// (what the job sees, and what an application keys idempotency on) differs
// from the slot it runs: Unix ns. Without it the fire time is the slot.
type FireTime int64

// QueryAnswer is the body of a KindQueryResp: the job's slots in the
// queried window that are complete (last step applied) and those that were
// fired — some write or claim of theirs reached the resource — but are not
// complete (Quartz's fired-trigger rows of a run in progress), both sorted.
type QueryAnswer struct {
	Done  []int64
	Fired []int64
}
