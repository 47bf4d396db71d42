//go:build !race

package hunt

// raceEnabled: see race_on_test.go.
const raceEnabled = false
