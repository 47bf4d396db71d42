//go:build race

package scenario

// raceEnabled: the race detector slows a run about tenfold. Sequential
// tests that sweep many seeds (no goroutines to check) run fewer under it;
// the plain test run keeps their full size.
const raceEnabled = true
