//go:build race

package main

// raceEnabled: the race detector multiplies memory and time, so the
// hostile-input tests skip their resource bounds under it.
const raceEnabled = true
