package hunt

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/electsim/electsim/contract"
	"github.com/electsim/electsim/registry"
	"github.com/electsim/electsim/scenario"
	"github.com/electsim/electsim/sim"
)

// Building a configuration without running it. The search learns a
// configuration's nodes, services and contract by building one run of it
// (loadCluster), and sizes the built-in base by the algorithm's timescale
// the same way (loadBase). Building calls the algorithm's factory, user
// code that may call os.Exit or block: with Options.Runner the build
// happens in a worker process too (Runner.Cluster), under the same
// watchdog as its handlers, and the searching process only reads what the
// worker sends back.

// ClusterJob is one configuration to build (not run), as a value that
// crosses a process boundary as JSON.
type ClusterJob struct {
	// Seed is the run seed (the search builds its configurations with
	// seed 1).
	Seed uint64 `json:"seed"`
	// Name is the scenario's file name; Scenario the configuration's
	// scenario file (scenario.Scenario.YAML); Algorithm overrides its
	// algorithm ("" keeps it).
	Name      string `json:"name"`
	Scenario  string `json:"scenario,omitempty"`
	Algorithm string `json:"algorithm,omitempty"`
	// Source and Sets, when Source is set, are the file as the user gave
	// it and the -set overrides, read instead of Scenario and in full
	// (scenario.ParseWith): the process that sends the job read them
	// with scenario.ParseOptions.DeferUserCode, so the algorithm's own
	// checks of its parameters run here first, and their errors carry
	// the file's own positions.
	Source string   `json:"source,omitempty"`
	Sets   []string `json:"sets,omitempty"`
	// Running are the algorithms the file is read to run under (-algo;
	// nil: its own), so -set applies to them (scenario.ParseRunning).
	Running []string `json:"running,omitempty"`
	// DriftRates, when set, ask only for the file's algorithm's analytic
	// drift margin at each of these follower clock rates
	// (scenario.Scenario.DriftMargin: the algorithm's own code, for simrun
	// margin); the run is not built.
	DriftRates []float64 `json:"drift_rates,omitempty"`
	// Caveat, when set, asks only for what the algorithm with the file's
	// values does not promise (scenario.Scenario.Caveat: the algorithm's
	// own Contract, for simrun list); the run is not built.
	Caveat bool `json:"caveat,omitempty"`
}

// DriftBound is the analytic drift margin at one rate; OK false when the
// algorithm has none (scenario.Scenario.DriftMargin).
type DriftBound struct {
	Margin registry.Margin `json:"margin"`
	OK     bool            `json:"ok,omitempty"`
}

// ClusterResult is what building a ClusterJob's run showed.
type ClusterResult struct {
	// Algorithm is the run's algorithm; Candidates, Stores and Resource
	// its nodes (Resource sim.None: no fenced resource); HasResource and
	// HasStore whether it has a fenced resource and a lease store.
	Algorithm   string       `json:"algorithm"`
	Candidates  []sim.NodeID `json:"candidates,omitempty"`
	Stores      []sim.NodeID `json:"stores,omitempty"`
	Resource    sim.NodeID   `json:"resource"`
	HasResource bool         `json:"has_resource,omitempty"`
	HasStore    bool         `json:"has_store,omitempty"`
	// Contract and Declared are the run's contract, resolved and as
	// declared; Timescale the algorithm's (scenario.Run.Timescale).
	Contract  contract.Contract `json:"contract"`
	Declared  contract.Contract `json:"declared"`
	Timescale time.Duration     `json:"timescale_ns,omitempty"`
	// CronStates are the cron mode's protocol states (queue, beat and
	// controller steps), after the algorithm's: cron.Config.States.
	CronStates []string `json:"cron_states,omitempty"`
	// LoadErr is why the job's file does not load (the loader's errors,
	// the algorithm's checks of its parameters among them); Err why the
	// run could not be built (a configuration the algorithm refuses, a
	// panic in its factory).
	LoadErr string `json:"load_err,omitempty"`
	Err     string `json:"err,omitempty"`
	// Crash is a panic of the algorithm's code while the worker read the
	// file or built the run: the algorithm's crash, as if it had killed
	// the worker (a DiedError), not a configuration it refuses.
	Crash string `json:"crash,omitempty"`
	// LeaseStores is how many lease store nodes runs of the file's own
	// algorithm have (scenario.Scenario.LeaseStoreCount), once the file
	// loaded: the user's code decides it, so a process that read the file
	// without it reads it again with this count
	// (scenario.ParseOptions.LeaseStores).
	LeaseStores int `json:"lease_stores,omitempty"`
	// Drift are the drift margins at ClusterJob.DriftRates, in order.
	Drift []DriftBound `json:"drift,omitempty"`
	// Caveat is what the algorithm with the file's values does not
	// promise (scenario.Scenario.Caveat), for ClusterJob.Caveat and every
	// build.
	Caveat string `json:"caveat,omitempty"`
}

// DiedError is a worker process that died (or overran its watchdog)
// while it built a configuration: the algorithm's factory called os.Exit,
// overflowed its stack or did not return. Search returns it when the
// base's configuration killed its worker; simrun reports it as the
// algorithm's crash, not as bad input.
type DiedError struct{ Msg string }

