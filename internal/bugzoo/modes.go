package bugzoo

// CronPlanter is what a bug of the cron modes needs of a built run: the
// planting hooks of its cron configuration (cron.Config implements it;
// cron/zoohook_modes.go). Each turns off one mechanism of the queue,
// Kubernetes or Celery mode at the line that implements it.
type CronPlanter interface {
	// PlantClaimAnyStatus: the execution store's claim ignores the status.
	PlantClaimAnyStatus()
	// PlantDeadRerunAtMostOnce: a dead execution is retried at most once too.
	PlantDeadRerunAtMostOnce()
	// PlantJobNamePerRequest: the CronJob controller's Jobs get fresh names.
	PlantJobNamePerRequest()
	// PlantForbidIgnoresActive: concurrencyPolicy Forbid checks nothing.
	PlantForbidIgnoresActive()
	// PlantBeatSkipsExtend: the Celery beat never extends its RedBeat lock.
	PlantBeatSkipsExtend()
	// PlantBeatIgnoresLockLoss: a failed extension does not end the beat.
	PlantBeatIgnoresLockLoss()
}

// modeBugs are the variants of the queue, Kubernetes and Celery modes:
// the election under them is the real one; the bug is in the scheduler,
// the execution store, the CronJob controller or the beat.
func modeBugs() []Bug {
	return []Bug{
		{
			Name: "zoo-queue-claim-any-status", Base: "raft", Catches: "duplicate_execution",
			Summary:  "the execution store's claim does not check the execution's status: a message redelivered after its visibility timeout is claimed while its execution still runs, and runs twice",
			Citation: "kagkarlsson/db-scheduler JdbcTaskRepository.pick (UPDATE … SET picked = true WHERE … AND picked = false AND version = ?: a pick is conditional on the row's state); Celery docs, \"Using Redis: Visibility timeout\" (a task not acknowledged within it is redelivered to another worker and executed again); cron/execstore.go ExecStore.claim",
			Scenario: "queue-claim-any-status.yaml",
			cron:     func(p CronPlanter) { p.PlantClaimAnyStatus() },
		},
		{
			Name: "zoo-queue-dead-rerun-at-most-once", Base: "raft", Catches: "duplicate_execution",
			Summary:  "the execution store retries an execution it declared dead whatever the delivery mode: at most once, a worker that was only paused resumes beside the retry",
			Citation: "Kleppmann, DDIA ch. 8 \"Process pauses\" (a node declared dead may only be paused, and resumes unaware); Sidekiq Pro's super_fetch docs (jobs of a process presumed dead are recovered and may run twice); docs/cron.md, \"Scheduler, queue and workers\" (at most once, a dead execution stays dead); cron/execstore.go ExecStore.declareDead",
			Scenario: "queue-dead-rerun.yaml",
			cron:     func(p CronPlanter) { p.PlantDeadRerunAtMostOnce() },
		},
		{
			Name: "zoo-kube-job-name-per-request", Base: "lease", Catches: "double_execution",
			Summary:  "the CronJob controller names each Job afresh instead of by its scheduled time, so two controller-managers acting at once create two Jobs of one slot",
			Citation: "kubernetes pkg/controller/cronjob/utils.go getJobName and getTimeHashInMinutes (a Job's name is the CronJob's and the scheduled time in minutes, so a second create of one slot fails with AlreadyExists); kubernetes/kubernetes#93370 (the v2 controller's deterministic names)",
			Scenario: "kube-job-name-per-request.yaml",
			Kinds:    kubeSparesControllers,
			cron:     func(p CronPlanter) { p.PlantJobNamePerRequest() },
		},
		{
			Name: "zoo-kube-forbid-ignores-active", Base: "lease", Catches: "overlap",
			Summary:  "the CronJob controller starts a Job under concurrencyPolicy Forbid while another Job of the CronJob is still active",
			Citation: "kubernetes pkg/controller/cronjob/cronjob_controllerv2.go syncCronJob (Forbid and len(cronJob.Status.Active) > 0: \"Not starting job because prior execution is still running\"); Kubernetes docs, \"CronJob: Concurrency policy\"",
			Scenario: "kube-forbid-ignores-active.yaml",
			Kinds:    kubeSparesControllers,
			cron:     func(p CronPlanter) { p.PlantForbidIgnoresActive() },
		},
		{
			Name: "zoo-celery-beat-skips-extend", Base: "", Catches: "double_execution",
			Summary:  "the Celery beat's tick never extends its RedBeat lock: the lock lapses after lock_timeout, the standby takes it, and both beats fire every entry",
			Citation: "sibson/redbeat redbeat/schedulers.py RedBeatScheduler.tick (self.lock.extend(int(self.lock_timeout)) before the parent tick) and acquire_distributed_beat_lock; redis-py redis/lock.py Lock.extend",
			Scenario: "celery-beat-skips-extend.yaml",
			cron:     func(p CronPlanter) { p.PlantBeatSkipsExtend() },
		},
		{
			Name: "zoo-celery-beat-ignores-lock-loss", Base: "", Catches: "double_execution",
			Summary:  "a Celery beat whose lock extension fails goes on ticking, beside the beat that took the lock while it was paused",
			Citation: "redis-py redis/lock.py Lock.do_extend (raises LockNotOwnedError when the lock is no longer owned) and sibson/redbeat redbeat/schedulers.py RedBeatScheduler.tick (lets it propagate: the beat process ends); celery/apps/beat.py Beat.start_scheduler",
			Scenario: "celery-beat-ignores-lock-loss.yaml",
			cron:     func(p CronPlanter) { p.PlantBeatIgnoresLockLoss() },
		},
	}
}

// kubeSparesControllers are the fault kinds the zoo hunts the Kubernetes
// bugs with: clock rates and disks, no crash, pause, partition or
// unavailable store. The real CronJob controller keeps one Job per slot
// and Forbid's exclusion only while its controller-manager is not stopped
// between a Job's create and the status update that lists it: syncCronJob
// (pkg/controller/cronjob/cronjob_controllerv2.go) only logs a Job missing
// from status.active as an "UnexpectedJob" ("this could happen if we
// crashed right after creating the Job and before updating the status"),
// so the next controller starts the next Job beside it, and two
// controller-managers of a lease split each run a Job's Pod. The hunt
// finds those on the real controller within a few hundred runs; they are
// the real system's behaviour, not the bugs'. Link faults are left out
// too: a create whose answer a slow or lossy link delays past the
// controller's wait is an error to it, though the Job exists, and the
// next sync meets the same "UnexpectedJob" (found with TCP's
// retransmissions modelled, sim.Streams).
// A wall-clock step of a controller-manager is left out as well: a
// holder stepped back can write a renewTime it wrote before, which
// client-go's comparison of raw records misses, and the lease splits
// (docs/algorithms/lease.md; the k8s contract's clock_step exception).
var kubeSparesControllers = []string{"clock_rate", "disk"}
