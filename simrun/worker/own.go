package worker

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/electsim/electsim/hunt"
)

// The command's own jobs. A sweep of an algorithm not built into
// electsim runs some of its runs again after the sweep (the failing
// runs' explanations, the featured run with its exports, its shrink, a
// comparison's other runs) and reads what the algorithm's own functions
// say of a group (its contract's caveat, its fencing token): all user
// code, so a worker process does them, under the same watchdog as a
// hunt's runs. What such a job is and what it answers is simrun's (its
// conversions of a run into a report sit above this package): the pool
// carries it as JSON both ways (Own), and the worker hands it to the
// OwnServer simrun gives ServeHunt.

// OwnServer serves one of the command's own jobs in a worker process,
// with the worker's guard (its watchdog's beat, its goroutine guard),
// and returns the reply to send back (as JSON).
type OwnServer func(job json.RawMessage, g *Guard) any

// Own sends job (as JSON) to slot 0's worker and reads its answer into
// reply, within limit (0: none). A worker the job killed (os.Exit, a
// stack overflow, the watchdog) is a *hunt.DiedError, worded as a run's
// death when run, else as a death in the algorithm's own functions
// (outsideRun).
func (p *HuntPool) Own(ctx context.Context, job, reply any, limit time.Duration, run bool) error {
	b, err := json.Marshal(job)
	if err != nil {
		return err
	}
	rep, err := p.call(ctx, 0, huntRequest{Own: b}, limit)
	var died *errDied
	switch {
	case errors.As(err, &died):
		if !run {
			return &hunt.DiedError{Msg: "the algorithm's code killed its worker process: " + outsideRun(died.value)}
		}
		return &hunt.DiedError{Msg: "the run killed its worker process: " + died.value}
	case err != nil:
		return err
	case rep.Own == nil:
		return &hunt.DiedError{Msg: "the worker process answered nothing"}
	}
	if err := json.Unmarshal(rep.Own, reply); err != nil {
		return &hunt.DiedError{Msg: "the worker process's reply was malformed: " + OneLine(err.Error())}
	}
	return nil
}
