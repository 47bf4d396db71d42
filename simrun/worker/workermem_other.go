//go:build !linux

package worker

// lowerDataLimit does nothing outside Linux (the Go runtime's
// soft limit still applies).
func lowerDataLimit(uint64) error { return nil }
