// Package layers holds the test that keeps electsim's imports one way: it
// reads the layer table of docs/architecture.md and fails on any import of a
// package from its own layer or a higher one, and on any package outside an
// algorithm that names that algorithm. The table is the rule; this package
// only enforces it, so the docs cannot drift from the code.
package layers
