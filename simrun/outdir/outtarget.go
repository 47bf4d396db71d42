package outdir

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// An output file's path is one of three things (docs/output.md, "Files"):
// a regular file or a new name, staged beside it and renamed into place;
// a symbolic link, followed (its target is staged and replaced, the link
// stays); or anything else (a device such as /dev/null, a FIFO, a
// /dev/fd/N of process substitution, any path under /dev or /proc),
// written in place as a stream: renaming over those would replace the
// device node or pipe with a regular file.

// stdoutAliases name standard output: an output given one of them goes
// to the stdout writer as "-" does (and the human summary to stderr).
var stdoutAliases = []string{"/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"}

// NormalizeOutput maps a name of standard output to "-".
func NormalizeOutput(path string) string {
	if slices.Contains(stdoutAliases, filepath.Clean(path)) {
		return "-"
	}
	return path
}

// OutputTarget is what an output file path names: stream true to write it
// in place, else the path to stage beside and rename over (a symbolic
// link's target). It refuses a folder, a dangling link, and a path whose
// nearest existing ancestor is not a folder.
func OutputTarget(path string) (target string, stream bool, err error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", false, err
	}
	special := strings.HasPrefix(abs, "/dev/") || strings.HasPrefix(abs, "/proc/")
	st, err := os.Stat(path)
	switch {
	case err == nil && st.IsDir():
		return "", false, usagef("%s is a folder, not a file", path)
	case err == nil && (special || !st.Mode().IsRegular()):
		return path, true, nil
	case err == nil:
		resolved, err := filepath.EvalSymlinks(path)
		if err != nil {
			return "", false, err
		}
		return resolved, false, nil
	}
	if lst, err := os.Lstat(path); err == nil && lst.Mode()&os.ModeSymlink != 0 {
		return "", false, usagef("%s is a symbolic link to a file that does not exist: simrun follows links and never replaces them; create the target or give another path", path)
	}
	if special {
		return "", false, usagef("%s does not exist: simrun creates no files under /dev or /proc", path)
	}
	// A new file: its nearest existing ancestor must be a folder simrun
	// can write in.
	for dir := filepath.Dir(abs); ; dir = filepath.Dir(dir) {
		st, err := os.Stat(dir)
		if errors.Is(err, os.ErrNotExist) && dir != filepath.Dir(dir) {
			continue
		}
		if err == nil && !st.IsDir() {
			return "", false, usagef("%s cannot be created: %s is not a folder", path, dir)
		}
		switch {
		case err != nil:
			return "", false, err
		case !st.IsDir():
			return "", false, usagef("%s cannot be created: %s is not a folder", path, dir)
		case !writable(dir):
			return "", false, usagef("%s cannot be created: %s is not writable", path, dir)
		}
		return path, false, nil
	}
}

// Inside reports whether path is dir or inside it (by absolute, cleaned
// names, following the links of both where they exist).
func Inside(path, dir string) bool {
	p, d := resolvedPath(path), resolvedPath(dir)
	return p == d || strings.HasPrefix(p, d+string(filepath.Separator))
}

// resolvedPath is path absolute and with the links of its longest existing
// prefix resolved.
func resolvedPath(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return path
	}
	rest := ""
	for cur := abs; ; cur = filepath.Dir(cur) {
		if r, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(r, rest)
		}
		if cur == filepath.Dir(cur) {
			return abs
		}
		rest = filepath.Join(filepath.Base(cur), rest)
	}
}

// mkdirTracked makes dir and its missing parents and returns those it
// made, outermost first, tracked so that a signal removes them (while
// empty) with the temporaries.
func mkdirTracked(dir string) ([]string, error) {
	var missing []string
	for cur := filepath.Clean(dir); ; cur = filepath.Dir(cur) {
		if _, err := os.Lstat(cur); err == nil || cur == filepath.Dir(cur) {
			break
		}
		missing = append(missing, cur)
	}
	slices.Reverse(missing)
	var made []string
	for _, d := range missing {
		err := os.Mkdir(d, 0o755)
		if errors.Is(err, os.ErrExist) {
			continue // another process made it: theirs
		}
		if err != nil {
			removeMade(made)
			return nil, err
		}
		made = append(made, d)
	}
	temps.Lock()
	if temps.parents == nil {
		temps.parents = map[string]bool{}
	}
	for _, d := range made {
		temps.parents[d] = true
	}
	temps.Unlock()
	return made, nil
}

// removeMade removes the folders mkdirTracked made, innermost first, each
// only if still empty.
func removeMade(made []string) {
	for i := len(made) - 1; i >= 0; i-- {
		os.Remove(made[i])
	}
	keepMade(made)
}

// keepMade forgets the folders mkdirTracked made: an output is in them.
func keepMade(made []string) {
	temps.Lock()
	for _, d := range made {
		delete(temps.parents, d)
	}
	temps.Unlock()
}

// removeParents removes every tracked parent folder, innermost first,
// each only if empty (for the signal handler; the lock is held).
func removeParents() {
	ps := make([]string, 0, len(temps.parents))
	for p := range temps.parents {
		ps = append(ps, p)
	}
	slices.SortFunc(ps, func(a, b string) int { return len(b) - len(a) })
	for _, p := range ps {
		os.Remove(p)
	}
	temps.parents = nil
}
