package outdir

import (
	"bufio"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// simrun's file-system contract (docs/output.md, "Files"): it creates its
// output folders and files under temporary names beside them, renames them
// into place only when everything succeeded, replaces an existing output
// only if it is a folder simrun made (it carries MarkerFile) or an empty
// folder, never touches anything else, and removes its temporaries on
// error, on SIGINT/SIGTERM, and (for a run that was killed) on its next run.

// MarkerFile marks a folder as simrun's output, safe for simrun to replace.
const MarkerFile = ".simrun-output"

// MarkerText is the marker file's content, for a person who opens it.
const MarkerText = "This folder was written by simrun; simrun replaces it on its next run with the same output path.\n"

// TmpTag is in the name of every temporary simrun makes, with its process
// ID: ".<name>.simrun-tmp-<pid>-<random>". A later run removes those whose
// writer is gone (cleanStale).
const TmpTag = ".simrun-tmp-"

// NewTag names a temporary being born: simrun creates a locked temporary
// (a staging folder with its marker, a staged file) under NewTag, locks
// it, and only then renames it to its TmpTag name. So every TmpTag
// temporary whose lock is free was left by a writer that is gone, however
// young it is, and the next run removes it at once (cleanStale); only a
// NewTag one, which exists for an instant, waits out StaleGrace.
const NewTag = ".simrun-new-"

// bornName is the TmpTag name of a temporary born under the NewTag name
// birth (the same folder, process ID and random part).
func bornName(birth string) string {
	dir, base := filepath.Split(birth)
	return dir + strings.Replace(base, NewTag, TmpTag, 1)
}

// birthPrefix is the prefix of this process's temporaries for path while
// they are born (NewTag).
func birthPrefix(path string) string {
	return "." + filepath.Base(path) + NewTag + strconv.Itoa(os.Getpid()) + "-"
}

// temps are the temporaries of this process not yet renamed into place or
// removed; the signal handler removes them.
var temps struct {
	sync.Mutex
	paths map[string]bool
	// reserved are numbered result folders this process made (empty) and
	// has not yet filled: removed only while still empty (resultdir.go).
	reserved map[string]bool
	// parents are folders made for outputs not yet in place (removed,
	// if still empty, innermost first).
	parents map[string]bool
	// locks hold each temporary's lock (lockFile) until it is renamed
	// into place or removed: cleanStale in another process leaves a
	// temporary whose lock is held.
	locks map[string]*os.File
	dead  bool // the process is exiting: make no more
}

// HoldLock locks the file lock (the temporary itself, or the marker in a
// temporary folder) for the temporary tmp until UntrackTemp(tmp). Where
// the file system has no flock the lock is skipped: another process's
// probe then fails too and keeps the temporary (LockHeld).
func HoldLock(tmp, lock string) {
	f, err := LockPath(lock)
	if err != nil {
		return
	}
	temps.Lock()
	defer temps.Unlock()
	if temps.locks == nil {
		temps.locks = map[string]*os.File{}
	}
	temps.locks[tmp] = f
}

// TrackTemp records path as a temporary of this process, for the signal
// handler to remove (RemoveTemps); once the process is exiting it removes
// path at once and refuses.
func TrackTemp(path string) error {
	temps.Lock()
	defer temps.Unlock()
	if temps.dead {
		os.RemoveAll(path)
		return errors.New("interrupted")
	}
	if temps.paths == nil {
		temps.paths = map[string]bool{}
	}
	temps.paths[path] = true
	return nil
}

// UntrackTemp forgets the temporary path (renamed into place or removed)
// and releases its lock (HoldLock).
func UntrackTemp(path string) {
	temps.Lock()
	delete(temps.paths, path)
	if f := temps.locks[path]; f != nil {
		f.Close()
		delete(temps.locks, path)
	}
	temps.Unlock()
}

// RemoveTemps removes every temporary of this process and refuses new ones
// (for the signal handler, just before exiting).
func RemoveTemps() {
	temps.Lock()
	defer temps.Unlock()
	temps.dead = true
	for p := range temps.paths {
		os.RemoveAll(p)
	}
	for p := range temps.reserved {
		os.Remove(p) // only if still empty: never a result
	}
	removeParents()
	temps.paths, temps.reserved = nil, nil
}

// tempPrefix is the prefix of this process's temporaries for path.
func tempPrefix(path string) string {
	return "." + filepath.Base(path) + TmpTag + strconv.Itoa(os.Getpid()) + "-"
}

// StaleGrace is how old (by modification time) a temporary without a
// held lock must be before another run may remove it when its lock cannot
// tell: one being born (NewTag), made by an older simrun without a lock,
// or a worker folder being made. It covers the instant between a
// temporary's creation and its lock.
const StaleGrace = 10 * time.Second

// cleanStale removes, in dir, the temporaries for name left by simrun
// processes that no longer run (killed before they could clean up). A
// writer holds an flock on each temporary (the file itself, or the marker
// in a folder) for its lifetime, and the kernel drops it when the writer
// dies, in any PID namespace: so a temporary is removed only if its lock
// is free: every one was locked before it got its name (NewTag). One
// without a lock file (made by an older simrun) is removed only if, in
// addition, it is older than StaleGrace and its PID names no process
// here. A PID alone would not do: a simrun in another container sharing
// the volume has a PID this one cannot see. One still being born is
// removed only past StaleGrace with its lock free.
func cleanStale(dir, name string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	prefix, birth := "."+name+TmpTag, "."+name+NewTag
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), prefix)
		born := ok
		if !ok {
			if rest, ok = strings.CutPrefix(e.Name(), birth); !ok {
				continue
			}
		}
		pidText, _, _ := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if err != nil || pid <= 0 || pid == os.Getpid() {
			continue
		}
		if isStale(filepath.Join(dir, e.Name()), pid, born) {
			os.RemoveAll(filepath.Join(dir, e.Name()))
		}
	}
}

