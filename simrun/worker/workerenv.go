package worker

import (
	"os"
	"strings"
	"sync"
	"time"
)

// A worker's environment. The parent builds the variables it owns from
// scratch for each worker: whatever the user's environment holds under
// those names (a SIMRUN_WORKER_SKIP left set would make workers skip
// seeds) never reaches one. Whether a process is a worker at all is
// decided by its link to its parent (workerlink.go). docs/engine.md,
// "Worker processes".

// ownedEnv are the variables simrun sets for its workers: a worker
// gets these from its parent alone.
var ownedEnv = []string{EnvWorker, EnvSkip, envTimeout, envGuardExact, "GOMAXPROCS"}

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
// the variables simrun owns, then those set afresh: the secret of its
// link (workerLink), running Main, on one core (procsweep.go explains
// GOMAXPROCS), with its watchdog's bound, when exact its goroutine guard
// in the exact step (goguard.go), and the jobs it must skip (skip: jobKey
// texts; none when empty).
func workerEnv(l *workerLink, handlerMax time.Duration, exact bool, skip []string) []string {
	env := append(scrubbedEnv(), EnvWorker+"="+l.secret, "SIMRUN_AS_MAIN=1", "GOMAXPROCS=1", envTimeout+"="+handlerMax.String())
	if exact {
		env = append(env, envGuardExact+"=1")
	}
	if len(skip) > 0 {
		env = append(env, EnvSkip+"="+strings.Join(skip, ","))
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

// KillAll kills every worker process not yet reaped.
func KillAll() {
	liveWorkers.Lock()
	defer liveWorkers.Unlock()
	for p := range liveWorkers.procs {
		_ = p.Kill()
	}
}
