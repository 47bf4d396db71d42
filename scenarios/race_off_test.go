//go:build !race

package scenarios

// raceEnabled: see race_on_test.go.
const raceEnabled = false
