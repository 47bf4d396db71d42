package cron

import (
	"fmt"
	"time"

	"github.com/electsim/electsim/sim"
)

// Misfire policies.
const (
	// MisfireFireNow fires a misfired slot once, now (Quartz's
	// MISFIRE_INSTRUCTION_FIRE_ONCE_NOW): of several missed slots of a job,
	// only the most recent runs; the older ones are recorded missed.
	MisfireFireNow = "fire_now"
	// MisfireSkip never runs a misfired slot; it is recorded missed
	// (Quartz's MISFIRE_INSTRUCTION_DO_NOTHING).
	MisfireSkip = "skip"
	// MisfireQuartz is Quartz's own FIRE_ONCE_NOW (the default SMART_POLICY
	// of a CronTrigger): the most recent missed slot fires now, and the run
	// is a new fire time — its scheduledFireTime is the time the misfire
	// was handled (CronTriggerImpl.updateAfterMisfire: setNextFireTime(new
	// Date()); JobStoreSupport.triggerFired hands the job getPreviousFireTime
	// after triggered()), so idempotency and claims keyed on the scheduled
	// time do not match the old leader's run of the slot. A new leader's
	// recovery also leaves a slot another node already fired (in progress)
	// alone unless its job RequestsRecovery (JobStoreSupport.clusterRecover);
	// a recovered run keeps the slot's original scheduled time. MisfireFireNow
	// is the slot-keyed variant: the catch-up run keeps the slot's time, and
	// every incomplete slot is recovered.
	MisfireQuartz = "quartz"
)

// Misfire says what happens to a slot handled late — because the node was
// paused or its wall clock jumped, or because a new leader finds slots that
// were due during failover.
type Misfire struct {
	// Policy is MisfireFireNow (default), MisfireQuartz or MisfireSkip.
	Policy string
	// Threshold is how late a slot may be handled and still count as on time
	// (Quartz's misfireThreshold). Default 60s.
	Threshold time.Duration
	// Lookback is how far back a new leader asks the resource for slots that
	// were due but not completed. Default 1h.
	Lookback time.Duration
}

// Config configures the cron layer of a node; every node and the resource
// share the same Jobs.
type Config struct {
	// Jobs is the job table.
	Jobs Table
	// Resource is the fenced resource's node.
	Resource sim.NodeID
	// Policy is the resource's policy; the executor needs to know whether runs
	// must claim their slot first.
	Policy Policy
	// Misfire handling.
	Misfire Misfire
	// NotBefore is the calendar start of the run: slots at or before it were
	// never due, so recovery never looks before it. Default: no bound.
	NotBefore time.Time
	// WriteTimeout is how long a run waits for the resource to acknowledge a
	// write before sending it again, as a database client retries a request
	// that timed out. Default 1s.
	WriteTimeout time.Duration
	// WriteRetries is how many times a write is sent again before the run
	// gives it up (a cron.write_abandoned effect). Default 3.
	WriteRetries int
	// PollInterval caps how long a node sleeps before re-reading its wall
	// clock, so a forward wall-clock step is noticed within it (cronie wakes
	// every minute). Default 1m.
	PollInterval time.Duration
	// TagBase is the first timer tag the cron layer uses; the wrapped
	// algorithm's tags must stay below it. Default 1<<30.
	TagBase int
	// StateBase is the index of the cron layer's first protocol state
	// (States) in the run's list: the algorithm's own states come first
	// (registry.Algorithm.States), so it is their count. Default 0.
	StateBase int
	// ShedLock configures ShedLock mode (NewShedLockNode); unused otherwise.
	ShedLock ShedLockConfig
	// Queue configures queue mode (NewScheduler, NewWorker, NewQueue,
	// NewExecStore); off unless Queue.Workers > 0.
	Queue QueueConfig
	// Celery configures Celery mode (NewBeat, NewRedis); off unless On.
	Celery CeleryConfig
	// Kube configures Kubernetes mode (NewControllerManager, NewAPIServer,
	// NewKubelet); off unless Kube.Kubelets > 0.
	Kube KubeConfig
	// zoo holds the cron modes' planted bugs (internal/bugzoo, through
	// the Plant… methods of zoohook_modes.go); no scenario key reaches it,
	// and the zero value plants none.
	zoo modeBugs
}

// Validate checks the configuration and fills in defaults.
func (c *Config) Validate() error {
	if err := c.Jobs.Validate(); err != nil {
		return err
	}
	if len(c.Jobs) >= 1<<20 {
		return fmt.Errorf("too many jobs")
	}
	switch c.Misfire.Policy {
	case "":
		c.Misfire.Policy = MisfireFireNow
	case MisfireFireNow, MisfireSkip, MisfireQuartz:
	default:
		return fmt.Errorf("misfire policy %q: want %s, %s or %s", c.Misfire.Policy, MisfireFireNow, MisfireQuartz, MisfireSkip)
	}
	if c.Misfire.Threshold == 0 {
		c.Misfire.Threshold = time.Minute
	}
	if c.Misfire.Lookback == 0 {
		c.Misfire.Lookback = time.Hour
	}
	if c.Misfire.Threshold < 0 || c.Misfire.Lookback < 0 {
		return fmt.Errorf("misfire threshold and lookback must not be negative")
	}
	if c.PollInterval == 0 {
		c.PollInterval = time.Minute
	}
	if c.WriteTimeout == 0 {
		c.WriteTimeout = time.Second
	}
	if c.WriteRetries == 0 {
		c.WriteRetries = 3
	}
	if c.WriteTimeout < time.Millisecond || c.WriteRetries < 0 || c.WriteRetries > 100 {
		return fmt.Errorf("write timeout must be at least 1ms and write retries in 0..100, got %v and %d", c.WriteTimeout, c.WriteRetries)
	}
	if c.PollInterval < time.Millisecond {
		return fmt.Errorf("poll interval must be at least 1ms, got %v", c.PollInterval)
	}
	if c.TagBase == 0 {
		c.TagBase = 1 << 30
	}
	switch c.Policy.FencingScope {
	case "", "job", "global":
	default:
		return fmt.Errorf("fencing scope %q: want job or global", c.Policy.FencingScope)
	}
	if err := c.Celery.validate(c); err != nil {
		return err
	}
	if err := c.Queue.validate(c); err != nil {
		return err
	}
	if err := c.Kube.validate(c); err != nil {
		return err
	}
	return c.ShedLock.validate()
}
