//go:build !unix

package simrun

import "os"

// childEnv is the environment of a simrun child: this test binary told to
// be simrun (no OS memory limit off unix).
func childEnv(extra ...string) []string {
	return append(append(os.Environ(), "SIMRUN_AS_MAIN=1"), extra...)
}

func applyChildMemLimit() error { return nil }

const envAllocMB = "SIMRUN_TEST_ALLOC_MB"

func allocate(string) int { return 2 }
