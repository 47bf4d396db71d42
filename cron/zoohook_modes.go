package cron

// modeBugs are the planted bugs of the queue, Kubernetes and Celery modes
// (internal/bugzoo): each flag turns one real mechanism off, at the line
// that implements it. While a flag is off its test costs one boolean.
type modeBugs struct {
	claimAnyStatus      bool
	deadRerunAtMostOnce bool
	jobNamePerRequest   bool
	forbidIgnoresActive bool
	beatSkipsExtend     bool
	beatIgnoresLockLoss bool
}

// PlantClaimAnyStatus plants a queue-mode bug in c: the execution store's
// claim is UPDATE … SET status = 'running' WHERE id = ?, without the
// seed's AND status IN ('pending', 'failed') (ExecStore.claim), so a
// redelivered message of an execution that is still running is claimed
// and run a second time. A test hook for internal/bugzoo only.
func (c *Config) PlantClaimAnyStatus() { c.zoo.claimAnyStatus = true }

// PlantDeadRerunAtMostOnce plants a queue-mode bug in c: an execution
// declared dead gets its next attempt whatever the delivery mode
// (ExecStore.declareDead creates one only under at_least_once), so under
// at_most_once a worker that was only paused resumes and writes while the
// next attempt runs. A test hook for internal/bugzoo only.
func (c *Config) PlantDeadRerunAtMostOnce() { c.zoo.deadRerunAtMostOnce = true }

// PlantJobNamePerRequest plants a Kubernetes-mode bug in c: the CronJob
// controller names each Job it creates afresh (generateName, a suffix per
// request) instead of by its scheduled time (getJobName in
// pkg/controller/cronjob/utils.go), so the API server never answers
// AlreadyExists and two controllers acting at once create two Jobs of one
// slot. A test hook for internal/bugzoo only.
func (c *Config) PlantJobNamePerRequest() { c.zoo.jobNamePerRequest = true }

// PlantForbidIgnoresActive plants a Kubernetes-mode bug in c: the CronJob
// controller starts a Job under concurrencyPolicy Forbid while another of
// the CronJob is active (syncCronJob's check of len(cronJob.Status.Active)
// is gone). A test hook for internal/bugzoo only.
func (c *Config) PlantForbidIgnoresActive() { c.zoo.forbidIgnoresActive = true }

// PlantBeatSkipsExtend plants a Celery-mode bug in c: the beat's tick
// never extends its RedBeat lock (RedBeatScheduler.tick's
// self.lock.extend), so the lock lapses after lock_timeout while the beat
// goes on firing, and the standby takes it and fires too. A test hook for
// internal/bugzoo only.
func (c *Config) PlantBeatSkipsExtend() { c.zoo.beatSkipsExtend = true }

// PlantBeatIgnoresLockLoss plants a Celery-mode bug in c: a tick whose
// lock extension fails goes on (RedBeat lets redis-py's LockNotOwnedError
// end the beat process), so a beat that lost its lock fires beside the
// one that took it. A test hook for internal/bugzoo only.
func (c *Config) PlantBeatIgnoresLockLoss() { c.zoo.beatIgnoresLockLoss = true }
