package worker

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/electsim/electsim/reports"
)

// Worker processes. An algorithm whose nodes share process-wide state
// (registry.Algorithm.ProcessWide: etcdraft swaps crypto/rand.Reader under
// a process-wide lock) serializes inside one process, so a sweep of it
// with -workers W > 1 runs in W child processes of this executable instead:
// each runs a sub-shard of the seeds (the shard machinery), writes its
// summary as JSON, and the parent merges them (reports.Merge) into the same
// summary a single process would produce (runs are deterministic; only the
// timing differs). docs/engine.md, "Worker processes".

// EnvWorker marks a child process as its parent's worker (workerenv.go):
// it never spawns workers itself.
const EnvWorker = "SIMRUN_WORKER"

// A worker's progress line (progress.show): runs done, failing runs, and
// the runs that passed with harmless or expected findings.
var (
	ChildProgressRe = regexp.MustCompile(`^simrun: (\d+)/(\d+) runs\b.*?, (?:(\d+) failing runs?|no failing runs)`)
	ChildHarmlessRe = regexp.MustCompile(`\b(\d+) passed with harmless findings only\b`)
	ChildExpectedRe = regexp.MustCompile(`\b(\d+) passed with expected findings\b`)
)

// Counts are the runs a worker's progress line counted as failing, and
// as passing with harmless or with expected findings only.
type Counts struct{ Failed, Harmless, Expected int }

// Child is one worker process slot of a sweep: its arguments and outputs,
// what its progress lines said, and the runs that killed one of its
// processes. The parent reads Done, Counts and Died under the
// Supervisor's Mu.
type Child struct {
	Args   []string // the worker's command line, after the program's name
	cmd    *exec.Cmd
	stderr bytes.Buffer // what it wrote besides progress and announcements
	JSON   string       // where the worker writes its summary (-json)
	Runs   string       // where it writes its runs file (-runs)
	Done   int          // runs its last progress line counted
	Counts Counts
	cur    *Job            // the run announced and not yet finished
	tail   strings.Builder // its stderr since the current run was announced
	skip   []Job           // runs that killed an earlier process of this slot
	exact  bool            // its workers check every handler for goroutines (goguard.go)
	Died   []reports.RunSummary
}

// Supervisor is what the parent of a sweep's worker processes tells their
// supervision: the executable and the name it goes by, the watchdog's
// bound, and how to read a worker's end and report its progress.
type Supervisor struct {
	Exe, Prog  string
	HandlerMax time.Duration // the workers' watchdog (-handler-timeout)
	// CleanExits are the statuses of a worker that ended well outside a
	// run (all passed, a violation found, stopped by a signal).
	CleanExits []int
	// Stopping reports that a signal stopped the sweep: a worker that
	// ends then ended well whatever run it was on.
	Stopping func() bool
	// Died is the summary of a run whose worker process died.
	Died func(j Job, value, stack string) reports.RunSummary
	// Mu guards the children's fields; Report (called with Mu held)
	// shows their progress; Note tells the user why a shard runs again.
	Mu     *sync.Mutex
	Report func()
	Note   func(string)
}

// Signal forwards signal number sig to k's running worker process (the
// caller holds the Supervisor's Mu).
func (k *Child) Signal(sig int32) {
	if k.cmd != nil && k.cmd.Process != nil {
		_ = k.cmd.Process.Signal(signalOf(sig))
	}
}

// Run runs k's worker process until it exits normally: when
// it dies during a run it announced (a stack overflow, the watchdog), that
// run becomes a crashed summary and a new process runs the same shard
// without it; when its goroutine guard suspects a handler, a new process
// runs the same shard checking exactly (note says so).
func (sv *Supervisor) Run(k *Child) error {
	for {
		cmd, link, pipe, err := sv.start(k)
		if err != nil {
			return err
		}
		sv.read(k, link, pipe)
		link.close()
		err = cmd.Wait()
		untrackWorker(cmd.Process)
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			return err
		}
		sv.Mu.Lock()
		cur := k.cur
		sv.Mu.Unlock()
		// A worker that ended, whatever its status, during a run it
		// announced died of that run: a fatal error, the watchdog, or
		// os.Exit in a handler (even os.Exit(0)).
		if cur == nil || sv.Stopping() {
			if slices.Contains(sv.CleanExits, code) {
				return nil
			}
			return fmt.Errorf("%v: %s", err, strings.TrimSpace(k.stderr.String()))
		}
		if code == exitGoroutineSuspect && !k.exact {
			// A handler may have started a goroutine: the shard again,
			// in a worker that checks after every handler and reports
			// the first that did (goguard.go).
			k.exact = true
			sv.Note("a handler may have started a goroutine: a worker process runs its seeds again, checking after every handler (docs/engine.md, \"When a handler fails\")")
			continue
		}
		value, stack := workerDeath(k.tail.String(), code)
		sv.Mu.Lock()
		k.Died = append(k.Died, sv.Died(*cur, value, stack))
		k.skip = append(k.skip, *cur)
		sv.Report()
		sv.Mu.Unlock()
	}
}

