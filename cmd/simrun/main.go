// Command simrun runs electsim scenarios with electsim's own algorithms
// (algorithms/builtin); it is package simrun's Main (see there and
// docs/output.md), named simrun whatever the binary is called.
//
//	go run ./cmd/simrun -scenario scenarios/partition.yaml
//	go run ./cmd/simrun -scenario scenarios/swarm.yaml -seeds 1000 -algo raft,etcdraft
//	go run ./cmd/simrun -matrix scenarios/matrix.yaml
package main

import (
	"os"

	_ "github.com/electsim/electsim/algorithms/builtin" // raft, etcdraft, bully, ring, lease
	"github.com/electsim/electsim/simrun"
)

func main() {
	os.Exit(simrun.MainNamed("simrun", os.Args[1:], os.Stdout, os.Stderr))
}
