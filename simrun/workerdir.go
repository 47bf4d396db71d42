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

// workerLockFile is the lock file in a worker folder: its sweep holds an
// flock on it for its lifetime (holdLock), as on every temporary.
const workerLockFile = ".simrun-lock"

// makeWorkerDir removes the worker folders of sweeps that were killed
// (SIGKILL leaves them: nothing of the process runs) and creates this
// sweep's, locked and tracked so a signal removes it; done removes it.
func makeWorkerDir() (dir string, done func(), err error) {
	cleanWorkerDirs(os.TempDir())
	dir, err = os.MkdirTemp("", workerDirPrefix)
	if err != nil {
		return "", nil, err
	}
	if err := trackTemp(dir); err != nil {
		return "", nil, err
	}
	lock := filepath.Join(dir, workerLockFile)
	if f, err := os.OpenFile(lock, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600); err == nil {
		f.Close()
		holdLock(dir, lock)
	}
	return dir, func() { os.RemoveAll(dir); untrackTemp(dir) }, nil
}

// cleanWorkerDirs removes, in tmp, the worker folders whose sweep is gone:
// their lock file's lock is free and they are older than staleGrace (a
// live sweep in any PID namespace holds its lock). A folder without a lock
// file (an older simrun's, or one being made) is left alone.
func cleanWorkerDirs(tmp string) {
	entries, err := os.ReadDir(tmp)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), workerDirPrefix) {
			continue
		}
		dir := filepath.Join(tmp, e.Name())
		st, err := os.Lstat(dir)
		if err != nil || time.Since(st.ModTime()) < staleGrace {
			continue
		}
		if held, exists := lockHeld(filepath.Join(dir, workerLockFile)); exists && !held {
			os.RemoveAll(dir)
		}
	}
}
