package cron

import (
	"fmt"
	"strings"
	"time"

	"github.com/electsim/electsim/sim"
)

// MaxRestartBackoff is the kubelet's MaxContainerBackOff
// (pkg/kubelet/kubelet.go): CrashLoopBackOff's cap.
const MaxRestartBackoff = 300 * time.Second

// Supervisor policies of a Celery beat process that exited.
const (
	// CeleryRestartAlways: a supervisor (systemd Restart=always, a
	// Kubernetes container's restartPolicy Always) starts the beat again
	// RestartAfter after it exited.
	CeleryRestartAlways = "always"
	// CeleryRestartNever: an exited beat stays down.
	CeleryRestartNever = "never"
)

// CeleryConfig configures Celery mode (NewBeat, NewRedis): every candidate
// runs Celery beat with RedBeat's scheduler (sibson/redbeat
// redbeat/schedulers.py, 2.4.3 at a7fd9e9), whose Redis lock is the only
// election; beats publish due tasks to the Redis broker, where Celery
// workers (NewWorker, with no execution store) take them. Off unless
// Enabled.
type CeleryConfig struct {
	// On turns Celery mode on.
	On bool
	// Redis is the Redis node: RedBeat's lock and schedule and the broker
	// (RedBeat's redbeat_redis_url defaults to broker_url, so the default
	// deployment shares one Redis).
	Redis sim.NodeID
	// MaxInterval is the beat's max loop interval: the longest it sleeps
	// between ticks, and how long a standby sleeps between lock attempts
	// (RedBeat passes sleep=scheduler.max_interval to redis-py's Lock).
	// Default 300s (celery/beat.py DEFAULT_MAX_INTERVAL; beat_max_loop_interval
	// defaults to 0, "scheduler specific").
	MaxInterval time.Duration
	// LockTimeout is redbeat_lock_timeout: the lock's TTL, set again at
	// every tick. Default 5 × MaxInterval (RedBeatScheduler.__init__:
	// max_interval * 5), 25 minutes.
	LockTimeout time.Duration
	// Restart is CeleryRestartAlways (default) or CeleryRestartNever: what
	// happens to a beat process that exited on LockNotOwnedError or a Redis
	// error. Celery does not restart itself; its supervisor does.
	Restart string
	// RestartAfter is how long the supervisor waits before starting an
	// exited beat again. Default 10s (Kubernetes' first crash-loop back-off).
	RestartAfter time.Duration
	// RestartBackoff makes the supervisor Kubernetes' kubelet: its
	// CrashLoopBackOff doubles the delay at each exit, from RestartAfter
	// up to MaxRestartBackoff (kubelet's MaxContainerBackOff), and starts
	// again from RestartAfter once the beat ran 2 × MaxRestartBackoff
	// since its last restart (client-go's flowcontrol.Backoff: hasExpired).
	// Off: every restart waits RestartAfter (systemd's RestartSec).
	RestartBackoff bool
	// RedisTimeout is how long a beat waits for a Redis reply before it
	// treats the connection as broken (a ConnectionError: the beat exits).
	// redis-py's socket_timeout defaults to None (wait for TCP); default 30s.
	RedisTimeout time.Duration
}

// Enabled reports whether Celery mode is on.
func (c *CeleryConfig) Enabled() bool { return c.On }

// validate fills in Celery mode's defaults, including the broker's (the
// queue configuration the Redis node and workers share), and checks them.
func (c *CeleryConfig) validate(cfg *Config) error {
	if !c.On {
		return nil
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	def(&c.MaxInterval, 300*time.Second)
	def(&c.LockTimeout, 5*c.MaxInterval)
	def(&c.RestartAfter, 10*time.Second)
	def(&c.RedisTimeout, 30*time.Second)
	if c.Restart == "" {
		c.Restart = CeleryRestartAlways
	}
	if c.Restart != CeleryRestartAlways && c.Restart != CeleryRestartNever {
		return fmt.Errorf("celery restart %q: want %s or %s", c.Restart, CeleryRestartAlways, CeleryRestartNever)
	}
	for _, d := range []time.Duration{c.MaxInterval, c.LockTimeout, c.RestartAfter, c.RedisTimeout} {
		if d < time.Millisecond {
			return fmt.Errorf("celery durations must be at least 1ms, got %v", d)
		}
	}
	// A lock_timeout below max_interval is not refused: redis-py's Lock
	// (redis/lock.py, 8.0.0) takes any sleep — the "'sleep' must be less
	// than 'timeout'" check of Lock.__init__ left in redis-py 3.5.0
	// (commit 0326000) — so the real beat runs, and its lock lapses in
	// every sleep longer than lock_timeout: the next tick's extend raises
	// LockNotOwnedError and the beat exits (docs/cron-celery.md, "A lock
	// shorter than the sleep").
	for _, j := range cfg.Jobs {
		if err := CelerySchedule(j.Schedule); err != nil {
			return fmt.Errorf("job %q: %v", j.Name, err)
		}
	}
	q := &cfg.Queue
	if q.Workers < 1 {
		return fmt.Errorf("celery workers must be in 1..1000, got %d", q.Workers)
	}
	if q.Colocated {
		return fmt.Errorf("celery mode runs workers beside the beats, not co-located")
	}
	def(&q.VisibilityTimeout, time.Hour) // kombu/transport/redis.py Channel.visibility_timeout
	def(&q.Poll, 100*time.Millisecond)   // kombu waits in BRPOP; a short poll stands for it
	q.NoExecStore = true
	return nil
}

// CelerySchedule refuses schedules Celery beat cannot express: its
// crontab has minute resolution (five fields, or a descriptor). An
// "@every d" is Celery's schedule(run_every=d) (celery/schedules.py), the
// schedule a timedelta in beat_schedule gives, whose is_due re-anchors on
// last_run_at: due at last_run_at + run_every (relative=False), and
// last_run_at is the beat's now when it fires.
func CelerySchedule(expr string) error {
	e := strings.TrimSpace(expr)
	if strings.HasPrefix(e, "@every") {
		return nil
	}
	if rest, ok := strings.CutPrefix(e, "CRON_TZ="); ok {
		if _, after, found := strings.Cut(rest, " "); found {
			e = after
		}
	}
	if !strings.HasPrefix(e, "@") && len(strings.Fields(e)) != 5 {
		return fmt.Errorf("schedule %q: Celery's crontab has minute resolution; give five fields", expr)
	}
	return nil
}
