package simrun

// output is one staged output of a command: a folder, a -runs, -json or
// trace file. Outputs are put in place in two phases, so that several of
// them land all or nothing.
type output interface {
	// install puts the output in place, keeping what it replaces until
	// finish; on error it has aborted itself.
	install() error
	// finish removes what install replaced.
	finish()
	// rollback undoes a successful install: what it replaced comes back.
	rollback()
	// abort discards an output that was never installed.
	abort()
}

// commitAll installs outs in order; if one fails, the ones installed are
// rolled back (newest first) and the rest aborted, so the paths are as they
// were before the command. Once every install succeeded, each is finished.
func commitAll(outs ...output) error {
	for i, o := range outs {
		if err := o.install(); err != nil {
			for k := i - 1; k >= 0; k-- {
				outs[k].rollback()
			}
			for _, rest := range outs[i+1:] {
				rest.abort()
			}
			return err
		}
	}
	for _, o := range outs {
		o.finish()
	}
	return nil
}
