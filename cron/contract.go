package cron

import "github.com/electsim/electsim/contract"

// Contract is what the cron layer guarantees with this configuration's
// resource policy, whatever the election under it does: the fenced
// resource enforces it on every write, so no fault excuses it.
//
//   - stale_write, with fencing: the resource rejects every token below the
//     highest it accepted in the fencing scope (Resource.decide), and its
//     state is durable across its own crash (docs/cron.md, "The fenced
//     resource and its policies").
func (c *Config) Contract() contract.Contract {
	var out contract.Contract
	if c.Policy.Fencing {
		out.Guarantees = append(out.Guarantees, contract.Guarantee{
			Check:  "stale_write",
			Source: "cron/resource.go Resource.decide: fencing rejects a token below the scope's highest accepted",
		})
	}
	return out
}
