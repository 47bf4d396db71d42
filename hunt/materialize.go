package hunt

import (
	"fmt"
	"time"

	"github.com/electsim/electsim/scenario"
)

// Materializing a run in a worker process. simrun -materialize runs one
// seed of a file and writes the file with every random choice made
// concrete (scenario.Run.Explicit). The run calls the algorithm's code
// (its checks of its parameters, its factory, its handlers), so for an
// algorithm not built into electsim a worker process does it, under the
// same watchdog as a hunt's runs, and sends back only the text.

// MaterializeJob is one run to materialize, as a value that crosses a
// process boundary as JSON.
type MaterializeJob struct {
	// Seed, Name, Source, Sets, Algorithm and Running are as in a
	// ClusterJob with Source: the file as the user gave it, read here in
	// full.
	Seed      uint64   `json:"seed"`
	Name      string   `json:"name"`
	Source    string   `json:"source"`
	Sets      []string `json:"sets,omitempty"`
	Algorithm string   `json:"algorithm,omitempty"`
	Running   []string `json:"running,omitempty"`
	// PorcupineTimeout is the run's (scenario.RunOptions).
	PorcupineTimeout time.Duration `json:"porcupine_timeout_ns,omitempty"`
	// ExplicitName names the materialized scenario.
	ExplicitName string `json:"explicit_name"`
}

// MaterializeResult is a materialized run.
type MaterializeResult struct {
	// YAML is the materialized scenario; Hash the run's trace hash;
	// Faults how many explicit faults it has.
	YAML   string `json:"yaml,omitempty"`
	Hash   string `json:"hash,omitempty"`
	Faults int    `json:"faults,omitempty"`
	// LoadErr is why the file does not load (the loader's words); Err
	// why the run could not be built (a configuration the algorithm
	// refuses); Crash a panic outside the run's handlers (the algorithm's
	// checks, its factory): its crash.
	LoadErr string `json:"load_err,omitempty"`
	Err     string `json:"err,omitempty"`
	Crash   string `json:"crash,omitempty"`
}

// Materialize runs j in this process (a worker's side) with the worker's
// hooks (the watchdog's beat, the goroutine guard).
func Materialize(j MaterializeJob, h Hooks) (res MaterializeResult) {
	defer func() {
		if p := recover(); p != nil {
			res = MaterializeResult{Crash: fmt.Sprintf("the run panicked: %v", p)}
		}
	}()
	sc, err := scenario.ParseRunning(j.Name, []byte(j.Source), j.Sets, j.Running)
	if err != nil {
		return MaterializeResult{LoadErr: err.Error()}
	}
	r, err := sc.Run(scenario.RunOptions{Seed: j.Seed, Algorithm: j.Algorithm, PorcupineTimeout: j.PorcupineTimeout, Beat: h.Beat, Guard: h.Guard})
	if err != nil {
		return MaterializeResult{Err: err.Error()}
	}
	explicit := r.Explicit() // a copy: renaming it changes no run
	explicit.Name = j.ExplicitName
	return MaterializeResult{YAML: string(explicit.YAML()), Hash: r.Sim.TraceHashHex(), Faults: len(explicit.Faults)}
}
