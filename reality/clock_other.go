//go:build !unix

package reality

import "time"

var processStart = time.Now()

// Mono is this process's monotonic clock. Without a machine-wide monotonic
// clock the harness cannot relate two processes' readings; Supported says
// so and no trial runs.
func Mono() time.Duration { return time.Since(processStart) }
