package contracttest

import (
	"fmt"
	"sync"
	"time"

	"github.com/electsim/electsim/registry"
)

// registered are the LateStop copies registered by LateStopBreaches, so
// a test that runs twice (-count) registers each once.
var registered sync.Map

// LateStopBreaches plants LateStop(a, late) (registered as
// "<a.Name>-late<late>" in registry.Default, once) and sweeps
// CutOffLeader for seeds seeds under a and under the planted copy, each
// with the scenario parameters params (", key: value, …" after the name).
// It returns both sweeps' breaching seeds: a contract with teeth has none
// for a and one per seed for the copy.
func LateStopBreaches(a registry.Algorithm, late time.Duration, params string, seeds int) (real, planted []uint64, err error) {
	name := fmt.Sprintf("%s-late%v", a.Name, late)
	if _, loaded := registered.LoadOrStore(name, true); !loaded {
		if err := registry.Default.Register(LateStop(a, name, late)); err != nil {
			return nil, nil, err
		}
	}
	out := [2][]uint64{}
	for i, n := range []string{a.Name, name} {
		sc, err := CutOffLeader("{name: " + n + params + "}")
		if err != nil {
			return nil, nil, err
		}
		tl, err := SweepScenario(sc, seeds)
		if err != nil {
			return nil, nil, err
		}
		out[i] = tl.BreachSeeds
	}
	return out[0], out[1], nil
}
