//go:build !race

package cron_test

// raceEnabled: see race_on_test.go.
const raceEnabled = false
