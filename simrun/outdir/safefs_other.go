//go:build !unix

package outdir

import (
	"os"
	"strings"
)

// alive reports whether process pid may exist. Without a portable probe
// it says yes, so another process's temporaries are never removed: a
// killed run's leftovers stay (named .<name>.simrun-tmp-<pid>-…) rather
// than risk deleting a live run's.
func alive(pid int) bool { return true }

// umask is the file mode creation mask: none outside Unix (Windows file
// modes carry only the read-only bit).
func umask() os.FileMode { return 0 }

// replaceEmptyDir puts the folder tmp in place of the empty folder dir.
// A folder cannot be renamed over another here, so dir is removed first;
// if another process takes the name in between, errNumberTaken (dir is
// then theirs).
func replaceEmptyDir(tmp, dir string) error {
	if err := os.Remove(dir); err != nil {
		return err
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, e := os.Lstat(dir); e == nil {
			return errNumberTaken
		}
		return err
	}
	return nil
}

// maxLatestSize bounds the latest file read back (it holds one name).
const maxLatestSize = 64

// readLatest is the folder name the latest file holds (ok false if it is
// not a small regular file).
func readLatest(path string) (string, bool) {
	st, err := os.Lstat(path)
	if err != nil || !st.Mode().IsRegular() || st.Size() > maxLatestSize {
		return "", false
	}
	b, err := os.ReadFile(path)
	return strings.TrimSpace(string(b)), err == nil
}

// writeLatest writes the folder name to the file path: without symbolic
// links, latest is a text file holding the newest result's name.
func writeLatest(path, name string) error { return os.WriteFile(path, []byte(name+"\n"), 0o644) }

// writable reports whether the process may create files in dir: without
// a portable probe, yes (creating the file then says why not).
func writable(dir string) bool { return true }
