//go:build !race

package simrun

// raceEnabled: see race_on_test.go.
const raceEnabled = false
