package worker

import (
	"fmt"
	"runtime/debug"
	"strings"
)

// A worker's memory. A handler that allocates without bound would grow
// its worker until the machine runs out (measured: 1.7–2.7 GB before the
// handler watchdog fired). Each worker process runs under a memory limit:
// the Go runtime's (runtime/debug.SetMemoryLimit, a soft limit: the
// garbage collector works harder as the heap nears it, so a run whose
// garbage, not its live data, is large stays under it) and, where the
// system has one, an OS limit on the process's writable memory
// (setrlimit RLIMIT_DATA on Linux: since 4.7 it counts every private
// writable mapping, the Go heap included), which makes the runtime die of
// "out of memory" at the bound. That death is the run's crashed finding,
// like a stack overflow's. docs/engine.md, "When a handler fails".

// MemLimitMiB is a worker process's OS memory limit, in MiB.
const MemLimitMiB = 512

// workerMemSoftMiB is its Go runtime soft limit, below the OS limit by
// room for what the runtime maps besides the heap (stacks, metadata).
const workerMemSoftMiB = 448

// limitWorkerMemory applies a worker's memory limits (not in a -race
// build, whose shadow memory is not the program's). An OS limit already
// lower (a test's, a container's) is kept.
func limitWorkerMemory() {
	if raceBuild {
		return
	}
	debug.SetMemoryLimit(workerMemSoftMiB << 20)
	_ = lowerDataLimit(MemLimitMiB << 20)
}

// explainMemoryDeath adds the worker's memory limit to a fatal error that
// says the runtime ran out of memory.
func explainMemoryDeath(value string) string {
	if !strings.Contains(value, "out of memory") || raceBuild {
		return value
	}
	return fmt.Sprintf("%s (a worker process's memory limit is %d MiB: a run that allocates past it is crashed)", value, MemLimitMiB)
}
