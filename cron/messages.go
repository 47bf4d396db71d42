package cron

import "github.com/electsim/electsim/sim"

// Message kinds of the cron layer. Field use:
//
//	Write:     Term=token, Index=slot (Unix ns), A=job<<32|step, B=run ID
//	WriteResp: as Write, Flag=accepted
//	Claim:     Term=token, Index=slot, A=job<<32, B=run ID
//	ClaimResp: as Claim, Flag=won
//	Query:     A=job<<32, Index=from slot (exclusive), B=to slot (inclusive)
//	QueryResp: A=job<<32, Index/B as asked, Body=[]int64 completed slots, ascending
var (
	KindWrite     = sim.RegisterKind("cron.Write")
	KindWriteResp = sim.RegisterKind("cron.WriteResp")
	KindClaim     = sim.RegisterKind("cron.Claim")
	KindClaimResp = sim.RegisterKind("cron.ClaimResp")
	KindQuery     = sim.RegisterKind("cron.Query")
	KindQueryResp = sim.RegisterKind("cron.QueryResp")
)

func isCronKind(k sim.MsgKind) bool {
	return k == KindWrite || k == KindWriteResp || k == KindClaim || k == KindClaimResp ||
		k == KindQuery || k == KindQueryResp
}

func packJobStep(job, step int) int64 { return int64(job)<<32 | int64(uint32(step)) }

func unpackJobStep(a int64) (job, step int) { return int(a >> 32), int(uint32(a)) }
