package reality

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"

	"github.com/electsim/electsim/scenario"
)

// Options configure a reality check (simrun reality).
type Options struct {
	// Scenario is the scenario file.
	Scenario string
	// Trials is the number of real trials; SimSeeds the number of
	// simulated runs (seeds 1..SimSeeds).
	Trials, SimSeeds int
	// Workers runs that many trials at once (each has its own servers,
	// ports and folder).
	Workers int
	// Client is a prebuilt client binary; "" builds the adapter's client
	// with the go command into a temporary folder.
	Client string
	// Out, if set, is a folder for table.md and trials.json.
	Out string
	// Seed draws the trials' fault times.
	Seed uint64
	// Progress, if set, gets one line per finished trial.
	Progress io.Writer
}

// MissingError says a real part is not installed: the Debian package that
// ships it.
type MissingError struct {
	Binary, Package string
}

func (e *MissingError) Error() string {
	return fmt.Sprintf("%s not found: install the Debian package %s (apt-get install -y %s)", e.Binary, e.Package, e.Package)
}

// Result is a reality check's outcome.
type Result struct {
	Story  *Story
	Trials []*TrialResult
	// Compared counts the trials in the comparison: a trial where a fault
	// was not applied (TrialResult.Skipped) played another story.
	Compared int
	Sim      []Measure
	Rows     []Row
}

// Prepare loads the scenario and checks that its real parts are here: a
// refused scenario or a missing server is an error (a *MissingError for
// the latter) before anything starts.
func Prepare(o Options) (*Story, Adapter, error) {
	sc, err := scenario.Load(o.Scenario)
	if err != nil {
		return nil, nil, err
	}
	st, err := FromScenario(sc)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %v", o.Scenario, err)
	}
	if !supported {
		return nil, nil, errors.New("the reality harness needs a unix machine (SIGSTOP, CLOCK_MONOTONIC)")
	}
	ad := Adapters[st.Adapter]
	if _, err := exec.LookPath(ad.Binary()); err != nil {
		return nil, nil, &MissingError{Binary: ad.Binary(), Package: ad.Package()}
	}
	if pc, ok := ad.(PartsChecker); ok {
		if m := pc.Missing(); m != nil {
			return nil, nil, m
		}
	}
	return st, ad, nil
}

// Run plays the story o.Trials times with real processes, runs the
// scenario o.SimSeeds times in simulation, and compares them. ctx
// cancelled (SIGINT) stops every process and returns ctx's error.
func Run(ctx context.Context, o Options) (*Result, error) {
	st, ad, err := Prepare(o)
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "electsim-reality-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	client := o.Client
	if client == "" {
		client = filepath.Join(tmp, "client")
		if err := buildClient(ctx, ad, client); err != nil {
			return nil, err
		}
	}
	res := &Result{Story: st, Trials: make([]*TrialResult, o.Trials)}
	if err := runTrials(ctx, o, st, client, tmp, res); err != nil {
		return nil, err
	}
	for seed := uint64(1); seed <= uint64(o.SimSeeds); seed++ {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		r, err := st.Scenario.Run(scenario.RunOptions{Seed: seed})
		if err != nil {
			return nil, err
		}
		res.Sim = append(res.Sim, MeasureReport(r.Report))
	}
	real := comparedMeasures(res.Trials)
	res.Compared = len(real)
	res.Rows = Compare(real, res.Sim)
	if o.Out != "" {
		if err := res.write(o.Out); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// comparedMeasures are the measures of the trials that played the story:
// a trial where a fault found no holder to hit (no client led by then)
// measured a story without that fault, and would count as one without
// split brain or failover.
func comparedMeasures(ts []*TrialResult) []Measure {
	var out []Measure
	for _, t := range ts {
		if len(t.Skipped) == 0 {
			out = append(out, t.Measure)
		}
	}
	return out
}

// runTrials runs the trials on o.Workers workers.
func runTrials(ctx context.Context, o Options, st *Story, client, tmp string, res *Result) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	next := make(chan int)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	workers := max(1, o.Workers)
	if c, ok := Adapters[st.Adapter].(ParallelCapper); ok {
		workers = min(workers, c.MaxParallelTrials())
	}
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				t, err := RunTrial(ctx, st, client, tmp, i, o.Trials, o.Seed)
				mu.Lock()
				if err != nil && first == nil {
					first = fmt.Errorf("trial %d: %w", i, err)
					cancel()
				}
				res.Trials[i] = t
				if err == nil && o.Progress != nil {
					fmt.Fprintf(o.Progress, "trial %d: split brain %v, overlap %v, failover %v\n", i, t.Measure.SplitBrain, t.Measure.Overlap, t.Measure.Failover)
					for _, s := range t.Skipped {
						fmt.Fprintf(o.Progress, "trial %d: %s: not compared\n", i, s)
					}
				}
				mu.Unlock()
			}
		}()
	}
	for i := range o.Trials {
		select {
		case next <- i:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
	}
	close(next)
	wg.Wait()
	if first == nil && ctx.Err() != nil {
		return ctx.Err() // cancelled between two trials: some never ran
	}
	if first != nil {
		if ctx.Err() != nil && errors.Is(first, context.Canceled) {
			return ctx.Err()
		}
		return first
	}
	return nil
}

// write saves the table and the trials' measures and reports under dir.
func (r *Result) write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(dir, "table.md"))
	if err != nil {
		return err
	}
	PrintTable(f, r.Rows)
	if err := f.Close(); err != nil {
		return err
	}
	type trialOut struct {
		Index   int
		Measure Measure
		Skipped []string `json:",omitempty"`
		Origin  time.Duration
		Reports []Report
	}
	var ts []trialOut
	for _, t := range r.Trials {
		ts = append(ts, trialOut{t.Index, t.Measure, t.Skipped, t.Origin, t.Reports})
	}
	b, err := json.MarshalIndent(map[string]any{"trials": ts, "simulated": r.Sim, "rows": r.Rows}, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "trials.json"), append(b, '\n'), 0o644)
}

// buildClient builds the adapter's client into bin: its own way for a
// ClientBuilder, else the Go main with the go command (the module's own
// source: run from inside the repository).
func buildClient(ctx context.Context, ad Adapter, bin string) error {
	if b, ok := ad.(ClientBuilder); ok {
		return b.BuildClient(ctx, bin)
	}
	if out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, ad.Client()).CombinedOutput(); err != nil {
		return fmt.Errorf("building the client %s (or give -client): %v\n%s", ad.Client(), err, out)
	}
	return nil
}
