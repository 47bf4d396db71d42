// Package worker is simrun's worker processes (docs/engine.md, "Worker
// processes" and "When a handler fails"; docs/hunting.md, "Isolation"):
// the child processes of this executable that run a sweep's or a hunt's
// runs where a run that overflows its stack, never returns, exits, starts
// a goroutine or allocates without bound ends one worker, not the
// command. It sits below simrun (it imports scenario, hunt, reports and
// outdir, never simrun): what it needs of the command line (the worker's
// arguments, what a dead run's summary says, which exit statuses are
// clean) the parent passes in (Supervisor).
//
// What a worker is told, and by whom. Only its parent makes a process a
// worker. The parent draws a random secret for each worker, names it in
// the worker's environment (EnvWorker) and writes it on a pipe whose read
// end only that worker inherits, on descriptor 3; the worker reads it
// once (IsWorker) and is a worker only if the two agree, so a
// SIMRUN_WORKER left set in a shell makes nothing a worker. The variables
// the parent owns (the secret, the runs to skip: EnvSkip, the watchdog's
// bound, the goroutine guard's step, GOMAXPROCS) are built afresh for
// each worker: the user's environment never supplies them. A sweep's
// worker gets its seeds, algorithms and grid cells as a sub-shard on its
// command line (Child.Args); a hunt's worker (HuntCmd, ServeHunt) gets one
// job at a time as a JSON line on stdin.
//
// How it reports. On descriptor 4, its channel to the parent, which only
// simrun writes: a sweep worker announces each run before starting it
// and its end, and its progress lines; a hunt worker its replies. Never
// on stdout or stderr, where the algorithm's handlers may print anything:
// what a handler prints cannot forge what the parent reads. A worker
// that ends during a run it announced died of that run (whatever its
// exit status): the parent reports the run as crashed, with the fatal
// error and the top of the stack read from the worker's stderr after the
// mark the worker wrote there as the run began, and starts a new worker
// on the same seeds without it (runs are deterministic, so the runs done
// again come out the same). A hunt worker's reply that does not parse is
// a worker not to trust: it is stopped, and the run is the hunt's crash.
//
// Its limits. A worker's stack is 64 MB (a handler that recurses forever
// dies in a fraction of a second). Its memory is bounded (MemLimitMiB: the
// Go runtime's soft limit below it, and on Linux RLIMIT_DATA at it), so a
// handler that allocates without bound dies of "out of memory", the run's
// crash. A watchdog (Guard) aborts the worker when a handler, or the
// algorithm's factory building a run, has not returned within
// -handler-timeout of wall time: the one limit measured in wall time, and
// it only aborts. The goroutine guard (GoroutineGuard) ends a worker whose
// handler may have started a goroutine; its parent runs the seeds again in
// a worker that checks after every handler and reports the first that did.
// Worker processes run in their own process groups; the parent forwards a
// stop once and kills the ones not yet reaped when it must end at once
// (KillAll). A sweep's workers write to a locked temporary folder
// (MakeDir) that a later sweep removes once its lock is free.
package worker