// start starts a worker process for k, with its link (the secret and the
// channel), its environment (the runs it must skip) and its stderr's pipe.
func (sv *Supervisor) start(k *Child) (*exec.Cmd, *workerLink, io.ReadCloser, error) {
	cmd := exec.Command(sv.Exe, k.Args...)
	cmd.Args[0] = sv.Prog // a child built on Main goes by the parent's name in the replay lines it writes
	// One worker process is one worker: one core for its runs and its
	// garbage collector (two children with the default GOMAXPROCS
	// contend for both cores, measured 14 s against 10.7 s per child).
	keys := make([]string, len(k.skip))
	for i, j := range k.skip {
		keys[i] = jobKey(j)
	}
	link, err := newWorkerLink()
	if err != nil {
		return nil, nil, nil, err
	}
	cmd.Env = workerEnv(link, sv.HandlerMax, k.exact, keys)
	cmd.Stdout = io.Discard
	ownGroup(cmd) // the parent forwards signals once; a terminal's Ctrl-C must not reach the children twice
	pipe, err := cmd.StderrPipe()
	if err != nil {
		link.started()
		link.close()
		return nil, nil, nil, err
	}
	link.attach(cmd)
	sv.Mu.Lock()
	k.cmd, k.Done, k.Counts, k.cur = cmd, 0, Counts{}, nil
	k.stderr.Reset()
	k.tail.Reset()
	err = cmd.Start()
	link.started()
	sv.Mu.Unlock()
	if err != nil {
		link.close()
		return nil, nil, nil, err
	}
	trackWorker(cmd.Process)
	return cmd, link, pipe, nil
}

// read reads a worker's two streams to their end: the link's channel
// (announcements and progress, which only simrun writes) and stderr
// (whatever the algorithm prints, and the runtime's fatal error). Both
// are read to their end before the worker is reaped.
func (sv *Supervisor) read(k *Child, link *workerLink, pipe io.Reader) {
	mu := sv.Mu
	var readers sync.WaitGroup
	readers.Add(1)
	go func() {
		defer readers.Done()
		ch := bufio.NewScanner(link.chanR)
		ch.Buffer(make([]byte, 64<<10), 1<<20)
		for ch.Scan() {
			mu.Lock()
			k.readChannel(ch.Text(), sv.Report)
			mu.Unlock()
		}
		_, _ = io.Copy(io.Discard, link.chanR) // past an over-long line: to the end
	}()
	sc := bufio.NewScanner(pipe)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		mu.Lock()
		k.readStderr(line)
		mu.Unlock()
	}
	_, _ = io.Copy(io.Discard, pipe)
	readers.Wait()
}

// readChannel takes one line of a worker's channel (workerLink): a
// run's announcement or end, or a progress line.
func (k *Child) readChannel(line string, report func()) {
	switch {
	case strings.HasPrefix(line, workerRunLine):
		if j, ok := parseJobKey(strings.TrimPrefix(line, workerRunLine)); ok {
			k.cur = &j
		}
		return
	case line == workerDoneLine:
		k.cur = nil
		return
	}
	if m := ChildProgressRe.FindStringSubmatch(line); m != nil {
		k.Done, _ = strconv.Atoi(m[1])
		k.Counts = Counts{}
		k.Counts.Failed, _ = strconv.Atoi(m[3])
		if h := ChildHarmlessRe.FindStringSubmatch(line); h != nil {
			k.Counts.Harmless, _ = strconv.Atoi(h[1])
		}
		if e := ChildExpectedRe.FindStringSubmatch(line); e != nil {
			k.Counts.Expected, _ = strconv.Atoi(e[1])
		}
		report()
	}
}

// readStderr takes one line of a worker's stderr: kept for the death of
// the run in flight (from the mark the worker writes there as it starts
// a run: workerTailMark) and for an error message. What the algorithm
// prints here decides nothing but the words of its own run's crash.
func (k *Child) readStderr(line string) {
	if strings.HasPrefix(line, workerTailMark) {
		k.tail.Reset()
		return
	}
	if k.tail.Len() < 1<<20 {
		k.tail.WriteString(line + "\n")
	}
	if k.stderr.Len() < 1<<20 {
		k.stderr.WriteString(line + "\n")
	}
}
