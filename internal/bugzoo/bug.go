package bugzoo

import (
	"github.com/electsim/electsim/registry"
	"github.com/electsim/electsim/sim"
)

// Bug is one zoo variant.
type Bug struct {
	// Name is its registry name, "zoo-" + the base algorithm + the bug.
	Name string
	// Base is the real algorithm it varies (a registry.Default name), or
	// "" for a bug of a cron mode that runs no election algorithm (Celery:
	// RedBeat's lock is the election): such a bug is planted in the run
	// (Prepare) and registered under no name.
	Base string
	// Summary says what is wrong, in one line.
	Summary string
	// Citation is the real-world bug it mirrors: an issue, a postmortem or
	// a paper section.
	Citation string
	// Scenario is the targeted scenario under testdata/ that catches it
	// (the real algorithm passes it).
	Scenario string
	// Catches names the check whose contract breach catches it.
	Catches string
	// NeedsContract: the real algorithm has findings in the targeted
	// scenario that only its contract excuses or bounds (the scenario
	// allows them, or they are excused by a fault on the nodes they
	// involve), so without a contract covering Catches the bug cannot be
	// told from the algorithm.
	NeedsContract bool
	// Kinds, if set, are the fault kinds the zoo's hunts draw for this
	// bug and its real algorithm alike (hunt.Options.Kinds): the faults
	// under which the real mechanism keeps the promise the bug breaks,
	// where the real system breaks it under others (the reason is in the
	// bug's targeted scenario). Empty: the hunt's defaults.
	Kinds []string
	// wrap builds the variant's factory from the base algorithm's: v are
	// the run's values, base the real Build. nil: the base's factory
	// unchanged (a bug outside the candidates, see Prepare).
	wrap func(base buildFunc, v registry.Values, n int, r *sim.Rand) (registry.Factory, error)
	// prepare, if set, plants the part of the bug that lives outside the
	// candidates (the fenced resource) in a built run; see Prepare.
	prepare func(p Planter)
	// cron, if set, plants the bug in a built run's cron modes (the
	// scheduler, execution store, CronJob controller or beat); see Prepare.
	cron func(p CronPlanter)
}

// buildFunc is registry.Algorithm.Build.
type buildFunc = func(v registry.Values, n int, r *sim.Rand) (registry.Factory, error)

// Planter is what a bug outside the candidates needs of a built run: the
// fenced resource's test hooks (cron.Resource implements it; cron/zoohook.go).
type Planter interface {
	// ForgetFencingOnRestart makes the resource lose its fencing table
	// when it restarts.
	ForgetFencingOnRestart()
	// FenceByRow makes the resource compare a token with its slot's
	// highest only.
	FenceByRow()
	// IdempotencyPerClient makes the resource's idempotency key name the
	// writing node.
	IdempotencyPerClient()
	// LoseOneSlotIn makes the resource acknowledge and drop every write of
	// one slot in n.
	LoseOneSlotIn(n int)
}

// Prepare plants the bug's non-candidate part in a run built with its
// algorithm, before Execute: res is the run's fenced resource
// (scenario.Run.Resource) and cfg its cron configuration
// (scenario.Run.CronConfig); a no-op for bugs that live in the candidates
// alone. Either may be nil when the run has none.
func (b Bug) Prepare(res Planter, cfg CronPlanter) {
	if b.prepare != nil && res != nil {
		b.prepare(res)
	}
	if b.cron != nil && cfg != nil {
		b.cron(cfg)
	}
}

// InCronMode reports whether the bug lives in a cron mode (the queue,
// Kubernetes or Celery mode's scheduler, store, controller or beat): its
// targeted scenario sets the mode, and a base without it cannot show it.
func (b Bug) InCronMode() bool { return b.cron != nil }

// Bugs lists every zoo variant, in a fixed order.
func Bugs() []Bug {
	var out []Bug
	out = append(out, raftBugs()...)
	out = append(out, leaseBugs()...)
	out = append(out, serviceBugs()...)
	out = append(out, classicBugs()...)
	out = append(out, cronBugs()...)
	out = append(out, modeBugs()...)
	return out
}
