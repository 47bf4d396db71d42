// Package faults is electsim's fault vocabulary and injector: partitions of
// every shape the engine has, heals, process pauses, crashes and restarts,
// clock offsets, steps and rate changes, link latency/loss/duplication, slow
// disks, lease-store unavailability and lossy store failovers.
//
// A Fault fires at a time (At) or on a protocol event (After), acts on
// targets resolved at the instant it fires from the algorithms' own
// observations (the current leader, the lease holder, a random minority, …),
// and is reverted after For — reverting only what that fault did, so
// overlapping faults compose. Random nemeses draw faults of chosen kinds at
// chosen rates; Swarm picks a random subset of kinds per seed. Settle ends the
// fault phase: every fault is reverted and the checkers judge liveness from
// then on. Every injection, revert, skip and the settle are notes in the
// trace; Applied lists what happened, and Applied.Explicit turns an entry back
// into a concrete Fault (for shrinking a random run into a fixed scenario).
//
// Every random choice comes from seeded streams (see Injector), so the same
// seed gives the same faults. The option structs are plain values a YAML
// decoder can fill one to one. See docs/faults.md.
package faults
