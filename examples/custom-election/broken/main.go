// Command broken is custom-election with a broken copy of hpe registered
// beside it (hpe-deaf, package hpedeaf): what a copy of the example with
// a bug would be, for the walkthrough that hunts it (docs/extending.md,
// "Hunting a broken copy"):
//
//	go run ./broken hunt -algo hpe-deaf -checks split_brain,election_safety -runs 100 -workers 1
package main

import (
	"os"

	"example.com/custom-election/hpe"
	"example.com/custom-election/hpedeaf"

	_ "github.com/electsim/electsim/algorithms/builtin"
	"github.com/electsim/electsim/registry"
	"github.com/electsim/electsim/simrun"
)

func main() {
	registry.Default.MustRegister(hpe.Descriptor())
	registry.Default.MustRegister(hpedeaf.Descriptor())
	os.Exit(simrun.Main(os.Args[1:], os.Stdout, os.Stderr))
}
