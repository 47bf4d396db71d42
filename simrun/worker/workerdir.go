package worker

import (
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/electsim/electsim/simrun/outdir"
)

// DirPrefix names the temporary folder (in os.TempDir) where a sweep
// in worker processes collects their summaries and runs files.
const DirPrefix = "simrun-workers-"

// workerDirBirth names a worker folder being made: it gets its
// DirPrefix name once its lock is held (as a staging folder's
// outdir.NewTag name), so a worker folder whose lock is free was left
// by a sweep that is gone.
const workerDirBirth = "simrun-workers.new-"

// LockFile is the lock file in a worker folder: its sweep holds an
// flock on it for its lifetime (outdir.HoldLock), as on every temporary.
const LockFile = ".simrun-lock"

// MakeDir removes the worker folders of sweeps that were killed
// (SIGKILL leaves them: nothing of the process runs) and creates this
// sweep's, locked and tracked so a signal removes it; done removes it.
func MakeDir() (dir string, done func(), err error) {
	cleanWorkerDirs(os.TempDir())
	birth, err := os.MkdirTemp("", workerDirBirth)
	if err != nil {
		return "", nil, err
	}
	if err := outdir.TrackTemp(birth); err != nil {
		return "", nil, err
	}
	fail := func(err error) (string, func(), error) {
		os.RemoveAll(birth)
		outdir.UntrackTemp(birth)
		return "", nil, err
	}
	dir = filepath.Join(filepath.Dir(birth), DirPrefix+strings.TrimPrefix(filepath.Base(birth), workerDirBirth))
	f, err := os.OpenFile(filepath.Join(birth, LockFile), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fail(err)
	}
	f.Close()
	outdir.HoldLock(dir, filepath.Join(birth, LockFile))
	if err := outdir.TrackTemp(dir); err != nil {
		outdir.UntrackTemp(dir)
		return fail(err)
	}
	if err := os.Rename(birth, dir); err != nil {
		outdir.UntrackTemp(dir)
		return fail(err)
	}
	outdir.UntrackTemp(birth)
	return dir, func() { os.RemoveAll(dir); outdir.UntrackTemp(dir) }, nil
}

// cleanWorkerDirs removes, in tmp, the worker folders whose sweep is gone:
// their lock file's lock is free (a live sweep in any PID namespace holds
// its lock, taken before the folder had its name). One being made
// (workerDirBirth) is removed only past outdir.StaleGrace with its lock free; a
// folder without a lock file (an older simrun's) is left alone.
func cleanWorkerDirs(tmp string) {
	entries, err := os.ReadDir(tmp)
	if err != nil {
		return
	}
	for _, e := range entries {
		born := strings.HasPrefix(e.Name(), DirPrefix)
		if !e.IsDir() || !born && !strings.HasPrefix(e.Name(), workerDirBirth) {
			continue
		}
		dir := filepath.Join(tmp, e.Name())
		st, err := os.Lstat(dir)
		if err != nil || !born && time.Since(st.ModTime()) < outdir.StaleGrace {
			continue
		}
		if held, exists := outdir.LockHeld(filepath.Join(dir, LockFile)); exists && !held {
			os.RemoveAll(dir)
		}
	}
}