// isStale reports whether the temporary path, named with pid, was left by
// a writer that is gone (cleanStale); born: it has its TmpTag name, so it
// was locked before it had it.
func isStale(path string, pid int, born bool) bool {
	st, err := os.Lstat(path)
	if err != nil {
		return false
	}
	young := time.Since(st.ModTime()) < StaleGrace
	lock := path
	if st.IsDir() {
		lock = filepath.Join(path, MarkerFile)
	} else if !st.Mode().IsRegular() {
		return false
	}
	held, exists := LockHeld(lock)
	switch {
	case held:
		return false
	case exists && born:
		return true // locked since before its name, and free: its writer is gone
	case young:
		return false
	}
	return exists || !alive(pid)
}

// CheckReplaceable refuses an output path simrun may not replace: an
// existing file (or anything not a folder), or a folder that is neither
// empty nor marked as simrun's own.
func CheckReplaceable(out string) error {
	st, err := os.Lstat(out)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return err
	case !st.IsDir():
		return usagef("%s exists and is not a folder: simrun writes its output folder there and replaces only folders it created; choose another -out", out)
	}
	if _, err := os.Stat(filepath.Join(out, MarkerFile)); err == nil {
		return nil
	}
	f, err := os.Open(out)
	if err != nil {
		return err
	}
	defer f.Close()
	if names, _ := f.Readdirnames(1); len(names) > 0 {
		return usagef("%s is a folder simrun did not create (it has no %s and is not empty): simrun replaces only its own output folders; choose another -out or empty it", out, MarkerFile)
	}
	return nil
}

// StagedFolder is an output folder built under a temporary name.
type StagedFolder struct {
	// out is the folder it becomes: the -out folder, or (base set) the
	// numbered folder commit allocates in base.
	Out, Tmp string
	base     string
	// latestNote says why base/latest was left as it was ("": updated).
	LatestNote string
	// made are the parent folders made for it, removed on abort.
	made []string
	// old is the previous output folder, moved aside by install and
	// removed by finish (or put back by rollback); "" if there was none.
	old string
}

