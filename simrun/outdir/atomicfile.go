package outdir

import "io"

import "os"

import "bufio"

import "path/filepath"

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
