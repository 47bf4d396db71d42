package reality

import (
	"errors"
	"fmt"
	"io"
	"os/exec"
	"sync"
)

// Proc is one process the harness started: a server or a client.
type Proc struct {
	// Name says what it is, for errors ("redis", "client n2").
	Name string
	cmd  *exec.Cmd
	done chan struct{}
	err  error // Wait's result, set before done closes
}

// Group holds every process a trial started, so that all of them are
// stopped whatever happens (Stop, also on SIGINT through the context the
// trial runs under).
type Group struct {
	mu      sync.Mutex
	procs   []*Proc
	stopped bool
}

// errStopped refuses a start after the group was stopped.
var errStopped = errors.New("reality: the trial's processes were stopped")

// Start starts argv in dir, its standard output to stdout and its standard
// error to stderr (nil: discarded), and adds it to the group.
func (g *Group) Start(name, dir string, argv []string, stdout, stderr io.Writer) (*Proc, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.stopped {
		return nil, errStopped
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.SysProcAttr = procAttr()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	p := &Proc{Name: name, cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	g.procs = append(g.procs, p)
	return p, nil
}

// Named is the last process started under name, or nil.
func (g *Group) Named(name string) *Proc {
	g.mu.Lock()
	defer g.mu.Unlock()
	for i := len(g.procs) - 1; i >= 0; i-- {
		if g.procs[i].Name == name {
			return g.procs[i]
		}
	}
	return nil
}

// Pause stops the process (SIGSTOP), as a stop-the-world pause would.
func (p *Proc) Pause() error { return pauseProcess(p.cmd.Process) }

// Resume continues a paused process (SIGCONT).
func (p *Proc) Resume() error { return resumeProcess(p.cmd.Process) }

// Kill crashes the process (SIGKILL: no cleanup, no goodbye to the server)
// and waits until it is gone.
func (p *Proc) Kill() {
	select {
	case <-p.done:
		return
	default:
	}
	_ = resumeProcess(p.cmd.Process) // a stopped process dies on SIGKILL too; be sure it is reaped at once
	_ = p.cmd.Process.Kill()
	<-p.done
}

// Exited reports whether the process has ended, and how.
func (p *Proc) Exited() (bool, error) {
	select {
	case <-p.done:
		return true, p.err
	default:
		return false, nil
	}
}

// Done is closed when the process has ended.
func (p *Proc) Done() <-chan struct{} { return p.done }

// Stop kills every process of the group and waits for each; later Starts
// are refused. It is safe to call more than once.
func (g *Group) Stop() {
	g.mu.Lock()
	g.stopped = true
	procs := g.procs
	g.procs = nil
	g.mu.Unlock()
	for _, p := range procs {
		p.Kill()
	}
}

// Live counts the group's processes that have not ended.
func (g *Group) Live() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	n := 0
	for _, p := range g.procs {
		if ok, _ := p.Exited(); !ok {
			n++
		}
	}
	return n
}

// Pid is the process's ID.
func (p *Proc) Pid() int { return p.cmd.Process.Pid }
