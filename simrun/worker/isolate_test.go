package worker

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// A worker's death is read from its stderr: the fatal error's line, and
// the first goroutine's frames after it (not the runtime's own stack),
// at most 24 lines.
func TestWorkerDeathReadsTheFatalError(t *testing.T) {
	stderr := "runtime: goroutine stack exceeds 67108864-byte limit\nfatal error: stack overflow\n\nruntime stack:\nruntime.throw(...)\n\t/go/src/runtime/panic.go:1\n\ngoroutine 7 gp=0x1 m=0 [running]:\nmain.f(...)\n\tf.go:3\nmain.g()\n\tf.go:9\n\ngoroutine 1 [chan receive]:\nmain.main()\n"
	value, stack := workerDeath(stderr, 2)
	assert.Equal(t, "fatal error: stack overflow", value)
	assert.Equal(t, "main.f(...)\n\tf.go:3\nmain.g()\n\tf.go:9", stack)

	value, stack = workerDeath("", 0)
	assert.Equal(t, "the worker process exited with status 0 during the run (os.Exit in a handler?)", value)
	assert.Empty(t, stack)
}

// The announcements and the skip list name a job the same way.
func TestJobKeyRoundTrips(t *testing.T) {
	j := Job{Seed: 18446744073709551615, Cell: 3, Algo: "raft"}
	back, ok := parseJobKey(jobKey(j))
	assert.True(t, ok)
	assert.Equal(t, j, back)
	t.Setenv(EnvSkip, jobKey(j)+","+jobKey(Job{Seed: 1, Algo: "lease"}))
	assert.Equal(t, map[Job]bool{j: true, {Seed: 1, Algo: "lease"}: true}, workerSkips())
	_, ok = parseJobKey("1 x raft")
	assert.False(t, ok)
}
