//go:build unix

package outdir

import (
	"errors"
	"os"
	"sync"
	"syscall"
)

// alive reports whether process pid exists (signal 0 probes without
// sending; EPERM means it exists under another user).
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

var umaskOnce struct {
	sync.Once
	v os.FileMode
}

// umask is the process's file mode creation mask (read once: reading it
// means setting it).
func umask() os.FileMode {
	umaskOnce.Do(func() {
		m := syscall.Umask(0)
		syscall.Umask(m)
		umaskOnce.v = os.FileMode(m)
	})
	return umaskOnce.v
}

// replaceEmptyDir renames the folder tmp over the empty folder dir, in one
// step (rename(2) replaces an empty folder; os.Rename refuses any), so dir
// never stops existing for another process to take. On failure it removes
// dir, still empty.
func replaceEmptyDir(tmp, dir string) error {
	if err := syscall.Rename(tmp, dir); err != nil {
		os.Remove(dir)
		return &os.LinkError{Op: "rename", Old: tmp, New: dir, Err: err}
	}
	return nil
}

// readLatest is the folder name the latest link holds (ok false if it is
// not a symbolic link).
func readLatest(link string) (string, bool) {
	st, err := os.Lstat(link)
	if err != nil || st.Mode()&os.ModeSymlink == 0 {
		return "", false
	}
	name, err := os.Readlink(link)
	return name, err == nil
}

// writeLatest makes path a relative symbolic link to the folder name.
func writeLatest(path, name string) error { return os.Symlink(name, path) }

// writable reports whether the process may create files in dir.
func writable(dir string) bool { return syscall.Access(dir, 2 /* W_OK */) == nil }

// SetCachedUmask makes umask report m: for a test that changed the
// process's mask after umask read it once.
func SetCachedUmask(m os.FileMode) {
	umaskOnce.Do(func() {})
	umaskOnce.v = m
}
