package simrun

import (
	"fmt"
	"slices"

	"github.com/electsim/electsim/hunt"
	"github.com/electsim/electsim/registry"
	"github.com/electsim/electsim/scenario"
	"github.com/electsim/electsim/simrun/worker"
)

// User code read in a worker. A sweep reads its file without the code of
// an algorithm not built into electsim (scenario.ParseOptions.
// DeferUserCode) and has a worker process read it in full (checkLoads):
// the algorithm's checks of its parameters and its count of lease stores
// (registry.Algorithm.LeaseStores) may exit, block or panic. The file's
// own algorithm goes to the worker even when -algo runs others in its
// place: the file is still read for it (its section, its lease stores,
// which place the nodes its faults name).

// fileIsolated reports whether the file's own algorithm (sc's) is one a
// sweep of runs runs would isolate if it ran it (isolation): its code
// runs only in worker processes, whichever algorithms the sweep runs.
func fileIsolated(o *options, sc *scenario.Scenario, runs int, worker bool) bool {
	iso, _ := isolation(o, []string{sc.AlgorithmName("")}, runs, worker, registry.Default.Lookup)
	return iso
}

// checkedCells has a worker process read the sweep's file in full, once
// per grid cell (checkLoads, whose exit status and error it returns), and
// returns scs with each cell whose lease store count was pending (the
// user's code decides it: scenario/leasestores.go) read again, still
// without the algorithm's code, with the count the worker reported. po
// is how scs were read (DeferUserCode, Running); flagName names the flag
// of the cells' values in an error.
func checkedCells(o *options, scs []*scenario.Scenario, seed uint64, flagName string, po scenario.ParseOptions) ([]*scenario.Scenario, int, error) {
	res := make([]hunt.ClusterResult, len(scs))
	algo := scs[0].AlgorithmName("")
	if code, err := checkLoads(o, seed, algo, func(cell int, r hunt.ClusterResult) { res[cell] = r }); err != nil {
		return nil, code, err
	}
	out := slices.Clone(scs)
	for i, sc := range scs {
		if !sc.LeaseStoresPending() {
			continue
		}
		if res[i].Crash != "" || res[i].LeaseStores == 0 {
			// The algorithm's code panicked while the worker read the
			// file: its crash, not bad input.
			return nil, exitViolation, fmt.Errorf("%s under %s: %s", o.scenario, algo, worker.OneLine(res[i].Crash+res[i].Err))
		}
		po.DeferUserCode, po.LeaseStores = true, res[i].LeaseStores
		again, err := scenario.LoadWithOptions(o.scenario, cellSets(o, o.cells[i]), po)
		if err != nil {
			return nil, exitUsage, cellError(o.cells[i], flagName, err)
		}
		again.Program = sc.Program
		out[i] = again
	}
	return out, exitOK, nil
}
