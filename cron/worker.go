package cron

import (
	"fmt"

	"github.com/electsim/electsim/sim"
)

// Timer tags of queue mode, relative to Config.TagBase, above the
// executor's.
const (
	tagQueue      = 8 << 20
	tagWorkerPoll = tagQueue + 0
	tagWorkerBeat = tagQueue + 1
	tagWorkerTime = tagQueue + 2
	tagSchedReap  = tagQueue + 3
	tagSchedReq   = tagQueue + 4 // + request index
)

// WorkerStats count what one worker did, for reports: messages taken,
// heartbeats sent, acknowledgements sent, runs completed and failed.
type WorkerStats struct {
	Taken, Heartbeats, Acked, Completed, Failed int
}

// Worker is a queue-mode worker node: it takes one message at a time from
// the queue, heartbeats the execution at the store every Heartbeat while
// it runs, makes the job's writes to the fenced resource with the
// execution's token (the scheduler's leadership token) through the same
// executor as a leader-driven run, and acknowledges the message (on
// receipt, or on completion with AckLate). A worker paused past the
// visibility timeout resumes and keeps writing.
type Worker struct {
	cfg     *Config
	env     sim.Env
	ex      executor
	busy    bool
	cur     QueueMsg
	receipt int64
	run     int64 // the executor's run ID of the current execution
	poll    int64 // sequence of the outstanding Receive
	// claiming: the current message's claim is in flight (request claim).
	claiming bool
	claim    int64
	timers   [3]sim.TimerID
	// Stats are this incarnation's counts.
	Stats WorkerStats
}

// NewWorker returns a worker for the validated cfg.
func NewWorker(cfg *Config) *Worker { return &Worker{cfg: cfg} }

// Busy reports whether the worker is running an execution (the busy_worker
// fault target).
func (w *Worker) Busy() bool { return w.busy }

// Start implements sim.Node. A worker keeps nothing across a crash: its
// message comes back after the visibility timeout.
func (w *Worker) Start(env sim.Env, _ []byte) {
	*w = Worker{cfg: w.cfg, env: env}
	w.ex.cfg, w.ex.env = w.cfg, env // no schedule: a worker runs only what it is given
	w.ex.onFinish = w.finished
	// The first poll is spread over one interval so workers do not poll in step.
	w.timers[0] = env.SetTimer(env.Rand().DurationRange(0, w.cfg.Queue.Poll), w.cfg.TagBase+tagWorkerPoll)
}

// OnMessage implements sim.Node.
func (w *Worker) OnMessage(m sim.Message) {
	switch m.Kind {
	case KindDeliver:
		w.deliver(m)
	case KindWriteResp, KindClaimResp, KindQueryResp:
		w.ex.onMessage(m)
	case KindExecClaimResp:
		w.claimed(m)
	}
}

// OnTimer implements sim.Node.
func (w *Worker) OnTimer(id sim.TimerID, tag int) {
	switch tag - w.cfg.TagBase {
	case tagWorkerPoll:
		w.sendPoll()
	case tagWorkerBeat:
		if w.busy {
			w.beat()
			w.timers[1] = w.env.SetTimer(w.cfg.Queue.Heartbeat, w.cfg.TagBase+tagWorkerBeat)
		}
	case tagWorkerTime:
		if w.claiming {
			w.claimLost("the store did not answer the claim")
			return
		}
		if w.busy {
			w.abort()
			w.fail(fmt.Sprintf("timed out after %v", w.cfg.Queue.Timeout))
		}
	default:
		w.ex.onTimer(id, tag)
	}
}

func (w *Worker) sendPoll() {
	if w.busy {
		return
	}
	w.poll++
	w.env.Send(sim.Message{Kind: KindReceive, To: w.cfg.Queue.Queue, B: w.poll})
	// Polls are jittered (±50%) so that which idle worker takes the next
	// message varies from slot to slot, as it does between real consumers.
	p := w.cfg.Queue.Poll
	w.timers[0] = w.env.SetTimer(w.env.Rand().DurationRange(p/2, p+p/2), w.cfg.TagBase+tagWorkerPoll)
}

