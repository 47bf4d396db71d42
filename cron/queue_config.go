package cron

import (
	"fmt"
	"time"

	"github.com/electsim/electsim/sim"
)

// Ack modes of a queue worker.
const (
	// AckEarly acknowledges a message on receipt (Celery's default,
	// task_acks_late = False): a worker that dies mid-job loses it.
	AckEarly = "early"
	// AckLate acknowledges a message when the job completes (Celery's
	// acks_late; an SQS consumer that calls DeleteMessage after its work):
	// a message not acknowledged within the visibility timeout is delivered
	// again.
	AckLate = "late"
)

// Delivery policies of the scheduler for executions found dead.
const (
	// AtLeastOnce re-enqueues an execution whose heartbeat went stale.
	AtLeastOnce = "at_least_once"
	// AtMostOnce marks it dead and never runs the slot again.
	AtMostOnce = "at_most_once"
)

// Concurrency policies of a job's executions.
const (
	// ConcurrencyAllow lets two executions of one job run at once.
	ConcurrencyAllow = "allow"
	// ConcurrencyForbid makes an overlap of two executions of one job a
	// violation (the overlap check) and makes the scheduler skip a slot
	// while another execution of the job runs with a fresh heartbeat.
	ConcurrencyForbid = "forbid"
)

// QueueConfig configures queue mode: a scheduler (the elected leader)
// creates an execution record per due slot at the execution store and
// enqueues it; workers take messages from the queue, heartbeat the record,
// make the job's writes to the fenced resource with the execution's token
// and acknowledge. Zero Workers: queue mode is off.
type QueueConfig struct {
	// Workers is the number of worker nodes beside the candidates. Zero
	// (and not Colocated): queue mode is off.
	Workers int
	// Colocated makes every candidate a worker too (NewColocated): a
	// crash of the leader takes the job it runs with it.
	Colocated bool
	// Queue, ExecStore are the queue's and execution store's nodes;
	// WorkerNodes the workers' (set by whoever builds the run).
	Queue, ExecStore sim.NodeID
	WorkerNodes      []sim.NodeID
	// VisibilityTimeout is how long a delivered, unacknowledged message
	// stays invisible before it is delivered again. Default 30s (SQS's
	// default VisibilityTimeout; Celery's Redis transport defaults to 1h).
	VisibilityTimeout time.Duration
	// Ack is AckEarly (default, Celery's) or AckLate.
	Ack string
	// Durable keeps the queue's messages across its restart; otherwise a
	// restart loses every message, visible or in flight.
	Durable bool
	// Delivery is AtLeastOnce (default) or AtMostOnce: what the scheduler
	// does with an execution whose heartbeat went stale.
	Delivery string
	// Heartbeat is how often a worker heartbeats a running execution.
	// Default 1s.
	Heartbeat time.Duration
	// StaleAfter is how old a running execution's last heartbeat (by the
	// store's clock) must be for it to count as dead. Default 5 heartbeats.
	StaleAfter time.Duration
	// ReapEvery is how often the leader asks the store for dead
	// executions. Default StaleAfter/2.
	ReapEvery time.Duration
	// MaxRetries is how many times a failed execution is retried before it
	// is dead-lettered. Default 0 (none).
	MaxRetries int
	// Backoff is the delay before the first retry; retry k waits
	// Backoff·2^(k-1). Default 1s.
	Backoff time.Duration
	// Timeout is a job's run time limit: a worker abandons a run that
	// exceeds it (a failure, retried). Default 0: no limit.
	Timeout time.Duration
	// FailRate is the probability that a run fails at its end (after its
	// writes), as a task that raises. Default 0.
	FailRate float64
	// StartDeadline is how long after its slot an execution may start and
	// be on time (the late_start check). Default: Misfire.Threshold.
	StartDeadline time.Duration
	// Concurrency is ConcurrencyAllow (default) or ConcurrencyForbid.
	Concurrency string
	// Poll is how often an idle worker asks the queue for a message.
	// Default 500ms.
	Poll time.Duration
	// Retain is how long the store keeps a finished execution's record
	// before forgetting it (bounded memory). It must cover Misfire.Lookback,
	// or a new leader would recreate slots it no longer remembers. Default
	// 2 × Misfire.Lookback.
	Retain time.Duration
	// NoExecStore: there is no execution store (Celery mode); workers
	// send it no heartbeats and no outcomes.
	NoExecStore bool
	// NoClaim turns off the worker's claim. By default (the seed's
	// design) a worker that takes a message first claims its execution
	// at the store — claim_execution: UPDATE … SET status = 'running'
	// WHERE id = ? AND status IN ('pending', 'failed') — and runs it only
	// if the claim took; a message of an execution already running,
	// completed or declared dead is acknowledged and dropped. NoClaim
	// runs every message delivered, as a Celery worker runs a task
	// (docs/cron.md, "The worker's claim").
	NoClaim bool
}

