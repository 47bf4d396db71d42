package outdir

// Output is one staged output of a command: a folder, a -runs, -json or
// trace file. Outputs are put in place in two phases, so that several of
// them land all or nothing.
type Output interface {
	// install puts the output in place, keeping what it replaces until
	// finish; on error it has aborted itself.
	Install() error
	// finish removes what install replaced.
	Finish()
	// rollback undoes a successful install: what it replaced comes back.
	Rollback()
	// abort discards an output that was never installed.
	Abort()
}

// CommitAll installs outs in order; if one fails, the ones installed are
// rolled back (newest first) and the rest aborted, so the paths are as they
// were before the command. Once every install succeeded, each is finished.
func CommitAll(outs ...Output) error {
	for i, o := range outs {
		if err := o.Install(); err != nil {
			for k := i - 1; k >= 0; k-- {
				outs[k].Rollback()
			}
			for _, rest := range outs[i+1:] {
				rest.Abort()
			}
			return err
		}
	}
	for _, o := range outs {
		o.Finish()
	}
	return nil
}
