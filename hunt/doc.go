// Package hunt searches fault schedules and parameter values for a run
// that breaks an algorithm's safety contract (or, for an algorithm that
// declares none, a safety check its base scenario expects to hold): simrun
// hunt as a library (docs/hunting.md).
//
// Search combines four strategies, and every run records which one made it:
//
//   - swarm: a random subset of fault kinds, then faults of those kinds at
//     random times on random nodes, the lease stores and the fenced
//     resource included (Groce et al., "Swarm testing", ISSTA 2012);
//   - state: faults fired right after a protocol state the algorithm
//     declares (registry.Algorithm.States) or a built-in event (elected,
//     renew, job_started, ...): "crash right after granting a vote, restart
//     5 ms later" is one draw;
//   - extremes: parameter values at the edges of their declared ranges and
//     every declared enum value (flavours, policies), with swarm faults;
//   - feedback: mutations of earlier schedules that reached a new
//     (protocol state × fault class) pair or a new transition between
//     protocol states, as a coverage-guided fuzzer keeps its corpus.
//
// With Options.Runner the runs execute as Jobs in worker processes
// (simrun hunt's -isolate): a run that overflows its stack, never returns
// or calls os.Exit is then that run's crashed finding, not the search's end.
//
// The search is deterministic for a given Options.Seed, Options.Workers and
// Options.Runs: runs are drawn and judged in batches of Workers, in order.
// A wall-clock Budget may end it after a different number of runs.
package hunt
