package cron

import "github.com/electsim/electsim/sim"

// The messages between executors and the resource, as payloads with named
// fields. They ride in sim.Message's value fields (no allocation per
// message; a Quartz catch-up run's FireTime and a query's answer are the
// Body); the kinds' sim.Fields name those slots after these fields
// (TestPayloadsNameTheirFields).

// writeReq is one side-effect write of a run: the run's fencing token, the
// slot it stands for, its job and step packed into one value
// (packJobStep), and the run's ID (unique per node).
type writeReq struct {
	Token   int64
	Slot    int64
	JobStep int64
	Run     int64
}

func (p writeReq) message(to sim.NodeID, fire any) sim.Message {
	return sim.Message{Kind: KindWrite, To: to, Term: p.Token, Index: p.Slot, A: p.JobStep, B: p.Run, Body: fire}
}

func writeReqOf(m *sim.Message) writeReq {
	return writeReq{Token: m.Term, Slot: m.Index, JobStep: m.A, Run: m.B}
}

// writeResp answers a write: the request's fields and whether it applied.
type writeResp struct {
	Token    int64
	Slot     int64
	JobStep  int64
	Run      int64
	Accepted bool
}

func (p writeResp) message(to sim.NodeID) sim.Message {
	return sim.Message{Kind: KindWriteResp, To: to, Term: p.Token, Index: p.Slot, A: p.JobStep, B: p.Run, Flag: p.Accepted}
}

// claimReq claims a slot for a run (policy claim): token, slot, job, run.
type claimReq struct {
	Token int64
	Slot  int64
	Job   int
	Run   int64
}

func (p claimReq) message(to sim.NodeID, fire any) sim.Message {
	return sim.Message{Kind: KindClaim, To: to, Term: p.Token, Index: p.Slot, A: int64(p.Job), B: p.Run, Body: fire}
}

func claimReqOf(m *sim.Message) claimReq {
	return claimReq{Token: m.Term, Slot: m.Index, Job: int(m.A), Run: m.B}
}

// claimResp answers a claim: the request's fields and whether it won.
type claimResp struct {
	Token int64
	Slot  int64
	Job   int
	Run   int64
	Won   bool
}

func (p claimResp) message(to sim.NodeID) sim.Message {
	return sim.Message{Kind: KindClaimResp, To: to, Term: p.Token, Index: p.Slot, A: int64(p.Job), B: p.Run, Flag: p.Won}
}

func claimRespOf(m *sim.Message) claimResp {
	return claimResp{Token: m.Term, Slot: m.Index, Job: int(m.A), Run: m.B, Won: m.Flag}
}

// query asks which of a job's slots in (FromSlot, ToSlot] completed or were
// fired; Tenure lets a new leader ignore answers to an older tenure. The
// answer (KindQueryResp) echoes it, with a *QueryAnswer as its Body.
type query struct {
	Tenure   int64
	FromSlot int64
	Job      int
	ToSlot   int64
}

func (p query) message(kind sim.MsgKind, to sim.NodeID, answer any) sim.Message {
	return sim.Message{Kind: kind, To: to, Term: p.Tenure, Index: p.FromSlot, A: int64(p.Job), B: p.ToSlot, Body: answer}
}

func queryOf(m *sim.Message) query {
	return query{Tenure: m.Term, FromSlot: m.Index, Job: int(m.A), ToSlot: m.B}
}
