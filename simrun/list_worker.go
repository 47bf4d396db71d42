package simrun

import (
	"context"

	"github.com/electsim/electsim/hunt"
	"github.com/electsim/electsim/registry"
	"github.com/electsim/electsim/scenario"
	"github.com/electsim/electsim/simrun/worker"
)

// simrun list calls no algorithm's code that is the user's in its own
// process. A catalogue's files are read without it
// (scenario.ParseOptions.DeferUserCode: listed is what the file says and
// every check electsim itself makes; the algorithm's own checks run when
// the file is swept, in a worker). The caveat each algorithm's defaults
// carry (its Contract) is computed in a worker process for a user's
// algorithm (hunt.ClusterJob.Caveat), one worker for the whole list.

// loadListed reads a catalogue file as simrun list shows it.
func loadListed(path string) (*scenario.Scenario, error) {
	return scenario.LoadWithOptions(path, nil, scenario.ParseOptions{DeferUserCode: true})
}

// caveats computes the algorithms' default caveats for simrun list.
type caveats struct {
	prog string
	pool *worker.HuntPool // started at the first user algorithm
}

// of is algorithm a's default caveat (defaultCaveat): here for an
// algorithm built into electsim, in a worker process for a user's; ""
// when it has none. When the worker could not compute it (its code
// killed the worker or panicked), why is the one line the list prints
// in the caveat's place (the list goes on, exit 0).
func (c *caveats) of(a *registry.Algorithm) (caveat, unknown string) {
	if iso, _ := isolation(&options{}, []string{a.Name}, 1, worker.IsWorker(), registry.Default.Lookup); !iso {
		return defaultCaveat(a.Name), ""
	}
	if c.pool == nil {
		p, err := worker.NewHuntPool(c.prog, 0)
		if err != nil {
			return "", caveatUnknown(err.Error())
		}
		c.pool = p
	}
	res, err := c.pool.Cluster(context.Background(), hunt.ClusterJob{Seed: 1, Name: "list", Scenario: listYAML(a.Name), Caveat: true})
	switch {
	case err != nil:
		return "", caveatUnknown(err.Error())
	case res.Crash != "":
		return "", caveatUnknown(res.Crash)
	case res.Err != "":
		return "", caveatUnknown(res.Err)
	}
	return res.Caveat, ""
}

// caveatUnknown is the list's line for a caveat a worker could not
// compute, for why.
func caveatUnknown(why string) string {
	return "with its defaults: caveat unknown, its Contract could not be read in a worker process: " + worker.OneLine(why)
}

// close ends the worker, if one started.
func (c *caveats) close() {
	if c.pool != nil {
		c.pool.Close()
	}
}
