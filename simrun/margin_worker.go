package simrun

import (
	"context"
	"errors"
	"fmt"

	"github.com/electsim/electsim/hunt"
	"github.com/electsim/electsim/registry"
	"github.com/electsim/electsim/reports"
	"github.com/electsim/electsim/scenario"
	"github.com/electsim/electsim/simrun/worker"
)

// A margin study's analytic bounds come from the algorithm's DriftMargin
// (registry.Algorithm.DriftMargin): for an algorithm not built into
// electsim that is the user's code, which may exit, block or panic, so a
// worker process computes them (hunt.ClusterJob.DriftRates) under the
// watchdog, and this process only reads what it sends back.

// driftBounds are a margin study's analytic bounds: each cell's at its
// own rate, and the first cell's at every rate the plot draws
// (reports.MarginBoundRates), in ms.
type driftBounds struct {
	cells []registry.Margin
	curve map[float64]float64
}

// bound is the first cell's bound at rate r, in ms (reports.MarginStudy.Bound).
func (b *driftBounds) bound(r float64) float64 { return b.curve[r] }

// marginBounds computes the study's bounds for scs (one cell per rate of
// rs): in a worker process when the scenario's algorithm is the user's
// (fileIsolated), else here. ok is false when the algorithm has no drift
// margin; a worker the algorithm's code killed is exit 1.
func marginBounds(o *options, scs []*scenario.Scenario, rs []float64, seed uint64) (b *driftBounds, ok bool, code int, err error) {
	at := func(cell int, rates []float64) ([]hunt.DriftBound, error) {
		var out []hunt.DriftBound
		for _, r := range rates {
			m, ok := scs[cell].DriftMargin(r)
			out = append(out, hunt.DriftBound{Margin: m, OK: ok})
		}
		return out, nil
	}
	if fileIsolated(o, scs[0], len(rs)*o.seeds, worker.IsWorker()) {
		src, err := scenario.ReadFile(o.scenario)
		if err != nil {
			return nil, false, exitUsage, usageError{err.Error()}
		}
		pool, err := worker.NewHuntPool(o.prog, o.handlerMax)
		if err != nil {
			return nil, false, exitUsage, err
		}
		defer pool.Close()
		at = func(cell int, rates []float64) ([]hunt.DriftBound, error) {
			res, err := pool.Cluster(context.Background(), hunt.ClusterJob{Seed: seed, Name: o.scenario, Source: string(src), Sets: cellSets(o, o.cells[cell]), DriftRates: rates})
			switch {
			case err != nil:
				return nil, err
			case res.LoadErr != "":
				return nil, usageError{res.LoadErr}
			case res.Crash != "":
				return nil, &hunt.DiedError{Msg: res.Crash} // a panic in the algorithm's code: its crash
			case res.Err != "":
				return nil, errors.New(res.Err)
			case len(res.Drift) != len(rates):
				return nil, fmt.Errorf("a worker process sent %d drift margins for %d rates", len(res.Drift), len(rates))
			}
			return res.Drift, nil
		}
	}
	fail := func(err error) (*driftBounds, bool, int, error) {
		var died *hunt.DiedError
		var usage usageError
		switch {
		case errors.As(err, &died):
			return nil, false, exitViolation, fmt.Errorf("%s under %s: the drift margin: %v", o.scenario, scs[0].AlgorithmName(""), err)
		case errors.As(err, &usage):
			return nil, false, exitUsage, err
		}
		if _, code, ok := interruption(); ok {
			return nil, false, code, errors.New("stopped by a signal while a worker process computed the drift margin; nothing written")
		}
		return nil, false, exitUsage, err
	}
	b = &driftBounds{cells: make([]registry.Margin, len(scs)), curve: map[float64]float64{}}
	for i := range scs {
		d, err := at(i, rs[i:i+1])
		if err != nil {
			return fail(err)
		}
		if i == 0 && !d[0].OK {
			return nil, false, exitOK, nil
		}
		b.cells[i] = d[0].Margin
	}
	rates := reports.MarginBoundRates(rs, b.cells[0].SafeRate, true)
	d, err := at(0, rates)
	if err != nil {
		return fail(err)
	}
	for k, r := range rates {
		b.curve[r] = ms(d[k].Margin.Overlap)
	}
	return b, true, exitOK, nil
}

// loadMarginCells reads the study's file once per rate. The file is read
// without its algorithm's code first; when that code is the user's, a
// worker process reads it in full (checkedCells), else it is read again in
// full here. seed is -seed (0: the file's).
func loadMarginCells(o *options, seed uint64) ([]*scenario.Scenario, int, error) {
	scs, err := loadCellsAs(o, o.cells, "-rates", scenario.ParseOptions{DeferUserCode: true})
	if err != nil {
		return nil, exitUsage, err
	}
	if seed == 0 {
		seed = scs[0].Seed
	}
	switch {
	case fileIsolated(o, scs[0], len(o.cells)*o.seeds, worker.IsWorker()):
		return checkedCells(o, scs, seed, "-rates", scenario.ParseOptions{})
	case userAlgorithm(scs[0]):
		if scs, err = loadCellsAs(o, o.cells, "-rates", scenario.ParseOptions{}); err != nil {
			return nil, exitUsage, err
		}
	}
	return scs, exitOK, nil
}
