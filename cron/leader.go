package cron

import (
	"fmt"
	"time"

	"github.com/electsim/electsim/sim"
)

// Node runs the cron layer on top of an election algorithm: it fires a due
// slot only while the algorithm says it acts as leader, stamping the run with
// the algorithm's fencing token. It wraps the algorithm's node, passing it
// every message and timer that is not the cron layer's, and watches its
// leadership through the engine's hook (sim.LeadershipHook) or, when the
// Env it is given cannot be hooked, through the Env it hands it.
type Node struct {
	inner sim.Node
	cfg   *Config
	env   leaderEnv
	ex    executor
}

// tenures is what watches an algorithm's leadership: the cron node and the
// queue-mode scheduler both start a tenure when it acts as leader and end
// it when it stops.
type tenures interface {
	lead(token int64)
	stopped()
}

// leaderEnv is the Env the wrapped algorithm sees when the engine's Env
// cannot be hooked (another layer hooked it, or wraps it): the real one,
// with the leadership observations intercepted. It also serves the cron
// layer's own reads of the Env.
type leaderEnv struct {
	sim.Env
	t tenures
}

func (le *leaderEnv) ActAsLeader(epoch, token int64) {
	le.Env.ActAsLeader(epoch, token)
	le.t.lead(token)
}

func (le *leaderEnv) StopLeading(why string) {
	le.Env.StopLeading(why)
	le.t.stopped()
}

// hook watches the algorithm's leadership through the engine
// (sim.LeadershipHook) when the Env can be hooked, so the algorithm gets
// the engine's Env itself and its every call costs no forwarding.
type hook struct{ t tenures }

func (h hook) Lead(_, token int64) { h.t.lead(token) }
func (h hook) StopLead(string)     { h.t.stopped() }

// Wrap returns a node running inner with the cron layer. cfg must have been
// validated and is shared, read-only, by every node.
func Wrap(inner sim.Node, cfg *Config) *Node {
	return &Node{inner: inner, cfg: cfg}
}

// Resign passes a graceful shutdown to the wrapped algorithm, if it has a
// Resign hook (lease candidates do).
func (n *Node) Resign() {
	if r, ok := n.inner.(interface{ Resign() }); ok {
		r.Resign()
	}
}

// Inner returns the wrapped algorithm node.
func (n *Node) Inner() sim.Node { return n.inner }

// Start implements sim.Node. The cron layer keeps nothing across a crash.
func (n *Node) Start(env sim.Env, restored []byte) {
	*n = Node{inner: n.inner, cfg: n.cfg}
	n.env = leaderEnv{Env: env, t: n}
	n.ex.onDue = n.due
	n.ex.start(n.cfg, env)
	n.env.startInner(n.inner, restored)
}

// startInner starts the wrapped algorithm with its leadership watched: by
// the engine's hook when the Env offers one (the algorithm then gets the
// engine's Env itself), else through le.
func (le *leaderEnv) startInner(inner sim.Node, restored []byte) {
	if h, ok := le.Env.(sim.LeadershipHooker); ok && h.HookLeadership(hook{le.t}) {
		inner.Start(le.Env, restored)
		return
	}
	inner.Start(le, restored)
}

// OnMessage implements sim.Node.
func (n *Node) OnMessage(m sim.Message) {
	if IsKind(m.Kind) {
		n.ex.onMessage(m)
		return
	}
	n.inner.OnMessage(m)
}

// OnTimer implements sim.Node.
func (n *Node) OnTimer(id sim.TimerID, tag int) {
	if tag >= n.cfg.TagBase {
		n.ex.onTimer(id, tag)
		return
	}
	n.inner.OnTimer(id, tag)
}

// due handles a slot that came due on this node's wall clock: only a node
// that believes it leads runs it.
func (n *Node) due(j int, slot int64, late time.Duration, last bool) {
	e := &n.ex
	if !e.leading || e.hasStarted(j, slot) {
		return
	}
	if e.shouldRun(j, slot, late, last) {
		e.startRun(j, slot, e.token, late)
	}
}

// stopped ends a tenure (every StopLeading, leading or not).
func (n *Node) stopped() {
	n.ex.leading = false
	n.ex.tenure++
}

// lead starts a tenure: the new leader asks the resource which recent slots
// completed, to recover the ones missed during failover.
func (n *Node) lead(token int64) {
	e := &n.ex
	e.leading, e.token = true, token
	e.tenure++
	// Re-read the schedule from the wall clock as it reads now: a follower
	// may have passed over a slot while its clock ran ahead and then been
	// stepped back, leaving a slot that is not yet due by its clock but
	// behind its schedule. Slots already due are the recovery's below;
	// e.started keeps this node from running any slot twice.
	e.rearmFromNow()
	now := n.env.WallNanos()
	from := now - int64(n.cfg.Misfire.Lookback)
	if !n.cfg.NotBefore.IsZero() && from < n.cfg.NotBefore.UnixNano() {
		from = n.cfg.NotBefore.UnixNano()
	}
	for j := range n.cfg.Jobs {
		// The tenure comes back with the answer, so an answer to an older
		// tenure is ignored.
		e.write(query{Tenure: e.tenure, FromSlot: from, Job: j, ToSlot: now}.message(KindQuery, n.cfg.Resource, nil))
	}
}

