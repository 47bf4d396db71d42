//go:build race

package cron_test

// raceEnabled: the race detector slows a run about tenfold and cron's
// tests run no goroutines of their own, so the longest sequential ones
// are left to the plain run (the CI's race stage keeps its time for the
// packages that sweep in parallel).
const raceEnabled = true