// Claims reports whether workers claim an execution before running it:
// there is a store, and the claim is not turned off.
func (q *QueueConfig) Claims() bool { return !q.NoExecStore && !q.NoClaim }

// Enabled reports whether queue mode is on.
func (q *QueueConfig) Enabled() bool { return q.Workers > 0 || q.Colocated }

// validate fills in defaults and checks the queue configuration.
func (q *QueueConfig) validate(c *Config) error {
	if !q.Enabled() {
		if q.Workers < 0 {
			return fmt.Errorf("queue workers must not be negative, got %d", q.Workers)
		}
		return nil
	}
	if q.Workers > 1000 {
		return fmt.Errorf("queue workers must be in 1..1000, got %d", q.Workers)
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	def(&q.VisibilityTimeout, 30*time.Second)
	def(&q.Heartbeat, time.Second)
	def(&q.StaleAfter, 5*q.Heartbeat)
	def(&q.ReapEvery, q.StaleAfter/2)
	def(&q.Backoff, time.Second)
	def(&q.StartDeadline, c.Misfire.Threshold)
	def(&q.Poll, 500*time.Millisecond)
	def(&q.Retain, 2*c.Misfire.Lookback)
	if q.Ack == "" {
		q.Ack = AckEarly
	}
	if q.Delivery == "" {
		q.Delivery = AtLeastOnce
	}
	if q.Concurrency == "" {
		q.Concurrency = ConcurrencyAllow
	}
	switch {
	case q.Ack != AckEarly && q.Ack != AckLate:
		return fmt.Errorf("queue ack %q: want %s or %s", q.Ack, AckEarly, AckLate)
	case q.Delivery != AtLeastOnce && q.Delivery != AtMostOnce:
		return fmt.Errorf("queue delivery %q: want %s or %s", q.Delivery, AtLeastOnce, AtMostOnce)
	case q.Concurrency != ConcurrencyAllow && q.Concurrency != ConcurrencyForbid:
		return fmt.Errorf("queue concurrency %q: want %s or %s", q.Concurrency, ConcurrencyAllow, ConcurrencyForbid)
	case q.MaxRetries < 0 || q.MaxRetries > 100:
		return fmt.Errorf("queue max_retries must be in 0..100, got %d", q.MaxRetries)
	case q.FailRate < 0 || q.FailRate > 1:
		return fmt.Errorf("queue fail_rate must be in [0, 1], got %v", q.FailRate)
	case q.Timeout < 0:
		return fmt.Errorf("queue timeout must not be negative, got %v", q.Timeout)
	case q.Retain < c.Misfire.Lookback:
		return fmt.Errorf("queue retain (%v) must cover misfire lookback (%v): a new leader would recreate slots the store forgot", q.Retain, c.Misfire.Lookback)
	}
	for _, d := range []time.Duration{q.VisibilityTimeout, q.Heartbeat, q.StaleAfter, q.ReapEvery, q.Backoff, q.Poll, q.StartDeadline} {
		if d < time.Millisecond {
			return fmt.Errorf("queue durations must be at least 1ms, got %v", d)
		}
	}
	return nil
}

// backoff is the delay before retry attempt (attempt ≥ 2): Backoff·2^(attempt-2), capped.
func (q *QueueConfig) backoff(attempt int) time.Duration {
	d := q.Backoff
	for k := 2; k < attempt && d < time.Hour; k++ {
		d *= 2
	}
	return d
}
