//go:build race

package worker

// raceBuild reports a -race build: its shadow memory is not the program's,
// so a worker's memory limits are not applied (workermem.go).
const raceBuild = true
