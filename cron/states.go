package cron

import "github.com/electsim/electsim/sim"

// The protocol states of the cron modes' steps (issue 36): a node of the
// cron layer that reaches one records a sim.Effect with
// sim.FactProtocolState and A = Config.StateBase + its index in its
// mode's list (ModeStates), so a fault can fire right after it
// (after: {state: NAME}) and simrun hunt aims faults at it, as at an
// election algorithm's own states (registry.Algorithm.States,
// docs/hunting.md). They come from the schedulers and controller-managers
// (candidates) and from the execution store, workers and beats.
const (
	// StQueueExecCreated: the execution store created an execution record
	// (pending) for a slot or its next attempt.
	StQueueExecCreated = iota
	// StQueueEnqueued: the scheduler sent an execution to the queue.
	StQueueEnqueued
	// StQueueTaken: a worker took a message from the queue.
	StQueueTaken
	// StQueueClaimed: the store granted the worker's claim; it runs next.
	StQueueClaimed
	// StQueueHeartbeatSent: a worker sent a heartbeat of its execution.
	StQueueHeartbeatSent
	// StQueueAcked: a worker acknowledged its message.
	StQueueAcked
	// StBeatLockAcquired: a Celery beat took RedBeat's lock.
	StBeatLockAcquired
	// StBeatTick: a beat began a tick (its extend is in flight).
	StBeatTick
	// StBeatLockExtended: the tick's extend succeeded.
	StBeatLockExtended
	// StBeatTaskReserved: a due entry's last_run_at was saved (reserve),
	// its task not yet published: "between recording and publishing".
	StBeatTaskReserved
	// StBeatTaskPublished: the broker took the task.
	StBeatTaskPublished
	// StKubeJobCreateSent: a leading controller-manager sent a Job create.
	StKubeJobCreateSent
	// StKubeJobCreated: the create was answered (created or
	// AlreadyExists); the CronJob status update is next.
	StKubeJobCreated
	// StKubeStatusSent: the controller sent a CronJob status update.
	StKubeStatusSent
	// StKubePodCreateSent: the Job controller sent a Pod create.
	StKubePodCreateSent
	numCronStates
)

// cronStateNames are the states' names, in index order (the trigger's
// after.state and the hunt's alphabet).
var cronStateNames = [numCronStates]string{
	"queue_exec_created", "queue_enqueued", "queue_taken", "queue_claimed", "queue_heartbeat_sent", "queue_acked",
	"beat_lock_acquired", "beat_tick", "beat_lock_extended", "beat_task_reserved", "beat_task_published",
	"kube_job_create_sent", "kube_job_created", "kube_status_sent", "kube_pod_create_sent",
}

// modeStateIDs are each mode's states, in the order of its list. Celery
// mode's workers are queue mode's (they take and acknowledge messages;
// with no execution store they claim and heartbeat nothing).
var modeStateIDs = map[string][]int{ // lookups only
	ModeQueue:      {StQueueExecCreated, StQueueEnqueued, StQueueTaken, StQueueClaimed, StQueueHeartbeatSent, StQueueAcked},
	ModeCelery:     {StBeatLockAcquired, StBeatTick, StBeatLockExtended, StBeatTaskReserved, StBeatTaskPublished, StQueueTaken, StQueueAcked},
	ModeKubernetes: {StKubeJobCreateSent, StKubeJobCreated, StKubeStatusSent, StKubePodCreateSent},
}

// ModeStates names the protocol states of cron mode mode (cron.mode:
// queue, celery, kubernetes), in index order; nil for a mode with none.
func ModeStates(mode string) []string {
	ids := modeStateIDs[mode]
	if len(ids) == 0 {
		return nil
	}
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = cronStateNames[id]
	}
	return out
}

// mode names the validated configuration's cron mode for its states ("":
// leader-driven or ShedLock, which declare none).
func (c *Config) mode() string {
	switch {
	case c.Kube.Enabled():
		return ModeKubernetes
	case c.Celery.Enabled():
		return ModeCelery
	case c.Queue.Enabled():
		return ModeQueue
	}
	return ""
}

// States names the protocol states this configuration's nodes report,
// in index order (ModeStates of its mode): a run declares them after the
// algorithm's own, from StateBase.
func (c *Config) States() []string { return ModeStates(c.mode()) }

// reached records that this node just reached cron state st, if its mode
// declares it; b is the state's slot or token, for people.
func (c *Config) reached(env sim.Env, st int, b int64) {
	for i, id := range modeStateIDs[c.mode()] {
		if id == st {
			env.Effect(sim.StateFields{State: int64(c.StateBase + i), Epoch: b}.StateEffect("cron." + cronStateNames[st]))
			return
		}
	}
}
