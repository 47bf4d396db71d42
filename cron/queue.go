package cron

import (
	"fmt"
	"time"

	"github.com/electsim/electsim/sim"
)

// qEntry is one message in the queue.
type qEntry struct {
	msg       QueueMsg
	visibleAt time.Duration // queue monotonic time it can be received (again)
	inflight  bool          // received and not acknowledged
	receipt   int64         // the latest receipt handle; only it deletes the message
	receives  int
}

// Queue is the message queue of queue mode, a service node with
// at-least-once delivery: a received message stays invisible for the
// visibility timeout and, unacknowledged by then, becomes visible and is
// delivered again (SQS's VisibilityTimeout, default 30s; Celery's Redis
// transport's visibility_timeout, default 1h). Only the latest receipt
// deletes a message (SQS: an older receipt handle's DeleteMessage may
// succeed without deleting it — the pessimistic reading). Durable keeps
// its messages across a restart; otherwise a restart loses them all.
type Queue struct {
	cfg     *Config
	env     sim.Env
	msgs    []qEntry
	receipt int64
	timer   sim.TimerID
	armed   bool
	// Redelivered counts messages that became visible again after their
	// visibility timeout.
	Redelivered int
}

// NewQueue returns a queue for the validated cfg.
func NewQueue(cfg *Config) *Queue { return &Queue{cfg: cfg} }

// Len returns how many messages the queue holds, visible or in flight.
func (q *Queue) Len() int { return len(q.msgs) }

// Start implements sim.Node: a restart of a queue that is not durable
// loses every message; a durable one keeps them, in-flight ones with their
// visibility deadlines.
func (q *Queue) Start(env sim.Env, _ []byte) {
	q.env = env
	q.armed = false
	if !q.cfg.Queue.Durable && len(q.msgs) > 0 {
		env.Effect(sim.Effect{Name: "queue.lost", Detail: fmt.Sprintf("restart lost %d message(s) (durable: false)", len(q.msgs)), A: int64(len(q.msgs))})
		q.msgs = nil
	}
	q.arm()
}

// OnMessage implements sim.Node.
func (q *Queue) OnMessage(m sim.Message) {
	switch m.Kind {
	case KindEnqueue:
		qm, ok := m.Body.(*QueueMsg)
		if !ok {
			return
		}
		q.msgs = append(q.msgs, qEntry{msg: *qm, visibleAt: q.env.Now() + time.Duration(qm.Delay)})
		q.env.Send(sim.Message{Kind: KindEnqueueResp, To: m.From, A: m.A, B: m.B})
	case KindReceive:
		q.receive(m)
	case KindAck:
		for i := range q.msgs {
			if q.msgs[i].inflight && q.msgs[i].receipt == m.A {
				q.msgs = append(q.msgs[:i], q.msgs[i+1:]...)
				q.arm()
				return
			}
		}
	}
}

// receive delivers the oldest visible message, or answers empty.
func (q *Queue) receive(m sim.Message) {
	now := q.env.Now()
	resp := sim.Message{Kind: KindDeliver, To: m.From, B: m.B}
	for i := range q.msgs {
		e := &q.msgs[i]
		if e.inflight || e.visibleAt > now {
			continue
		}
		q.receipt++
		e.inflight, e.receipt, e.visibleAt = true, q.receipt, now+q.cfg.Queue.VisibilityTimeout
		e.receives++
		msg := e.msg
		resp.A, resp.Body = e.receipt, &msg
		q.arm()
		break
	}
	q.env.Send(resp)
}

// OnTimer implements sim.Node: in-flight messages whose visibility timeout
// passed become visible again.
func (q *Queue) OnTimer(sim.TimerID, int) {
	q.armed = false
	now := q.env.Now()
	for i := range q.msgs {
		e := &q.msgs[i]
		if e.inflight && e.visibleAt <= now {
			e.inflight = false
			q.Redelivered++
			q.env.Effect(sim.ExecFields{Exec: e.msg.Exec, SlotRef: sim.SlotRef{Slot: e.msg.Slot, Job: e.msg.Job}}.ExecEffect("queue.visible_again", fmt.Sprintf("execution %d of %s unacknowledged after the %v visibility timeout (received %d times)", e.msg.Exec, SlotName(q.cfg.Jobs[e.msg.Job].Name, e.msg.Slot), q.cfg.Queue.VisibilityTimeout, e.receives), sim.FactExecRedelivered))
		}
	}
	q.arm()
}

// arm sets the timer for the earliest in-flight deadline.
func (q *Queue) arm() {
	first := time.Duration(-1)
	for i := range q.msgs {
		if e := &q.msgs[i]; e.inflight && (first < 0 || e.visibleAt < first) {
			first = e.visibleAt
		}
	}
	if first < 0 {
		if q.armed {
			q.env.CancelTimer(q.timer)
			q.armed = false
		}
		return
	}
	d := max(first-q.env.Now(), 0)
	if q.armed {
		q.env.ResetTimer(q.timer, d)
		return
	}
	q.timer, q.armed = q.env.SetTimer(d, 0), true
}

// TimerName implements sim.TimerNamer.
func (q *Queue) TimerName(int) string { return "queue.visibility" }

// AddQueue adds the queue named name to s as a service node.
func AddQueue(s *sim.Sim, name string, cfg *Config) (sim.NodeID, *Queue) {
	q := NewQueue(cfg)
	return s.AddNode(name, q, sim.Service()), q
}
