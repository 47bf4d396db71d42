package simrun

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/electsim/electsim/reports"
	"github.com/electsim/electsim/simrun/outdir"
)

// runsOut is where a sweep's runs file goes: reports.RunsFileName in the
// staged output folder (put in place with it), or the -runs file (staged
// beside its path and renamed into place on commit). A worker process
// without -runs writes none.
type runsOut struct {
	name   string // Summary.RunsFile
	sink   *runsSink
	w      *reports.RunsWriter
	file   *os.File           // in the staged folder
	atomic *outdir.AtomicFile // -runs
	closed bool
}

// openRunsFile starts the runs file for o in folder (nil: none unless -runs).
func openRunsFile(o *options, folder *outdir.StagedFolder) (*runsOut, error) {
	ro := &runsOut{}
	switch {
	case o.runs != "":
		af, err := outdir.CreateAtomic(o.runs)
		if err != nil {
			return nil, err
		}
		ro.atomic, ro.name = af, o.runs
		ro.w = reports.NewRunsWriter(af.W, strings.HasSuffix(o.runs, ".gz"))
	case folder != nil:
		f, err := os.Create(filepath.Join(folder.Tmp, reports.RunsFileName))
		if err != nil {
			return nil, err
		}
		ro.file, ro.name = f, reports.RunsFileName
		ro.w = reports.NewRunsWriter(f, true)
	default:
		return ro, nil
	}
	ro.sink = newRunsSink(ro.w)
	return ro, nil
}

// write writes one run (a sweep of one, or runs merged in order).
func (ro *runsOut) write(r *reports.RunSummary) error {
	if ro.w == nil {
		return nil
	}
	line, err := reports.EncodeRun(r)
	if err != nil {
		return err
	}
	return ro.w.WriteLine(line)
}

// close writes what is pending and flushes; the file is complete.
func (ro *runsOut) close() error {
	if ro.w == nil || ro.closed {
		return nil
	}
	ro.closed = true
	if err := ro.sink.close(); err != nil {
		return err
	}
	if ro.file != nil {
		return ro.file.Close()
	}
	return nil
}

// Install puts a -runs file in place (the folder's goes with the folder).
func (ro *runsOut) Install() error {
	if ro.atomic != nil {
		return ro.atomic.Install()
	}
	return nil
}

// Finish completes install.
func (ro *runsOut) Finish() {
	if ro.atomic != nil {
		ro.atomic.Finish()
	}
}

// Rollback undoes install.
func (ro *runsOut) Rollback() {
	if ro.atomic != nil {
		ro.atomic.Rollback()
	}
}

// Abort removes a -runs file (the folder's goes with the folder).
func (ro *runsOut) Abort() {
	if ro.file != nil && !ro.closed {
		ro.file.Close()
	}
	if ro.atomic != nil {
		ro.atomic.Abort()
	}
}

// commit puts a -runs file in place at once (install, then finish).
func (ro *runsOut) commit() error {
	if err := ro.Install(); err != nil {
		return err
	}
	ro.Finish()
	return nil
}
