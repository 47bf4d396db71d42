package bugzoo

import (
	"fmt"

	"github.com/electsim/electsim/registry"
	"github.com/electsim/electsim/sim"
)

// Register adds every zoo variant to reg, each under its own name, as a
// copy of its base algorithm's descriptor (looked up in reg: parameters,
// stores, token and, above all, its Contract function, so the variant is
// held to exactly the real algorithm's promises) with the buggy Build.
// Variants already in reg are kept, so tests may call it more than once;
// a bug with no Base (a mode with no election) has nothing to register.
// The base algorithms must be registered first (import
// algorithms/builtin).
func Register(reg *registry.Registry) error {
	for _, b := range Bugs() {
		if _, ok := reg.Lookup(b.Name); ok || b.Base == "" {
			continue
		}
		base, ok := reg.Lookup(b.Base)
		if !ok {
			return fmt.Errorf("bugzoo: %s: base algorithm %q is not registered", b.Name, b.Base)
		}
		a := *base // the Contract func value is copied with the rest
		a.Name = b.Name
		a.Doc = "bug zoo: " + b.Summary
		if b.wrap != nil {
			realBuild, wrap := base.Build, b.wrap
			a.Build = func(v registry.Values, n int, r *sim.Rand) (registry.Factory, error) {
				return wrap(realBuild, v, n, r)
			}
		}
		if err := reg.Register(a); err != nil {
			return err
		}
	}
	return nil
}
