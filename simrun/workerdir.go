package simrun

import (
	"os"
	"path/filepath"
	"strings"
	"time"
)

// workerDirPrefix names the temporary folder (in os.TempDir) where a sweep
// in worker processes collects their summaries and runs files.
const workerDirPrefix = "simrun-workers-"

// workerDirBirth names a worker folder being made: it gets its
// workerDirPrefix name once its lock is held (as a staging folder's
// newTag name: safefs.go), so a worker folder whose lock is free was left
// by a sweep that is gone.
const workerDirBirth = "simrun-workers.new-"

// workerLockFile is the lock file in a worker folder: its sweep holds an
// flock on it for its lifetime (holdLock), as on every temporary.
const workerLockFile = ".simrun-lock"

// makeWorkerDir removes the worker folders of sweeps that were killed
// (SIGKILL leaves them: nothing of the process runs) and creates this
// sweep's, locked and tracked so a signal removes it; done removes it.
func makeWorkerDir() (dir string, done func(), err error) {
	cleanWorkerDirs(os.TempDir())
	birth, err := os.MkdirTemp("", workerDirBirth)
	if err != nil {
		return "", nil, err
	}
	if err := trackTemp(birth); err != nil {
		return "", nil, err
	}
	fail := func(err error) (string, func(), error) {
		os.RemoveAll(birth)
		untrackTemp(birth)
		return "", nil, err
	}
	dir = filepath.Join(filepath.Dir(birth), workerDirPrefix+strings.TrimPrefix(filepath.Base(birth), workerDirBirth))
	f, err := os.OpenFile(filepath.Join(birth, workerLockFile), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fail(err)
	}
	f.Close()
	holdLock(dir, filepath.Join(birth, workerLockFile))
	if err := trackTemp(dir); err != nil {
		untrackTemp(dir)
		return fail(err)
	}
	if err := os.Rename(birth, dir); err != nil {
		untrackTemp(dir)
		return fail(err)
	}
	untrackTemp(birth)
	return dir, func() { os.RemoveAll(dir); untrackTemp(dir) }, nil
}

// cleanWorkerDirs removes, in tmp, the worker folders whose sweep is gone:
// their lock file's lock is free (a live sweep in any PID namespace holds
// its lock, taken before the folder had its name). One being made
// (workerDirBirth) is removed only past staleGrace with its lock free; a
// folder without a lock file (an older simrun's) is left alone.
func cleanWorkerDirs(tmp string) {
	entries, err := os.ReadDir(tmp)
	if err != nil {
		return
	}
	for _, e := range entries {
		born := strings.HasPrefix(e.Name(), workerDirPrefix)
		if !e.IsDir() || !born && !strings.HasPrefix(e.Name(), workerDirBirth) {
			continue
		}
		dir := filepath.Join(tmp, e.Name())
		st, err := os.Lstat(dir)
		if err != nil || !born && time.Since(st.ModTime()) < staleGrace {
			continue
		}
		if held, exists := lockHeld(filepath.Join(dir, workerLockFile)); exists && !held {
			os.RemoveAll(dir)
		}
	}
}
