package worker

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/electsim/electsim/hunt"
	"github.com/electsim/electsim/scenario"
)

// Isolated hunts. simrun hunt of an algorithm not built into electsim (or
// with -isolate) runs its runs in worker processes, one per -workers slot:
// each is this executable as `simrun hunt-worker` (a hidden command), fed
// one job at a time on stdin (a hunt.Job, a hunt.ReproJob or a
// hunt.ClusterJob as a JSON line) and answering on its channel to the
// parent (workerChanFD, workerlink.go), never on stdout or stderr, where the algorithm's
// handlers may print anything: a reply the algorithm forged cannot reach
// the parent, and one that does not parse is that run's crashed finding.
// A worker that dies during a job (a stack
// overflow, the -handler-timeout watchdog, os.Exit) makes that run the
// hunt's crashed finding, with the fatal error and the top of the stack
// read from its stderr; the slot's next job starts a new worker.
// docs/hunting.md, "Isolation".

// HuntCmd is the hidden command a hunt's worker process runs (only
// in a worker its parent started: IsWorker).
const HuntCmd = "hunt-worker"

// maxHuntLine bounds a request or reply line (a scenario file is at most
// 1 MiB, scenario.MaxFileBytes; as a JSON string a little more).
const maxHuntLine = 8 << 20

// huntRequest is one job for a worker: a run or a finding's reproduction.
type huntRequest struct {
	Run     *hunt.Job        `json:"run,omitempty"`
	Repro   *hunt.ReproJob   `json:"repro,omitempty"`
	Cluster *hunt.ClusterJob `json:"cluster,omitempty"`
	// Materialize: simrun -materialize of a user's algorithm (simrun's materialize_worker.go).
	Materialize *hunt.MaterializeJob `json:"materialize,omitempty"`
	// Own: a job of the command that started the pool (own.go).
	Own json.RawMessage `json:"own,omitempty"`
}

// huntReply is a worker's answer to a huntRequest.
type huntReply struct {
	Run     *hunt.JobResult     `json:"run,omitempty"`
	Repro   *hunt.ReproResult   `json:"repro,omitempty"`
	Cluster *hunt.ClusterResult `json:"cluster,omitempty"`
	// Materialize answers huntRequest.Materialize.
	Materialize *hunt.MaterializeResult `json:"materialize,omitempty"`
	// Own answers huntRequest.Own.
	Own json.RawMessage `json:"own,omitempty"`
}

// ServeHunt is a worker process's loop: the stack limit and the handler
// watchdog (Guard), then one reply per request on replies until
// stdin closes; own serves the requests of the command itself (Own). It
// reports false when it failed (why, on stderr).
func ServeHunt(stdin io.Reader, replies io.Writer, stderr io.Writer, own OwnServer) bool {
	g := NewGuard()
	defer g.Close()
	in := bufio.NewScanner(stdin)
	in.Buffer(make([]byte, 64<<10), maxHuntLine)
	var reader scenario.Reparser // the runs of one configuration share all but their faults
	for in.Scan() {
		var req huntRequest
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			fmt.Fprintf(stderr, "simrun hunt-worker: bad request: %v\n", err)
			return false
		}
		var rep huntReply
		switch {
		case req.Run != nil:
			r := hunt.RunJob(*req.Run, hunt.Hooks{Beat: g.Building(), Guard: g.Gor.Arm(), Reader: &reader})
			rep.Run = &r
		case req.Repro != nil:
			r := hunt.ReproduceJob(*req.Repro, g.Gor.Arm)
			rep.Repro = &r
		case req.Cluster != nil:
			g.Building()
			r := hunt.BuildCluster(*req.Cluster)
			rep.Cluster = &r
		case req.Materialize != nil:
			r := hunt.Materialize(*req.Materialize, hunt.Hooks{Beat: g.Building(), Guard: g.Gor.Arm()})
			rep.Materialize = &r
		case req.Own != nil && own != nil:
			b, err := json.Marshal(own(req.Own, g))
			if err != nil {
				fmt.Fprintf(stderr, "simrun hunt-worker: %v\n", err)
				return false
			}
			rep.Own = b
		}
		g.Idle()
		b, err := json.Marshal(rep)
		if err != nil {
			fmt.Fprintf(stderr, "simrun hunt-worker: %v\n", err)
			return false
		}
		if _, err := replies.Write(append(b, '\n')); err != nil {
			fmt.Fprintf(stderr, "simrun hunt-worker: replies: %v\n", err)
			return false
		}
	}
	if err := in.Err(); err != nil {
		fmt.Fprintf(stderr, "simrun hunt-worker: %v\n", err)
		return false
	}
	return true
}

