// Package testsize is the one switch between the test suite's default
// sizes and its large ones (docs/testing.md, "Sizes of the default suite").
// `go test ./...` runs the defaults, chosen so that the whole suite passes
// well within go test's 10-minute timeout on a cold build cache with both
// cores of a small machine busy; ELECTSIM_TEST_LARGE=1 (which .ci/run sets)
// runs the slowest tests at the larger sizes they were first written for.
package testsize

import "os"

// Env is the environment variable that selects the large sizes.
const Env = "ELECTSIM_TEST_LARGE"

// Large reports whether the tests run at their large sizes.
func Large() bool { return os.Getenv(Env) == "1" }

// Pick is large under Large, else small.
func Pick[T any](small, large T) T {
	if Large() {
		return large
	}
	return small
}
