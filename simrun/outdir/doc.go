// Package outdir is simrun's output-folder contract (docs/output.md,
// "Files"): how a command's results reach the file system, and what it
// promises about everything else there. It imports nothing of electsim.
//
// What it guarantees:
//
//   - All or nothing. Every output (a folder, a -json, -runs or trace
//     file) is built under a temporary name beside its destination
//     (StagedFolder, AtomicFile) and renamed into place only when the
//     command succeeded. CommitAll puts several outputs in place in two
//     phases: each Install keeps what it replaces aside; if one fails, the
//     ones installed are rolled back newest first and the rest aborted, so
//     every path is as it was before the command; only when all are in
//     place does Finish remove what they replaced. A stream (standard
//     output, a device such as /dev/null, a FIFO, a path under /dev or
//     /proc) is written in place: renaming over it would replace the node
//     with a regular file, so its bytes cannot be taken back.
//   - Only its own. An existing output is replaced only if it is a folder
//     simrun made (it holds MarkerFile) or an empty folder; a symbolic
//     link is followed (its target replaced, the link kept), a dangling
//     one refused. Without -out every invocation gets a numbered folder
//     of its own (base/001, 002, …, allocated by mkdir so two concurrent
//     runs never share one) and base/latest names the newest, replaced
//     only while it is simrun's.
//   - No leftovers. Temporaries are removed on error and, through
//     RemoveTemps, by the signal handler; a run that was killed (SIGKILL
//     runs nothing) leaves its temporaries to the next run, which removes
//     them once they are stale.
//
// What a stale lock or staging file means. Every temporary is born under
// a NewTag name, locked (flock on the file itself, or on the marker inside
// a folder), and only then renamed to its TmpTag name, which carries its
// writer's process ID. The kernel drops a flock when its holder dies, in
// whatever PID namespace it ran, so a TmpTag temporary whose lock is free
// was left by a writer that is gone, however young it is, and is removed
// at once. A process ID alone could not say so: a simrun in another
// container sharing the volume has a PID this one cannot see (or sees as
// some other process). Only two kinds wait: a NewTag temporary (it exists
// for an instant before its lock) and one without a lock file (made by an
// older simrun) are removed only past StaleGrace, and the latter only if
// in addition its PID names no process here. Where the file system has
// no flock (LockHeld cannot tell), every temporary of another process is
// kept: a killed run's leftovers stay rather than risk a live one's.
// A live writer's staged folder makes a second writer of the same -out
// refuse (two that stage at once: the one whose temporary sorts first
// writes).
package outdir