// HuntPool is hunt.Runner over worker processes.
type HuntPool struct {
	exe, prog  string
	handlerMax time.Duration // the workers' watchdog (-handler-timeout)
	procs      int           // each worker's GOMAXPROCS
	OnStart    func()        // if set, called as the first worker process starts
	started    sync.Once
	mu         sync.Mutex // guards slots
	slots      map[int]*huntSlot
}

// huntSlot is one slot's worker process (nil cmd: none running).
type huntSlot struct {
	exact  bool // its workers check every handler for goroutines (goguard.go)
	cmd    *exec.Cmd
	in     io.WriteCloser
	link   *workerLink // its secret and the replies' channel
	out    *bufio.Scanner
	stderr tailBuffer
}

// NewHuntPool is a pool of workers running this executable, each on one
// core.
func NewHuntPool(prog string, handlerMax time.Duration) (*HuntPool, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	return &HuntPool{exe: exe, prog: prog, handlerMax: handlerMax, procs: 1, slots: map[int]*huntSlot{}}, nil
}

// ShareCores gives each of workers workers an equal share of this
// machine's cores (at least one): a hunt with fewer workers than cores
// leaves its workers' garbage collectors the spare ones, as a hunt in one
// process does (-workers 1 on two cores: 317 runs/s on one, measured
// against 476 in one process; docs/hunting.md, "Isolation").
func (p *HuntPool) ShareCores(workers int) {
	p.procs = max(runtime.NumCPU()/max(workers, 1), 1)
}

// withProcs is env with GOMAXPROCS set to procs (the last setting wins).
func withProcs(env []string, procs int) []string {
	return append(env, "GOMAXPROCS="+strconv.Itoa(procs))
}

// slot returns slot i (one caller at a time per slot: the search's).
func (p *HuntPool) slot(i int) *huntSlot {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.slots[i]
	if s == nil {
		s = &huntSlot{}
		p.slots[i] = s
	}
	return s
}

// start starts s's worker process if none is running.
func (p *HuntPool) start(s *huntSlot) error {
	if s.cmd != nil {
		return nil
	}
	if p.OnStart != nil {
		p.started.Do(p.OnStart)
	}
	link, err := newWorkerLink()
	if err != nil {
		return err
	}
	cmd := exec.Command(p.exe, HuntCmd)
	cmd.Args[0] = p.prog
	cmd.Env = withProcs(workerEnv(link, p.handlerMax, s.exact, nil), p.procs)
	cmd.Stderr = &s.stderr
	ownGroup(cmd) // the search stops its workers itself; a terminal's Ctrl-C must not reach them
	in, err := cmd.StdinPipe()
	if err != nil {
		link.started()
		link.close()
		return err
	}
	// The algorithm's prints (stdout) go nowhere; replies come on the
	// link's channel.
	link.attach(cmd)
	err = cmd.Start()
	link.started()
	if err != nil {
		link.close()
		return err
	}
	trackWorker(cmd.Process)
	s.cmd, s.in, s.link = cmd, in, link
	s.out = bufio.NewScanner(link.chanR)
	s.out.Buffer(make([]byte, 64<<10), maxHuntLine)
	return nil
}

// errDied is a worker that died during a job; its message is the fatal
// error, its stack the top of the dying goroutine's.
type errDied struct{ value, stack string }

// Error implements error.
func (e *errDied) Error() string { return e.value }

// call sends req to slot i's worker and reads its reply, within limit
// (0: none) and until ctx is done. A worker that dies, overruns or is
// stopped is reaped: the slot's next call starts another.
func (p *HuntPool) call(ctx context.Context, i int, req huntRequest, limit time.Duration) (huntReply, error) {
	s := p.slot(i)
	if err := ctx.Err(); err != nil {
		return huntReply{}, err
	}
	if err := p.start(s); err != nil {
		return huntReply{}, err
	}
	b, err := json.Marshal(req)
	if err != nil {
		return huntReply{}, err
	}
	s.stderr.Reset()
	var overran atomic.Bool
	var kill sync.Once
	stop := func() { kill.Do(func() { _ = s.cmd.Process.Kill() }) }
	defer context.AfterFunc(ctx, stop)()
	if limit > 0 {
		t := time.AfterFunc(limit, func() { overran.Store(true); stop() })
		defer t.Stop()
	}
	if _, err := s.in.Write(append(b, '\n')); err == nil && s.out.Scan() {
		var rep huntReply
		if err := json.Unmarshal(s.out.Bytes(), &rep); err != nil || rep.Run == nil && rep.Repro == nil && rep.Cluster == nil && rep.Materialize == nil && rep.Own == nil {
			// Only this worker writes the pipe: a reply that does not
			// parse means the process is not in a state to trust.
			p.reap(s)
			why := "it answers nothing"
			if err != nil {
				why = err.Error()
			}
			return huntReply{}, &errDied{value: "the worker process's reply was malformed: " + OneLine(why)}
		}
		return rep, nil
	}
	// No reply: the worker ended during the job.
	code := p.reap(s)
	switch {
	case ctx.Err() != nil:
		return huntReply{}, ctx.Err()
	case overran.Load():
		return huntReply{}, &errDied{value: fmt.Sprintf("the worker process did not finish within %v", limit)}
	case code == exitGoroutineSuspect && !s.exact:
		// A handler may have started a goroutine: the job again, in a
		// worker that checks after every handler (goguard.go).
		s.exact = true
		return p.call(ctx, i, req, limit)
	}
	value, stack := workerDeath(s.stderr.String(), code)
	return huntReply{}, &errDied{value: value, stack: stack}
}

