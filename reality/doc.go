// Package reality runs electsim's stories against the real servers and
// client libraries and sets the measurements beside the simulation's
// (docs/reality.md): `simrun reality -scenario F`.
//
// A trial starts the servers (Redis, …) on loopback ports chosen for it, in
// a temporary folder of its own, and one client process per candidate
// running the real client library (reality/cmd/redsync-client). Each client
// reports what its application sees — acquired, extended, lost, acting —
// stamped with the machine's monotonic clock (CLOCK_MONOTONIC, shared by
// every process); the harness applies the story's fault to the real
// processes (SIGSTOP/SIGCONT for a pause, SIGKILL and a new process for a
// crash) and stamps it with the same clock. Convert turns both into
// electsim trace records, so the same checker (checker.Run) judges the real
// world and the simulated one.
//
// The package sits beside hunt: it imports scenario and checker, and simrun
// imports it (docs/architecture: the one-way import rule).
package reality
