package scenario

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/cron"
	"github.com/electsim/electsim/sim"
)

const queueBaseYAML = `name: q
duration: 1m
cluster: {nodes: 3}
algorithm: {name: raft}
cron:
  mode: queue
  jobs: [{name: report, schedule: "@every 10s"}]
`

// The queue section is read with its defaults filled in by cron's
// validation, and the nodes are addressable by name and role.
func TestQueueSectionLoads(t *testing.T) {
	sc, err := Parse("q.yaml", []byte(queueBaseYAML+`  queue: {workers: 2, ack: late, visibility_timeout: 5s, delivery: at_most_once, concurrency: forbid}
faults:
  - {at: 10s, pause: busy_worker, for: 10s}
  - {at: 10s, crash: [w2, queue, execstore], for: 1s}
  - {at: 20s, pause: exec_store, for: 1s}
`))
	require.NoError(t, err)
	q := sc.Cron.Config.Queue
	assert.Equal(t, 2, q.Workers)
	assert.Equal(t, cron.AckLate, q.Ack)
	assert.Equal(t, cron.AtMostOnce, q.Delivery)
	assert.Equal(t, cron.ConcurrencyForbid, q.Concurrency)
	base := sim.NodeID(3 + 1) // after the candidates and the resource (raft has no store)
	assert.Equal(t, []sim.NodeID{base + 3, base, base + 1}, sc.Faults[1].Crash.Target.Nodes)

	r, err := sc.Build(RunOptions{Seed: 1})
	require.NoError(t, err)
	for name, id := range map[string]sim.NodeID{"queue": base, "execstore": base + 1, "w1": base + 2, "w2": base + 3} {
		got, ok := r.Sim.NodeByName(name)
		require.True(t, ok, name)
		assert.Equal(t, id, got, name)
	}
}

// Mistakes in the queue section are reported at their file:line:col,
// naming the field.
func TestQueueSectionErrors(t *testing.T) {
	for _, tc := range []struct {
		yaml, want string
	}{
		{"", "q.yaml:6:3: cron.queue: missing: mode queue needs a queue section"},
		{"  queue: {ack: late}\n", "q.yaml:8:11: cron.queue.workers: missing: how many worker nodes"},
		{"  queue: {workers: 0}\n", "q.yaml:8:20: cron.queue.workers: 0 is out of range [1, 1000]"},
		{"  queue: {workers: 2, ack: later}\n", `q.yaml:8:28: cron.queue.ack: "later" is not one of early, late (did you mean "late"?)`},
		{"  queue: {workers: 2, delivery: exactly_once}\n", `cron.queue.delivery: "exactly_once" is not one of at_least_once, at_most_once`},
		{"  queue: {workers: 2, heartbeat: 2s, stale_after: 1s}\n", "q.yaml:8:51: cron.queue.stale_after: 1s is not longer than the heartbeat (2s)"},
		{"  queue: {workers: 2, retain: 10m}\n", "q.yaml:8:31: cron.queue.retain: 10m is shorter than misfire.lookback (1h)"},
		{"  queue: {workers: 2, visibilty_timeout: 5s}\n", `q.yaml:8:23: cron.queue.visibilty_timeout: unknown field (did you mean "visibility_timeout"?)`},
		{"  queue: {workers: 2, poll: 0s}\n", "cron.queue.poll: must be at least 1ms"},
	} {
		_, err := Parse("q.yaml", []byte(queueBaseYAML+tc.yaml))
		require.Error(t, err, tc.yaml)
		assert.Contains(t, err.Error(), tc.want, tc.yaml)
	}
	_, err := Parse("q.yaml", []byte(strings.Replace(queueBaseYAML, "mode: queue", "mode: leader", 1)+"  queue: {workers: 2}\n"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "q.yaml:8:3: cron.queue: only used with mode: queue")
	_, err = Parse("q.yaml", []byte(strings.Replace(queueBaseYAML, "mode: queue", "mode: leader", 1)+"faults:\n  - {at: 1s, crash: workers, for: 1s}\n"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "workers: this scenario has no queue-mode cron")
	_, err = Parse("q.yaml", []byte(strings.Replace(queueBaseYAML, "mode: queue", "mode: leader", 1)+"expect: {allow: [lost_slot]}\n"))
	require.Error(t, err, "only queue mode reports lost_slot")
	assert.Contains(t, err.Error(), `expect.allow[0]: unknown check "lost_slot"`)
	_, err = Parse("q.yaml", []byte(queueBaseYAML+"  queue: {workers: 1}\nexpect: {allow: [lost_slot]}\n"))
	require.NoError(t, err)
}

// colocated: true makes the candidates the workers; the busy_worker target
// then hits a candidate, and at-least-once completes its slot elsewhere.
func TestQueueColocated(t *testing.T) {
	sc, err := Parse("q.yaml", []byte(strings.Replace(queueBaseYAML, `"@every 10s"}`, `"@every 20s", duration: 5s}`, 1)+`  queue: {colocated: true, stale_after: 3s}
faults:
  - {at: 21s, crash: busy_worker, for: 20s}
`))
	require.NoError(t, err)
	for seed := uint64(1); seed <= 3; seed++ {
		r, err := sc.Run(RunOptions{Seed: seed, Recorder: &sim.Recorder{}})
		require.NoError(t, err)
		require.True(t, r.OK, "seed %d: %v", seed, r.Problems)
		assert.Empty(t, r.Workers, "no separate workers")
		assert.Equal(t, r.Candidates, r.CronConfig.Queue.WorkerNodes)
		crashed := false
		for _, rec := range r.Recorder.Records {
			if rec.Type == sim.RecCrash {
				assert.Contains(t, r.Candidates, rec.Node, "busy_worker hit a candidate")
				crashed = true
			}
		}
		assert.True(t, crashed)
		for _, e := range r.Resource.Log() {
			assert.Contains(t, r.Candidates, e.Node, "the candidates wrote")
		}
	}
}
