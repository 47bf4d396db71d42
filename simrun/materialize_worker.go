package simrun

import (
	"context"
	"errors"
	"fmt"

	"github.com/electsim/electsim/hunt"
	"github.com/electsim/electsim/registry"
	"github.com/electsim/electsim/scenario"
	"github.com/electsim/electsim/simrun/worker"
)

// -materialize runs one seed. When the file's algorithm or the one that
// runs is not built into electsim (isolation), the run is the user's
// code, so it runs in a worker process under the watchdog
// (hunt.Materialize), and this process only writes the text the worker
// sends back: a run that exits, blocks or overflows its stack is exit 1
// in one line, not this process's end.

// materializeRun runs seed of sc under algo (an override; "" keeps the
// file's) and returns the run made concrete, named as -materialize names
// it: here, or in a worker process.
func materializeRun(o *options, sc *scenario.Scenario, seed uint64, algo string) (hunt.MaterializeResult, int, error) {
	name := derivedName(sc.Name, "-seed"+uitoa(seed))
	if iso, _ := isolation(o, []string{sc.AlgorithmName(algo)}, 1, worker.IsWorker(), registry.Default.Lookup); !iso && !fileIsolated(o, sc, 1, worker.IsWorker()) {
		if userAlgorithm(sc) {
			// Read without the algorithm's code (a sweep's first reading):
			// here (-isolate=false), read in full.
			full, err := scenario.LoadWithOptions(sc.File, sc.Sets, scenario.ParseOptions{Running: o.algos})
			if err != nil {
				return hunt.MaterializeResult{}, exitUsage, usageError{err.Error()}
			}
			full.Program, sc = sc.Program, full
		}
		r, err := sc.Run(scenario.RunOptions{Seed: seed, Algorithm: algo, PorcupineTimeout: o.porcupine})
		if err != nil {
			return hunt.MaterializeResult{}, exitUsage, err
		}
		explicit := r.Explicit() // a copy: renaming it changes no run
		explicit.Name = name
		return hunt.MaterializeResult{YAML: string(explicit.YAML()), Hash: r.Sim.TraceHashHex(), Faults: len(explicit.Faults)}, exitOK, nil
	}
	src, err := scenario.ReadFile(sc.File)
	if err != nil {
		return hunt.MaterializeResult{}, exitUsage, usageError{err.Error()}
	}
	pool, err := worker.NewHuntPool(o.prog, o.handlerMax)
	if err != nil {
		return hunt.MaterializeResult{}, exitUsage, err
	}
	defer pool.Close()
	j := hunt.MaterializeJob{Seed: seed, Name: sc.File, Source: string(src), Sets: sc.Sets, Algorithm: algo, Running: o.algos,
		PorcupineTimeout: o.porcupine, ExplicitName: name}
	res, err := pool.Materialize(context.Background(), j)
	var died *hunt.DiedError
	switch {
	case errors.As(err, &died):
		return hunt.MaterializeResult{}, exitViolation, fmt.Errorf("%s under %s: seed %d: %s", o.scenario, sc.AlgorithmName(algo), seed, died.Msg)
	case err != nil:
		if _, code, ok := interruption(); ok {
			return hunt.MaterializeResult{}, code, errors.New("stopped by a signal while a worker process ran the seed; nothing written")
		}
		return hunt.MaterializeResult{}, exitUsage, err
	case res.LoadErr != "":
		return hunt.MaterializeResult{}, exitUsage, usageError{res.LoadErr}
	case res.Crash != "":
		return hunt.MaterializeResult{}, exitViolation, fmt.Errorf("%s under %s: seed %d: %s", o.scenario, sc.AlgorithmName(algo), seed, worker.OneLine(res.Crash))
	case res.Err != "":
		return hunt.MaterializeResult{}, exitUsage, errors.New(res.Err)
	}
	return res, exitOK, nil
}
