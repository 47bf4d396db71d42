//go:build race

package hunt

// raceEnabled: the race detector slows a run about tenfold; the longest
// one-worker searches (no goroutines beyond the search's own) are left to
// the plain run, and the race stage keeps the multi-worker ones.
const raceEnabled = true