// StageFolder checks that out may be replaced, cleans stale temporaries
// beside it, and creates the temporary folder (mode 0755 before umask) with
// the marker in it.
func StageFolder(out string) (*StagedFolder, error) {
	out = filepath.Clean(out)
	if err := CheckReplaceable(out); err != nil {
		return nil, err
	}
	busy := func(pid int) error {
		return usagef("%s: another simrun (process %d) is writing this folder now; wait for it to finish, or choose another -out", out, pid)
	}
	// Killed writers' temporaries go first (as stageTemp would remove
	// them); a live one's stays, and refuses this run.
	cleanStale(filepath.Dir(out), filepath.Base(out))
	if pid, ok := liveWriter(filepath.Dir(out), filepath.Base(out), ""); ok {
		return nil, busy(pid)
	}
	tmp, made, err := stageTemp(filepath.Dir(out), filepath.Base(out))
	if err != nil {
		return nil, err
	}
	// Two that started at once each see the other's temporary now: the
	// one whose temporary's name sorts first writes, the other refuses.
	if pid, ok := liveWriter(filepath.Dir(out), filepath.Base(out), filepath.Base(tmp)); ok {
		os.RemoveAll(tmp)
		UntrackTemp(tmp)
		removeMade(made)
		return nil, busy(pid)
	}
	return &StagedFolder{Out: out, Tmp: tmp, made: made}, nil
}

// liveWriter reports another process writing output folder name in dir
// (issue 38 point 10): a staged temporary of name whose marker another
// live process holds locked, with its process ID. With mine set (this
// process's own temporary), only a writer whose temporary sorts before it
// counts, so of two that staged at once exactly one goes on.
func liveWriter(dir, name, mine string) (int, bool) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, false
	}
	prefix := "." + name + TmpTag
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok || !e.IsDir() || (mine != "" && e.Name() >= mine) {
			continue
		}
		pidText, _, _ := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if err != nil || pid <= 0 || pid == os.Getpid() {
			continue
		}
		if held, exists := LockHeld(filepath.Join(dir, e.Name(), MarkerFile)); held && exists {
			return pid, true
		}
	}
	return 0, false
}

// stageTemp creates, in parent, the temporary folder that becomes parent's
// entry name, with the marker in it, after removing the stale temporaries
// of killed runs for that name. made are the parent folders it made
// (removed again if the output is not committed).
func stageTemp(parent, name string) (tmp string, made []string, err error) {
	if made, err = mkdirTracked(parent); err != nil {
		return "", nil, err
	}
	fail := func(err error) (string, []string, error) {
		if tmp != "" {
			os.RemoveAll(tmp)
			UntrackTemp(tmp)
		}
		removeMade(made)
		return "", nil, err
	}
	cleanStale(parent, name)
	// Born under NewTag, its marker created and locked, then renamed to
	// its TmpTag name: a TmpTag folder's free lock means its writer died.
	if tmp, err = os.MkdirTemp(parent, birthPrefix(name)); err != nil {
		return fail(err)
	}
	if err := TrackTemp(tmp); err != nil {
		return fail(err)
	}
	if err := os.Chmod(tmp, 0o755&^umask()); err != nil {
		return fail(err)
	}
	marker := filepath.Join(tmp, MarkerFile)
	f, err := os.OpenFile(marker, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fail(err)
	}
	f.Close()
	born := bornName(tmp)
	HoldLock(born, marker)
	if err := TrackTemp(born); err != nil {
		UntrackTemp(born)
		return fail(err)
	}
	if err := os.Rename(tmp, born); err != nil {
		UntrackTemp(born)
		return fail(err)
	}
	UntrackTemp(tmp)
	tmp, marker = born, filepath.Join(born, MarkerFile)
	if err := os.WriteFile(marker, []byte(MarkerText), 0o644); err != nil {
		return fail(err)
	}
	return tmp, made, nil
}

// Abort removes the staged folder.
func (s *StagedFolder) Abort() {
	os.RemoveAll(s.Tmp)
	UntrackTemp(s.Tmp)
	removeMade(s.made)
}

