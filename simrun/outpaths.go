package simrun

import "github.com/electsim/electsim/simrun/outdir"

// checkOutputPaths refuses, before any work, output files simrun could
// not write: a folder, a path that cannot be created, a file inside the
// -out folder (replaced whole by the folder's commit).
func checkOutputPaths(o *options) error {
	for _, f := range []struct{ flag, path string }{{"-json", o.json}, {"-trace", o.trace}, {"-perfetto", o.perfetto}, {"-materialize", o.materialize}, {"-runs", o.runs}} {
		if f.path == "" || f.path == "-" {
			continue
		}
		if o.out != "" && outdir.Inside(f.path, o.out) {
			return usagef("%s %s is inside -out %s, which simrun replaces whole: write it elsewhere", f.flag, f.path, o.out)
		}
		if _, _, err := outdir.OutputTarget(f.path); err != nil {
			return usagef("%s: %v", f.flag, err)
		}
	}
	return nil
}
