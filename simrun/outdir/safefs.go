package outdir

import (
	"errors"
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