// deliver starts the execution the queue delivered, if it answers this
// worker's outstanding poll; a late answer's message comes back after its
// visibility timeout.
func (w *Worker) deliver(m sim.Message) {
	qm, ok := m.Body.(*QueueMsg)
	if !ok || w.busy || m.B != w.poll {
		return
	}
	if qm.Job < 0 || qm.Job >= len(w.cfg.Jobs) {
		return
	}
	w.env.CancelTimer(w.timers[0])
	w.busy, w.cur, w.receipt = true, *qm, m.A
	w.Stats.Taken++
	w.cfg.reached(w.env, StQueueTaken, qm.Slot)
	if w.cfg.Queue.Ack == AckEarly {
		w.ack()
	}
	if w.cfg.Queue.Claims() {
		// claim_execution before running; the claim's answer, or the
		// store's silence for StaleAfter, decides.
		w.claiming = true
		w.claim++
		w.env.Send(sim.Message{Kind: KindExecClaim, To: w.cfg.Queue.ExecStore, A: qm.Exec, B: w.claim})
		w.timers[2] = w.env.SetTimer(w.cfg.Queue.StaleAfter, w.cfg.TagBase+tagWorkerTime)
		return
	}
	w.start()
}

// claimed handles the store's answer to the current message's claim: run
// it, or drop it (acknowledged, as the seed's worker returns from a task
// whose claim updated no row).
func (w *Worker) claimed(m sim.Message) {
	if !w.claiming || m.B != w.claim || m.A != w.cur.Exec {
		return
	}
	w.claiming = false
	w.env.CancelTimer(w.timers[2])
	if !m.Flag {
		w.env.Effect(sim.Effect{Name: "worker.claim_refused",
			Detail: fmt.Sprintf("execution %d of %s attempt %d: not pending or failed at the store; message dropped", w.cur.Exec, SlotName(w.cfg.Jobs[w.cur.Job].Name, w.cur.Slot), w.cur.Attempt),
			A:      w.cur.Exec, B: w.cur.Slot, C: int64(w.cur.Job)})
		w.idle()
		return
	}
	w.cfg.reached(w.env, StQueueClaimed, w.cur.Slot)
	w.start()
}

// claimLost gives up a claim the store did not answer: the message is not
// acknowledged (with ack late it comes back after its visibility timeout).
func (w *Worker) claimLost(why string) {
	w.claiming = false
	w.env.Effect(sim.Effect{Name: "worker.claim_lost", Detail: fmt.Sprintf("execution %d: %s", w.cur.Exec, why), A: w.cur.Exec, B: w.cur.Slot, C: int64(w.cur.Job)})
	w.busy = false
	w.sendPoll()
}

// start runs the current message's execution.
func (w *Worker) start() {
	qm := &w.cur
	w.ex.started = w.ex.started[:0] // a worker runs what it is given, again if given again
	w.ex.startRun(qm.Job, qm.Slot, qm.Token, 0)
	w.run = w.ex.lastRun
	w.env.Effect(sim.ExecFields{Exec: w.run, SlotRef: sim.SlotRef{Slot: qm.Slot, Job: qm.Job}}.ExecEffect("worker.exec_started", fmt.Sprintf("execution %d of %s attempt %d token %d (receipt %d) as run %d", qm.Exec, SlotName(w.cfg.Jobs[qm.Job].Name, qm.Slot), qm.Attempt, qm.Token, w.receipt, w.run), sim.FactExecStarted))
	w.beat()
	w.timers[1] = w.env.SetTimer(w.cfg.Queue.Heartbeat, w.cfg.TagBase+tagWorkerBeat)
	if w.cfg.Queue.Timeout > 0 {
		w.timers[2] = w.env.SetTimer(w.cfg.Queue.Timeout, w.cfg.TagBase+tagWorkerTime)
	}
}

func (w *Worker) beat() {
	if w.cfg.Queue.NoExecStore {
		return // Celery: no execution store to heartbeat
	}
	w.Stats.Heartbeats++
	w.env.Effect(sim.ExecFields{Exec: w.cur.Exec, SlotRef: sim.SlotRef{Slot: w.cur.Slot, Job: w.cur.Job}}.ExecEffect("worker.heartbeat", "", sim.FactExecHeartbeat))
	w.env.Send(sim.Message{Kind: KindExecBeat, To: w.cfg.Queue.ExecStore, A: w.cur.Exec, B: w.run})
	w.cfg.reached(w.env, StQueueHeartbeatSent, w.cur.Slot)
}

