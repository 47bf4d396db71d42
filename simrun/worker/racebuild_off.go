//go:build !race

package worker

// raceBuild reports a -race build (workermem.go).
const raceBuild = false