// recover handles the resource's answer: slots due in the window that are
// not complete are missed, and the misfire policy says which of them run
// now. That includes a slot this node ran in an earlier tenure whose writes
// were rejected (a stale token) or given up: this tenure's token is new, and
// the slot-keyed policies recover every incomplete slot, whoever ran it.
// Left alone are the slots this node is still running or still waiting to
// hear about (inDoubt: asked about again once they are not, settleDoubts),
// and, under Quartz, every slot this node fired.
func (e *executor) recover(m sim.Message) {
	q := queryOf(&m)
	if !e.leading || q.Tenure != e.tenure {
		return
	}
	j := q.Job
	if j < 0 || j >= len(e.cfg.Jobs) {
		return
	}
	ans, _ := m.Body.(*QueryAnswer)
	if ans == nil {
		ans = &QueryAnswer{}
	}
	done := ans.Done
	now := e.env.WallNanos()
	to := q.ToSlot
	if to > now {
		// The wall clock was stepped back since the query: the slots in
		// (now, ToSlot] are not due by it yet, and lead read the schedule
		// past them. Read it again from now, so they run when they come
		// due (TestRecoveryAnswerAfterClockStepBackKeepsTheSlot).
		to = now
		e.rearmJobFromNow(j)
	}
	var missed []int64
	for _, t := range SlotsBetween(e.cfg.Jobs[j].sched, time.Unix(0, q.FromSlot).UTC(), time.Unix(0, to).UTC()) {
		s := t.UnixNano()
		if contains(done, s) || s >= e.jobs[j].next {
			continue
		}
		if e.inDoubt(j, s) {
			e.deferred = append(e.deferred, deferredSlot{job: j, slot: s, tenure: e.tenure})
			continue
		}
		if e.hasStarted(j, s) && e.cfg.Misfire.Policy == MisfireQuartz {
			continue // Quartz re-fires only a failed node's trigger (clusterRecover), not its own
		}
		if e.cfg.Misfire.Policy == MisfireQuartz && contains(ans.Fired, s) {
			// Fired by another node and not complete: clusterRecover
			// re-fires it only if the job requests recovery, with its
			// original scheduled time.
			if e.cfg.Jobs[j].RequestsRecovery {
				e.env.Effect(sim.Effect{Name: "cron.recovered",
					Detail: fmt.Sprintf("%s was in progress on a failed node; the job requests recovery, run now with its original scheduled time", SlotName(e.cfg.Jobs[j].Name, s)),
					A:      e.token, B: s, C: int64(j)})
				e.startRun(j, s, e.token, 0)
			} else {
				e.missed(j, s, "in progress on another node when this one took over; the job does not request recovery (Quartz clusterRecover)")
			}
			continue
		}
		missed = append(missed, s)
	}
	for i, s := range missed {
		late := time.Duration(now - s)
		if e.shouldRun(j, s, late, i == len(missed)-1) {
			e.env.Effect(sim.Effect{Name: "cron.recovered",
				Detail: fmt.Sprintf("%s missed during failover, run now (%v late, policy %s)", SlotName(e.cfg.Jobs[j].Name, s), late.Round(time.Millisecond), e.cfg.Misfire.Policy),
				A:      e.token, B: s, C: int64(j)})
			e.startRun(j, s, e.token, late)
		}
	}
}

// inDoubt reports whether this node has a run of the slot still going, or
// a write or claim of it still unanswered: rerunning it now would race its
// own run.
func (e *executor) inDoubt(j int, slot int64) bool {
	for i := range e.runs {
		if r := &e.runs[i]; r.active && r.job == j && r.slot == slot {
			return true
		}
	}
	for i := range e.unacked {
		w := &e.unacked[i]
		if !w.live {
			continue
		}
		switch w.msg.Kind {
		case KindWrite:
			wr := writeReqOf(&w.msg)
			if job, _ := unpackJobStep(wr.JobStep); job == j && wr.Slot == slot {
				return true
			}
		case KindClaim:
			if c := claimReqOf(&w.msg); c.Job == j && c.Slot == slot {
				return true
			}
		}
	}
	return false
}

func contains(sorted []int64, v int64) bool {
	lo, hi := 0, len(sorted)
	for lo < hi {
		m := (lo + hi) / 2
		if sorted[m] < v {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo < len(sorted) && sorted[lo] == v
}
