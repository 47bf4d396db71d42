package simrun

import "github.com/electsim/electsim/hunt"

import "github.com/electsim/electsim/simrun/worker"

import "github.com/electsim/electsim/scenario"

import "errors"

import "context"

import "fmt"

import "github.com/electsim/electsim/registry"

// buildAs builds sc's run of seed under algorithm a, in a worker process
// when isolated (isolatedBuild), and returns why it could not be built.
func buildAs(o *options, sc *scenario.Scenario, seed uint64, a string, isolated bool) error {
	if isolated {
		return isolatedBuild(o, sc, seed, algoOverride(sc, a))
	}
	_, err := sc.Build(scenario.RunOptions{Seed: seed, Algorithm: algoOverride(sc, a)})
	return err
}

// isolatedBuild builds sc's run of seed under algo (an override; "" keeps
// the file's) in a worker process, under its watchdog, and returns why it
// could not be built: a *hunt.DiedError when the build killed the worker.
// The worker reads sc's file with its -set overrides in full first
// (hunt.ClusterJob.Source): this process read it without the algorithm's
// own checks; a file it refuses is a usageError in the loader's words.
func isolatedBuild(o *options, sc *scenario.Scenario, seed uint64, algo string) error {
	pool, err := worker.NewHuntPool(o.prog, o.handlerMax)
	if err != nil {
		return err
	}
	defer pool.Close()
	src, err := scenario.ReadFile(sc.File)
	if err != nil {
		return usageError{err.Error()}
	}
	res, err := pool.Cluster(context.Background(), hunt.ClusterJob{Seed: seed, Name: sc.File, Source: string(src), Sets: sc.Sets, Algorithm: algo, Running: o.algos})
	switch {
	case err != nil:
		return err
	case res.Crash != "":
		return &hunt.DiedError{Msg: res.Crash}
	case res.LoadErr != "":
		return usageError{res.LoadErr}
	case res.Err != "":
		return errors.New(res.Err)
	}
	return nil
}

// checkLoads has a worker process read the sweep's file in full, once per
// grid cell (with the cell's -set overrides), before this process trusts
// what it read without the algorithm's code: the algorithm's checks of
// its parameters are user code that may exit, block or overflow its
// stack. A cell the loader refuses is exit 2 in its words; a worker the
// checks (or the build of the file's algorithm, algo, that follows them)
// killed, exit 1. read, if given, hears what the worker found of each
// cell that loaded (usercode.go: the lease store count).
func checkLoads(o *options, seed uint64, algo string, read ...func(cell int, res hunt.ClusterResult)) (int, error) {
	src, err := scenario.ReadFile(o.scenario)
	if err != nil {
		return exitUsage, usageError{err.Error()}
	}
	pool, err := worker.NewHuntPool(o.prog, o.handlerMax)
	if err != nil {
		return exitUsage, err
	}
	defer pool.Close()
	for i, c := range o.cells {
		res, err := pool.Cluster(context.Background(), hunt.ClusterJob{Seed: seed, Name: o.scenario, Source: string(src), Sets: cellSets(o, c), Running: o.algos})
		var died *hunt.DiedError
		switch {
		case errors.As(err, &died):
			return exitViolation, fmt.Errorf("%s under %s: %v", o.scenario, algo, err)
		case err != nil:
			if _, code, ok := interruption(); ok {
				return code, errors.New("stopped by a signal while a worker process read the scenario; nothing written")
			}
			return exitUsage, err
		case res.LoadErr != "":
			return exitUsage, cellError(c, "-vary", errors.New(res.LoadErr))
		}
		for _, f := range read {
			f(i, res)
		}
	}
	return exitOK, nil
}

// userAlgorithm reports whether sc's algorithm is not built into electsim
// (its code is the user's: registry.Algorithm.InProcess unset).
func userAlgorithm(sc *scenario.Scenario) bool {
	d, ok := registry.Default.Lookup(sc.AlgorithmName(""))
	return ok && !d.InProcess
}
