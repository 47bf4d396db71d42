//go:build !race

package simrun

// raceBuild reports a -race build (workermem.go).
const raceBuild = false
