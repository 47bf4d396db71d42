//go:build race

package simrun

// raceEnabled: the race detector multiplies memory and time, so the
// hostile-input tests skip their resource bounds under it.
const raceEnabled = true
