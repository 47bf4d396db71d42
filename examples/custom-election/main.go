// Command custom-election is simrun with one more algorithm: hpe, a
// heartbeat-priority election written outside electsim and registered
// through its public API. Every simrun feature works for it, and what it
// prints to run (replay lines, usage) names it, custom-election, as
// simrun.Main goes by the executable's name:
//
//	go run . -scenario example.yaml
//	go run . -scenario example.yaml -seeds 200 -algo hpe,raft
package main

import (
	"os"

	"example.com/custom-election/hpe"

	_ "github.com/electsim/electsim/algorithms/builtin" // raft, etcdraft, bully, ring, lease, to compare with
	"github.com/electsim/electsim/registry"
	"github.com/electsim/electsim/simrun"
)

func main() {
	registry.Default.MustRegister(hpe.Descriptor())
	os.Exit(simrun.Main(os.Args[1:], os.Stdout, os.Stderr))
}
