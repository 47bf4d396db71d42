package cron

import "github.com/electsim/electsim/sim"

// Message kinds of Celery mode between a beat and Redis. They are not
// the cron layer's (IsKind): RedBeat's lock is the election, so the
// checker counts its traffic as the election's. Field use:
//
//	RBSetup:     B=request, Index=the beat's now (wall ns); RedBeat's setup_schedule (entry.save: HSETNX meta
//	             with last_run_at = now for an entry Redis lacks) before the lock
//	RBAcquire:   A=lock token, B=request; redis-py Lock.do_acquire: SET lock token NX PX timeout
//	RBExtend:    A=lock token, B=request; RedBeat's LUA_EXTEND_TO_SCRIPT: PEXPIRE to the timeout if the token matches
//	RBRelease:   A=lock token; redis-py's LUA_RELEASE_SCRIPT
//	RBLoad:      B=request; RedBeatScheduler.schedule: ZRANGEBYSCORE of the schedule
//	RBFromKey:   A=job, B=request; RedBeatSchedulerEntry.from_key: HGET definition, meta
//	RBReserve:   A=job, Index=last_run_at (wall ns), B=request; _next_instance: HSET meta, ZADD
//	RBResp:      B=request, Flag=ok (acquired, extended, entry present), Term=fencing counter (acquire),
//	             Index=last_run_at (from_key; 0: never run), Body=[]int (load: the entries' jobs)
var (
	KindRBSetup   = sim.RegisterKind("redbeat.Setup", sim.Fields{Index: "now", B: "request"})
	KindRBAcquire = sim.RegisterKind("redbeat.Acquire", sim.Fields{A: "token", B: "request"})
	KindRBExtend  = sim.RegisterKind("redbeat.Extend", sim.Fields{A: "token", B: "request"})
	KindRBRelease = sim.RegisterKind("redbeat.Release", sim.Fields{A: "token"})
	KindRBLoad    = sim.RegisterKind("redbeat.Load", sim.Fields{B: "request"})
	KindRBFromKey = sim.RegisterKind("redbeat.FromKey", sim.Fields{A: "job", B: "request"})
	KindRBReserve = sim.RegisterKind("redbeat.Reserve", sim.Fields{A: "job", Index: "last_run_at", B: "request"})
	KindRBResp    = sim.RegisterKind("redbeat.Resp", sim.Fields{Term: "fence", Index: "last_run_at", B: "request", Flag: "ok"})
)
