package worker

import (
	"context"
	"errors"

	"github.com/electsim/electsim/hunt"
)

// Materialize runs j's seed in slot 0 and writes its explicit scenario, for
// simrun -materialize of an algorithm not built into electsim. A worker the
// run killed is a *hunt.DiedError.
func (p *HuntPool) Materialize(ctx context.Context, j hunt.MaterializeJob) (hunt.MaterializeResult, error) {
	rep, err := p.call(ctx, 0, huntRequest{Materialize: &j}, 0)
	var died *errDied
	switch {
	case errors.As(err, &died):
		return hunt.MaterializeResult{}, &hunt.DiedError{Msg: "the run killed its worker process: " + died.value}
	case err != nil:
		return hunt.MaterializeResult{}, err
	case rep.Materialize == nil:
		return hunt.MaterializeResult{}, &hunt.DiedError{Msg: "the worker process answered no run"}
	}
	return *rep.Materialize, nil
}