// reap waits for s's worker to end (killing it if it has not) and
// returns its exit status.
func (p *HuntPool) reap(s *huntSlot) int {
	_ = s.in.Close()
	_ = s.cmd.Process.Kill()
	err := s.cmd.Wait()
	untrackWorker(s.cmd.Process)
	s.link.close()
	s.cmd = nil
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return 0
}

// Run implements hunt.Runner.
func (p *HuntPool) Run(ctx context.Context, slot int, j hunt.Job) hunt.JobResult {
	rep, err := p.call(ctx, slot, huntRequest{Run: &j}, 0)
	var died *errDied
	switch {
	case errors.As(err, &died):
		crash := "the worker process running this run died: " + died.value
		if died.stack != "" {
			crash += "\n\n" + died.stack
		}
		return hunt.JobResult{Died: true, Failure: []string{"crashed"}, Crash: crash}
	case err != nil:
		return hunt.JobResult{Err: err.Error()}
	case rep.Run == nil:
		return hunt.JobResult{Err: "the hunt worker answered no run"}
	}
	return *rep.Run
}

// Reproduce implements hunt.Runner, in slot 0 (the search's runs are done
// when it reproduces), within the shrink budget and some slack for the
// replay.
func (p *HuntPool) Reproduce(ctx context.Context, j hunt.ReproJob) (hunt.ReproResult, error) {
	rep, err := p.call(ctx, 0, huntRequest{Repro: &j}, j.ShrinkBudget+p.handlerMax+30*time.Second)
	switch {
	case err != nil:
		return hunt.ReproResult{}, err
	case rep.Repro == nil:
		return hunt.ReproResult{}, errors.New("the hunt worker answered no reproduction")
	}
	return *rep.Repro, nil
}

// Cluster implements hunt.Runner, in slot 0 (the search builds its
// configurations between its batches of runs).
func (p *HuntPool) Cluster(ctx context.Context, j hunt.ClusterJob) (hunt.ClusterResult, error) {
	rep, err := p.call(ctx, 0, huntRequest{Cluster: &j}, 0)
	var died *errDied
	switch {
	case errors.As(err, &died):
		return hunt.ClusterResult{}, &hunt.DiedError{Msg: "the algorithm's code killed its worker process while it read the file or built the run: " + outsideRun(died.value)}
	case err != nil:
		return hunt.ClusterResult{}, err
	case rep.Cluster == nil:
		return hunt.ClusterResult{}, &hunt.DiedError{Msg: "the hunt worker answered no build"}
	}
	return *rep.Cluster, nil
}

// Close ends every worker: its stdin closes, so its loop ends.
func (p *HuntPool) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, s := range p.slots {
		if s.cmd != nil {
			_ = s.in.Close()
			_ = s.cmd.Wait()
			untrackWorker(s.cmd.Process)
			s.link.close()
			s.cmd = nil
		}
	}
}

// tailBuffer keeps the last MiB or so written to it (a worker's stderr
// since its current job began).
type tailBuffer struct {
	mu sync.Mutex
	b  []byte
}

// tailMax bounds a tailBuffer: past twice it, the older half goes.
const tailMax = 1 << 20

// Write implements io.Writer.
func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > 2*tailMax {
		t.b = append(t.b[:0], t.b[len(t.b)-tailMax:]...)
	}
	return len(p), nil
}

// Reset empties t.
func (t *tailBuffer) Reset() {
	t.mu.Lock()
	t.b = t.b[:0]
	t.mu.Unlock()
}

// String is what t holds.
func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}
