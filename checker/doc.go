// Package checker judges a finished run: it reads the run's typed trace
// (sim.Record) and the fenced resource's log (cron.LogEntry), and reports
// safety checks (election safety, split-brain, double execution, stale
// writes, porcupine linearizability of the leadership and resource
// histories), liveness and failover metrics, and a readable explanation with
// a replay command for every violation.
//
// A run is described by an Input value; Run returns a Report; Report.Judge
// holds the report against a scenario's Expect block. The checker never looks
// inside an algorithm: it relies only on the observations nodes report
// (ActAsLeader, StopLeading, BelieveLeader), the engine's lifecycle and fault
// records, and the resource's log, which is the ground truth for writes.
// docs/checkers.md states exactly what each check claims.
package checker