// Commit puts the staged folder in place of out (install, then finish):
// a previous output folder (checked again: it must still be simrun's or
// empty) is moved aside under a temporary name and removed once the new one
// is in place. A numbered result (base set) goes to a new numbered folder
// instead (installNumbered), replacing nothing, and base/latest names it.
func (s *StagedFolder) Commit() error {
	if err := s.Install(); err != nil {
		return err
	}
	s.Finish()
	return nil
}

// Install puts the staged folder in place, keeping what it replaced until
// Finish (or rollback, which undoes it). On error it has aborted.
func (s *StagedFolder) Install() error {
	if s.base != "" {
		return s.installNumbered()
	}
	if err := CheckReplaceable(s.Out); err != nil {
		s.Abort()
		return err
	}
	var old string
	if _, err := os.Lstat(s.Out); err == nil {
		old = filepath.Join(filepath.Dir(s.Out), tempPrefix(s.Out)+"old")
		if err := TrackTemp(old); err != nil {
			s.Abort()
			return err
		}
		if err := os.Rename(s.Out, old); err != nil {
			UntrackTemp(old)
			s.Abort()
			return err
		}
	}
	if err := os.Rename(s.Tmp, s.Out); err != nil {
		if old != "" {
			os.Rename(old, s.Out) // put the previous output back
			UntrackTemp(old)
		}
		s.Abort()
		return err
	}
	UntrackTemp(s.Tmp)
	keepMade(s.made)
	s.old = old
	return nil
}

// Finish completes an install: the replaced folder is removed, and a
// numbered result becomes base/latest.
func (s *StagedFolder) Finish() {
	if s.old != "" {
		os.RemoveAll(s.old)
		UntrackTemp(s.old)
		s.old = ""
	}
	if s.base != "" {
		if err := pointLatest(s.base, filepath.Base(s.Out)); err != nil {
			s.LatestNote = err.Error()
		}
	}
}

// Rollback undoes an install whose companions could not be put in place:
// the new folder is removed (it is simrun's: it was just made) and the one
// it replaced goes back, so the output is as it was before the run.
func (s *StagedFolder) Rollback() {
	gone := filepath.Join(filepath.Dir(s.Out), tempPrefix(s.Out)+"undo")
	if TrackTemp(gone) == nil {
		if os.Rename(s.Out, gone) == nil {
			os.RemoveAll(gone)
		}
		UntrackTemp(gone)
	}
	if s.old != "" {
		os.Rename(s.old, s.Out)
		UntrackTemp(s.old)
		s.old = ""
	}
	removeMade(s.made)
}

// AtomicFile writes to a temporary file beside path and renames it into
// place on commit, so a failed run never leaves a partial file. With path
// "-" it writes to standard output instead; a device, FIFO or path under
// /dev or /proc (stream) it writes in place (OutputTarget).
type AtomicFile struct {
	f      *os.File
	Tmp    string // f's name (its TmpTag name)
	W      *bufio.Writer
	Path   string
	stdout bool
	stream bool
	// made are the parent folders made for it, removed on abort.
	made []string
	// prev is the file install moved aside from path, removed by finish
	// (or put back by rollback); "" if path did not exist.
	prev      string
	installed bool
}

// CreateOutput is CreateAtomic, except that "-" writes to stdout.
func CreateOutput(path string, stdout io.Writer) (*AtomicFile, error) {
	if path == "-" {
		return &AtomicFile{W: bufio.NewWriterSize(stdout, 1<<16), Path: path, stdout: true}, nil
	}
	return CreateAtomic(path)
}

