package reports

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// batch writes files atomically as a group: each goes to a temporary file
// in the target directory (so the rename cannot cross file systems) and all
// are renamed into place by commit. abort removes whatever temporaries are
// left, so a failure never leaves a half-written or stray file.
type batch struct {
	dir   string
	temps []string // temporary paths, parallel to finals
	final []string
}

func newBatch(dir string) *batch { return &batch{dir: dir} }

// add writes data to a temporary file that commit renames to name (relative
// to the batch's directory).
func (b *batch) add(name string, data []byte) error {
	f, err := os.CreateTemp(b.dir, "."+name+".tmp-*")
	if err != nil {
		return fmt.Errorf("reports: %w", err)
	}
	b.temps = append(b.temps, f.Name())
	b.final = append(b.final, filepath.Join(b.dir, name))
	_, err = f.Write(data)
	if err == nil {
		// CreateTemp makes 0600 files; reports are ordinary readable files.
		err = f.Chmod(0o644)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("reports: writing %s: %w", name, err)
	}
	return nil
}

// commit renames every temporary file into place.
func (b *batch) commit() error {
	for i, tmp := range b.temps {
		if err := os.Rename(tmp, b.final[i]); err != nil {
			return fmt.Errorf("reports: %w", err)
		}
		b.temps[i] = ""
	}
	return nil
}

// abort removes the temporaries not yet renamed; after commit it does nothing.
func (b *batch) abort() {
	for i, tmp := range b.temps {
		if tmp != "" {
			_ = os.Remove(tmp)
			b.temps[i] = ""
		}
	}
}

// writeFileAtomic writes data to path through a temporary file and a rename.
func writeFileAtomic(path string, data []byte) error {
	dir, name := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	if name == "" {
		return errors.New("reports: empty file name")
	}
	b := newBatch(dir)
	defer b.abort()
	if err := b.add(name, data); err != nil {
		return err
	}
	return b.commit()
}
