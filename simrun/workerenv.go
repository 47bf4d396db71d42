package simrun

import (
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// A worker's identity and environment. A process is a worker only when
// its parent said so: the parent sets envWorker to its own process ID, and
// the child checks it against its parent's (os.Getppid). A SIMRUN_WORKER
// left set in a user's shell (any value, "1" included) names no parent
// of the process that reads it, so a sweep or hunt started from that shell
// is never mistaken for a worker. The parent builds the variables it owns
// from scratch for each worker: whatever the user's environment holds
// under those names (a SIMRUN_WORKER_SKIP left set would make workers
// skip seeds) never reaches one. docs/engine.md, "Worker processes".

// ownedEnv are the variables simrun sets for its workers: a worker
// gets these from its parent alone.
var ownedEnv = []string{envWorker, envSkip, envTimeout, envGuardExact, "GOMAXPROCS"}

// isWorker reports whether this process is a worker of a simrun parent:
// envWorker holds the parent's process ID.
func isWorker() bool {
	v := os.Getenv(envWorker)
	return v != "" && v == strconv.Itoa(os.Getppid())
}

// scrubbedEnv is this process's environment without the variables simrun
// owns (ownedEnv).
func scrubbedEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		owned := false
		for _, o := range ownedEnv {
			if name == o {
				owned = true
				break
			}
		}
		if !owned {
			out = append(out, kv)
		}
	}
	return out
}

// workerEnv is a worker process's environment: this process's without
// the variables simrun owns, then those set afresh: marked as this
// process's worker, running Main, on one core (procsweep.go explains
// GOMAXPROCS), with its watchdog's bound, when exact its goroutine guard
// in the exact step (goguard.go), and the jobs it must skip (skip: jobKey
// texts; none when empty).
func workerEnv(handlerMax time.Duration, exact bool, skip []string) []string {
	env := append(scrubbedEnv(), envWorker+"="+strconv.Itoa(os.Getpid()), "SIMRUN_AS_MAIN=1", "GOMAXPROCS=1", envTimeout+"="+handlerMax.String())
	if exact {
		env = append(env, envGuardExact+"=1")
	}
	if len(skip) > 0 {
		env = append(env, envSkip+"="+strings.Join(skip, ","))
	}
	return env
}

// liveWorkers are the worker processes this process started and has not
// yet reaped: a signal that ends this process at once kills them first
// (they run in their own process groups, out of a terminal's reach, and
// one blocked in user code would otherwise outlive it).
var liveWorkers struct {
	sync.Mutex
	procs map[*os.Process]bool
}

// trackWorker records a started worker process.
func trackWorker(p *os.Process) {
	liveWorkers.Lock()
	defer liveWorkers.Unlock()
	if liveWorkers.procs == nil {
		liveWorkers.procs = map[*os.Process]bool{}
	}
	liveWorkers.procs[p] = true
}

// untrackWorker forgets a reaped worker process.
func untrackWorker(p *os.Process) {
	liveWorkers.Lock()
	delete(liveWorkers.procs, p)
	liveWorkers.Unlock()
}

// killWorkers kills every worker process not yet reaped.
func killWorkers() {
	liveWorkers.Lock()
	defer liveWorkers.Unlock()
	for p := range liveWorkers.procs {
		_ = p.Kill()
	}
}
