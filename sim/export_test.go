package sim

// Ln exposes the architecture-independent logarithm to the external tests
// (rand.go), which compare it with math.Log.
var Ln = ln
