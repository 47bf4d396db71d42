package worker

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/exec"
	"sync"
)

// A worker's link to its parent. A process is a worker only when its
// parent made it one: the parent draws a random secret for each worker,
// names it in the worker's environment (EnvWorker) and writes it on a pipe
// whose read end only that worker inherits (descriptor workerSecretFD).
// The worker reads the pipe once, at its first IsWorker, and is a worker
// only if the two agree. A SIMRUN_WORKER left set in a shell, or typed
// there on purpose (SIMRUN_WORKER=$$ named the shell's PID, which a
// check against os.Getppid accepted), has no such pipe behind it.
//
// The second descriptor (workerChanFD) is the worker's channel back to
// its parent: a hunt worker's replies, a sweep worker's announcements and
// progress. Only simrun writes it, never the algorithm's prints (stdout,
// stderr), so a handler cannot forge what the parent reads there.
// docs/engine.md, "Worker processes".

// The descriptors a worker inherits: exec.Cmd.ExtraFiles 0 and 1.
const (
	workerSecretFD = 3 // the secret's pipe, read end
	workerChanFD   = 4 // the channel to the parent, write end
)

// workerLink is the parent's side of one worker process's link.
type workerLink struct {
	secret string
	secR   *os.File // the worker's ends: passed, then closed here
	chanW  *os.File
	chanR  *os.File // what the worker sends (the parent reads it)
}

// newWorkerLink draws a secret, writes it on a new pipe and opens the
// channel's pipe.
func newWorkerLink() (*workerLink, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, err
	}
	l := &workerLink{secret: hex.EncodeToString(b[:])}
	secR, secW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	// 33 bytes fit any pipe's buffer: the write does not wait for a reader.
	_, err = secW.WriteString(l.secret + "\n")
	secW.Close()
	if err != nil {
		secR.Close()
		return nil, err
	}
	chanR, chanW, err := os.Pipe()
	if err != nil {
		secR.Close()
		return nil, err
	}
	l.secR, l.chanW, l.chanR = secR, chanW, chanR
	return l, nil
}

// attach gives cmd the worker's descriptors.
func (l *workerLink) attach(cmd *exec.Cmd) {
	cmd.ExtraFiles = []*os.File{l.secR, l.chanW} // workerSecretFD, workerChanFD
}

// started closes this process's copies of the worker's ends (after
// cmd.Start, whether it succeeded): the channel then ends when the
// worker does.
func (l *workerLink) started() {
	l.secR.Close()
	l.chanW.Close()
}

// close closes the channel's read end.
func (l *workerLink) close() { l.chanR.Close() }

// self is this process's verdict, read once: the secret's descriptor
// is consumed by the reading.
var self struct {
	once sync.Once
	is   bool
	ch   *os.File
}

// IsWorker reports whether this process is a worker its parent started
// (workerLink).
func IsWorker() bool {
	self.once.Do(func() {
		v := os.Getenv(EnvWorker)
		if v == "" {
			return
		}
		if got, ok := readSecret(workerSecretFD); ok && got == v {
			self.is = true
			self.ch = os.NewFile(workerChanFD, "simrun-parent")
		}
	})
	return self.is
}

// ParentChannel is the worker's channel to its parent (nil outside a
// worker).
func ParentChannel() *os.File {
	if !IsWorker() {
		return nil
	}
	return self.ch
}