func (w *Worker) ack() {
	w.Stats.Acked++
	w.env.Effect(sim.ExecFields{Exec: w.cur.Exec, SlotRef: sim.SlotRef{Slot: w.cur.Slot, Job: w.cur.Job}}.ExecEffect("worker.ack", fmt.Sprintf("execution %d (receipt %d)", w.cur.Exec, w.receipt), sim.FactExecAcked))
	w.env.Send(sim.Message{Kind: KindAck, To: w.cfg.Queue.Queue, A: w.receipt})
	w.cfg.reached(w.env, StQueueAcked, w.cur.Slot)
}

// finished is the executor's callback after a run's last write.
func (w *Worker) finished(r *run) {
	if !w.busy || r.id != w.run {
		return
	}
	q := &w.cfg.Queue
	if q.FailRate > 0 && w.env.Rand().Float64() < q.FailRate {
		w.fail("the job raised")
		return
	}
	w.Stats.Completed++
	w.env.Effect(sim.ExecFields{Exec: w.run, SlotRef: sim.SlotRef{Slot: w.cur.Slot, Job: w.cur.Job}}.ExecEffect("worker.exec_completed", fmt.Sprintf("execution %d of %s attempt %d", w.cur.Exec, SlotName(w.cfg.Jobs[w.cur.Job].Name, w.cur.Slot), w.cur.Attempt), sim.FactExecCompleted))
	w.done(execDoneCompleted)
	w.idle()
}

// abort stops the current run's remaining writes (a timed-out job).
func (w *Worker) abort() {
	for k := range w.ex.runs {
		if r := &w.ex.runs[k]; r.active && r.id == w.run {
			w.env.CancelTimer(r.timer)
			r.active = false
		}
	}
}

// fail ends the current execution as failed: retried after its backoff
// (as Celery's Task.retry publishes a new message with a countdown), or
// dead after the last attempt.
func (w *Worker) fail(why string) {
	q := &w.cfg.Queue
	w.Stats.Failed++
	name := SlotName(w.cfg.Jobs[w.cur.Job].Name, w.cur.Slot)
	w.env.Effect(sim.ExecFields{Exec: w.run, SlotRef: sim.SlotRef{Slot: w.cur.Slot, Job: w.cur.Job}}.ExecEffect("worker.exec_failed", fmt.Sprintf("execution %d of %s attempt %d: %s", w.cur.Exec, name, w.cur.Attempt, why), sim.FactExecFailed))
	if w.cur.Attempt <= q.MaxRetries {
		next := QueueMsg{ExecTicket: w.cur.ExecTicket, Delay: int64(q.backoff(w.cur.Attempt + 1))}
		next.Attempt++
		w.env.Send(sim.Message{Kind: KindEnqueue, To: q.Queue, A: next.Exec, Body: &next})
		w.done(execDoneFailed)
	} else {
		w.env.Effect(sim.Effect{Name: "worker.dead_letter",
			Detail: fmt.Sprintf("execution %d of %s failed its last attempt %d (max_retries %d)", w.cur.Exec, name, w.cur.Attempt, q.MaxRetries),
			A:      w.cur.Exec, B: w.cur.Slot, C: int64(w.cur.Job)}) // the store's exec.dead carries the fact
		w.done(execDoneDead)
	}
	w.idle()
}

// done reports the execution's outcome to the store, if there is one.
func (w *Worker) done(status int64) {
	if !w.cfg.Queue.NoExecStore {
		w.env.Send(sim.Message{Kind: KindExecDone, To: w.cfg.Queue.ExecStore, Index: status, A: w.cur.Exec, B: w.run})
	}
}

// idle acknowledges a late-acked message and polls again at once.
func (w *Worker) idle() {
	if w.cfg.Queue.Ack == AckLate {
		w.ack()
	}
	w.env.CancelTimer(w.timers[1])
	w.env.CancelTimer(w.timers[2])
	w.busy = false
	w.sendPoll()
}

// TimerName implements sim.TimerNamer.
func (w *Worker) TimerName(tag int) string {
	switch tag - w.cfg.TagBase {
	case tagWorkerPoll:
		return "worker.poll"
	case tagWorkerBeat:
		return "worker.heartbeat"
	case tagWorkerTime:
		return "worker.timeout"
	}
	return timerName(w.cfg.TagBase, tag)
}
