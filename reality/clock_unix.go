//go:build unix

package reality

import (
	"time"

	"golang.org/x/sys/unix"
)

// Mono is the machine's monotonic clock (CLOCK_MONOTONIC): the same reading
// in every process, so a client's reports and the harness's faults share one
// time axis.
func Mono() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		panic("reality: CLOCK_MONOTONIC: " + err.Error()) // present on every unix Go supports
	}
	return time.Duration(ts.Nano())
}