func (e *DiedError) Error() string { return e.Msg }

// BuildCluster builds j's run in this process (a worker's side of
// Runner.Cluster); a panic in the algorithm's code (its checks, its
// store count, its factory) is its Crash.
func BuildCluster(j ClusterJob) (res ClusterResult) {
	defer func() {
		if p := recover(); p != nil {
			res = ClusterResult{Crash: fmt.Sprintf("building the run panicked: %v", p)}
		}
	}()
	var sc *scenario.Scenario
	var err error
	if j.Source != "" {
		if sc, err = scenario.ParseRunning(j.Name, []byte(j.Source), j.Sets, j.Running); err != nil {
			return ClusterResult{LoadErr: err.Error()}
		}
	} else if sc, err = scenario.Parse(j.Name, []byte(j.Scenario)); err != nil {
		return ClusterResult{Err: err.Error()}
	}
	stores := sc.LeaseStoreCount()
	if j.Caveat {
		return ClusterResult{Algorithm: sc.AlgorithmName(j.Algorithm), LeaseStores: stores, Caveat: sc.Caveat(j.Algorithm)}
	}
	if len(j.DriftRates) > 0 {
		res = ClusterResult{Algorithm: sc.AlgorithmName(j.Algorithm), LeaseStores: stores}
		for _, rate := range j.DriftRates {
			m, ok := sc.DriftMargin(rate)
			res.Drift = append(res.Drift, DriftBound{Margin: m, OK: ok})
		}
		return res
	}
	r, err := sc.Build(scenario.RunOptions{Seed: j.Seed, Algorithm: j.Algorithm, Lean: true})
	if err != nil {
		return ClusterResult{Err: err.Error(), LeaseStores: stores}
	}
	res = clusterResultOf(r)
	res.LeaseStores = stores
	res.Caveat = sc.Caveat(j.Algorithm) // its Contract, which Build called already
	return res
}

// clusterResultOf is what a built run shows of its configuration.
func clusterResultOf(r *scenario.Run) ClusterResult {
	out := ClusterResult{Algorithm: r.Algorithm, Candidates: r.Candidates, Stores: r.StoreIDs, Resource: r.ResourceID,
		HasResource: r.Resource != nil, HasStore: r.Store != nil, Contract: r.Contract, Declared: r.Declared, Timescale: r.Timescale}
	if r.CronConfig != nil {
		out.CronStates = r.CronConfig.States()
	}
	return out
}

// buildCluster builds one run of sc (seed 1, algorithm over) to learn
// its configuration: through o.Runner when set (where the worker reads
// src with sets in full first: sc was read without the algorithm's own
// checks, parse), else here, where a panic in the algorithm's factory is
// an error, not the search's end. A file the worker refuses is a
// *loadError.
func buildCluster(ctx context.Context, o *Options, sc *scenario.Scenario, over string, src []byte, sets []string) (ClusterResult, error) {
	if o.Runner != nil {
		res, err := o.Runner.Cluster(ctx, ClusterJob{Seed: 1, Name: sc.File, Source: string(src), Sets: sets, Algorithm: over, Running: running(o)})
		switch {
		case err != nil:
			return ClusterResult{}, err
		case res.Crash != "":
			return res, &DiedError{Msg: res.Crash}
		case res.LoadErr != "":
			return res, &loadError{res.LoadErr}
		case res.Err != "":
			return res, errors.New(res.Err)
		}
		return res, nil
	}
	res := func() (res ClusterResult) {
		defer func() {
			if p := recover(); p != nil { // a user algorithm's factory
				res = ClusterResult{Err: fmt.Sprintf("building the run panicked: %v", p)}
			}
		}()
		r, err := sc.Build(scenario.RunOptions{Seed: 1, Algorithm: over, Lean: true})
		if err != nil {
			return ClusterResult{Err: err.Error()}
		}
		res = clusterResultOf(r)
		res.Caveat = sc.Caveat(over)
		return res
	}()
	if res.Err != "" {
		return res, errors.New(res.Err)
	}
	return res, nil
}

// loadError is a file a worker refused to load: the loader's own words.
type loadError struct{ msg string }

func (e *loadError) Error() string { return e.msg }

// parse reads a base's source with sets: in full in this process, but
// without the algorithm's own code when o.Runner runs it in workers
// (scenario.ParseOptions.DeferUserCode; buildCluster has a worker read
// it in full).
func parse(o *Options, name string, src []byte, sets []string) (*scenario.Scenario, error) {
	return parseStores(o, name, src, sets, 0)
}

// parseStores is parse with the lease store count a worker reported for
// the file's algorithm (ClusterResult.LeaseStores; 0: none yet).
func parseStores(o *Options, name string, src []byte, sets []string, stores int) (*scenario.Scenario, error) {
	return scenario.ParseWithOptions(name, src, sets, scenario.ParseOptions{DeferUserCode: o.Runner != nil, Running: running(o), LeaseStores: stores})
}