// CreateAtomic starts a file that commit will put at path (at a symbolic
// link's target), or opens a stream target for writing in place. It
// refuses a path that is an existing folder.
func CreateAtomic(path string) (*AtomicFile, error) {
	target, stream, err := OutputTarget(path)
	if err != nil {
		return nil, err
	}
	if stream {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
		if err != nil {
			return nil, err
		}
		return &AtomicFile{f: f, W: bufio.NewWriterSize(f, 1<<16), Path: path, stream: true}, nil
	}
	path = target
	dir := filepath.Dir(path)
	made, err := mkdirTracked(dir)
	if err != nil {
		return nil, err
	}
	cleanStale(dir, filepath.Base(path))
	// Born under NewTag, locked, then renamed to its TmpTag name (as a
	// staging folder: stageTemp).
	f, err := os.CreateTemp(dir, birthPrefix(path))
	if err != nil {
		removeMade(made)
		return nil, err
	}
	if err := TrackTemp(f.Name()); err != nil {
		f.Close()
		removeMade(made)
		return nil, err
	}
	born := bornName(f.Name())
	HoldLock(born, f.Name())
	if err := TrackTemp(born); err == nil {
		err = os.Rename(f.Name(), born)
		if err != nil {
			UntrackTemp(born)
		}
	}
	if err != nil {
		f.Close()
		os.Remove(f.Name())
		UntrackTemp(f.Name())
		removeMade(made)
		return nil, err
	}
	UntrackTemp(f.Name())
	a := &AtomicFile{f: f, Tmp: born, W: bufio.NewWriterSize(f, 1<<16), Path: path, made: made}
	if err := f.Chmod(0o644 &^ umask()); err != nil {
		a.Abort()
		return nil, err
	}
	return a, nil
}

// Abort discards the file: its temporary is removed (a stream keeps what
// was written; standard output is left alone).
func (a *AtomicFile) Abort() {
	switch {
	case a.stdout:
		return
	case a.stream:
		a.f.Close() // what was written stays: a stream cannot be staged
		return
	}
	a.f.Close()
	os.Remove(a.Tmp)
	UntrackTemp(a.Tmp)
	removeMade(a.made)
}

// Commit puts the file in place (install, then finish).
func (a *AtomicFile) Commit() error {
	if err := a.Install(); err != nil {
		return err
	}
	a.Finish()
	return nil
}

// Install puts the file at its path, keeping the file it replaces aside
// until finish (or rollback, which puts it back). A stream (stdout, a
// device, a FIFO) is written in place and cannot be undone. On error it has
// aborted.
func (a *AtomicFile) Install() error {
	if err := a.W.Flush(); err != nil {
		a.Abort()
		return err
	}
	switch {
	case a.stdout:
		return nil
	case a.stream:
		return a.f.Close()
	}
	if err := a.f.Close(); err != nil {
		a.Abort()
		return err
	}
	if st, err := os.Lstat(a.Path); err == nil && st.Mode().IsRegular() {
		prev := filepath.Join(filepath.Dir(a.Path), tempPrefix(a.Path)+"prev")
		if err := TrackTemp(prev); err != nil {
			a.Abort()
			return err
		}
		if err := os.Rename(a.Path, prev); err != nil {
			UntrackTemp(prev)
			a.Abort()
			return err
		}
		a.prev = prev
	}
	if err := os.Rename(a.Tmp, a.Path); err != nil {
		a.putBack()
		a.Abort()
		return err
	}
	UntrackTemp(a.Tmp)
	keepMade(a.made)
	a.installed = true
	return nil
}

// putBack returns the file install moved aside to its path.
func (a *AtomicFile) putBack() {
	if a.prev != "" {
		os.Rename(a.prev, a.Path)
		UntrackTemp(a.prev)
		a.prev = ""
	}
}

// Finish completes an install: the file it replaced is removed.
func (a *AtomicFile) Finish() {
	if a.prev != "" {
		os.Remove(a.prev)
		UntrackTemp(a.prev)
		a.prev = ""
	}
}

// Rollback undoes an install: the new file goes and the one it replaced
// comes back (a stream's bytes, already written, stay).
func (a *AtomicFile) Rollback() {
	if a.stdout || a.stream || !a.installed {
		return
	}
	if a.prev != "" {
		a.putBack() // replaces the new file
	} else {
		os.Remove(a.Path)
	}
	removeMade(a.made)
}

// SamePath reports whether two output paths name the same file.
func SamePath(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	if a == "-" || b == "-" {
		return a == b
	}
	x, err1 := filepath.Abs(a)
	y, err2 := filepath.Abs(b)
	return err1 == nil && err2 == nil && x == y
}
