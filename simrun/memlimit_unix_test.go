//go:build unix

package simrun

import (
	"fmt"
	"os"
	"strconv"
	"syscall"
)

// envChildMemMB names the OS memory limit a simrun child of the tests runs
// under, in MiB: the child sets RLIMIT_DATA (its writable private memory,
// which is where the Go heap lives) to it before it starts, so a hostile
// input that exhausts memory kills that child with "out of memory" instead
// of taking the CI machine down. Worker processes inherit it.
const envChildMemMB = "SIMRUN_TEST_MEM_LIMIT_MB"

// childMemMB is the limit every simrun child of the tests runs under:
// above the largest peak RSS a child test asserts (768 MiB, the Perfetto
// export's bound in TestPerfettoExportBounded), so those assertions, not
// the OS, are what fail first, and the OS limit is the backstop that keeps
// a runaway child from taking the machine down.
const childMemMB = 2048

// childEnv is the environment of a simrun child: this test binary told to
// be simrun, under the OS memory limit (not under -race, whose shadow
// memory is not the program's).
func childEnv(extra ...string) []string {
	env := append(os.Environ(), "SIMRUN_AS_MAIN=1")
	if !raceEnabled {
		env = append(env, envChildMemMB+"="+strconv.Itoa(childMemMB))
	}
	env = append(env, childExtraEnv...)
	return append(env, extra...)
}

// childExtraEnv are variables every simrun child gets besides childEnv's
// (a hostile case sets them around its runBounded: runWithEnv).
var childExtraEnv []string

// applyChildMemLimit sets RLIMIT_DATA from envChildMemMB, if set.
func applyChildMemLimit() error {
	v := os.Getenv(envChildMemMB)
	if v == "" {
		return nil
	}
	mb, err := strconv.ParseUint(v, 10, 32)
	if err != nil || mb == 0 {
		return fmt.Errorf("%s=%q: want a positive number of MiB", envChildMemMB, v)
	}
	var lim syscall.Rlimit
	setLimit(&lim.Cur, &lim.Max, mb<<20)
	return syscall.Setrlimit(syscall.RLIMIT_DATA, &lim)
}

// setLimit sets both of a syscall.Rlimit's fields to bytes, whichever
// integer type the system gives them (uint64 on Linux, int64 on FreeBSD).
func setLimit[T int64 | uint64](cur, max *T, bytes uint64) {
	*cur, *max = T(bytes), T(bytes)
}

// envAllocMB makes a test child allocate and touch that many MiB instead
// of running simrun (TestChildMemoryLimitIsEnforced).
const envAllocMB = "SIMRUN_TEST_ALLOC_MB"

// allocate touches mb MiB of heap, one MiB at a time, and returns 0 if it
// could: under the OS limit the runtime dies of "out of memory" first.
func allocate(mb string) int {
	n, err := strconv.Atoi(mb)
	if err != nil {
		return 2
	}
	keep := make([][]byte, 0, n)
	for i := 0; i < n; i++ {
		b := make([]byte, 1<<20)
		for j := 0; j < len(b); j += 4096 {
			b[j] = 1
		}
		keep = append(keep, b)
	}
	fmt.Println(len(keep))
	return 0
}
