package cron

import "github.com/electsim/electsim/sim"

// Colocated is a candidate that is also a worker (QueueConfig.Colocated):
// a scheduler wrapping the election algorithm, and a worker taking
// messages from the queue, in one process — so a crash or pause of the
// node takes both, and the leader may run the job it scheduled. Timer tags
// and messages go to the part they belong to.
type Colocated struct {
	s *Scheduler
	w *Worker
}

// NewColocated returns a candidate running inner, its scheduler and a worker.
func NewColocated(inner sim.Node, cfg *Config) *Colocated {
	return &Colocated{s: NewScheduler(inner, cfg), w: NewWorker(cfg)}
}

// Busy reports whether the node's worker runs an execution.
func (c *Colocated) Busy() bool { return c.w.Busy() }

// Scheduler returns the node's scheduler part.
func (c *Colocated) Scheduler() *Scheduler { return c.s }

// Worker returns the node's worker part.
func (c *Colocated) Worker() *Worker { return c.w }

// Inner returns the wrapped algorithm node.
func (c *Colocated) Inner() sim.Node { return c.s.inner }

// Resign passes a graceful shutdown to the wrapped algorithm.
func (c *Colocated) Resign() { c.s.Resign() }

// Start implements sim.Node.
func (c *Colocated) Start(env sim.Env, restored []byte) {
	c.s.Start(env, restored)
	c.w.Start(env, nil)
}

// OnMessage implements sim.Node.
func (c *Colocated) OnMessage(m sim.Message) {
	switch m.Kind {
	case KindDeliver, KindWriteResp, KindClaimResp, KindQueryResp, KindExecClaimResp:
		c.w.OnMessage(m)
	default:
		c.s.OnMessage(m)
	}
}

// OnTimer implements sim.Node: the scheduler's slot timers and requests,
// the worker's runs, write retries, polls, heartbeats and timeouts.
func (c *Colocated) OnTimer(id sim.TimerID, tag int) {
	rel := tag - c.s.cfg.TagBase
	switch {
	case tag < c.s.cfg.TagBase, rel < tagRun, rel >= tagSchedReap:
		c.s.OnTimer(id, tag)
	default:
		c.w.OnTimer(id, tag)
	}
}

// TimerName implements sim.TimerNamer.
func (c *Colocated) TimerName(tag int) string {
	rel := tag - c.s.cfg.TagBase
	if tag < c.s.cfg.TagBase || rel < tagRun || rel >= tagSchedReap {
		return c.s.TimerName(tag)
	}
	return c.w.TimerName(tag)
}
