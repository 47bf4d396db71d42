package scenario

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/checker"
	"github.com/electsim/electsim/cron"
	"github.com/electsim/electsim/sim"
)

const kubeBaseYAML = `name: k
duration: 2m
cluster: {nodes: 2}
algorithm: {name: lease, flavor: k8s}
cron:
  mode: kubernetes
  jobs: [{name: report, schedule: "* * * * *"}]
`

// The kubernetes section is read with the API defaults, and every new
// node is addressable by name (apiserver, kubelet1..N) and the kubelets
// by role (workers, busy_worker).
func TestKubeSectionLoads(t *testing.T) {
	sc, err := Parse("k.yaml", []byte(kubeBaseYAML+`  kubernetes: {kubelets: 3, concurrency_policy: forbid, starting_deadline_seconds: 30}
faults:
  - {at: 10s, pause: busy_worker, for: 10s}
  - {at: 10s, crash: [kubelet2, apiserver], for: 1s}
  - {at: 20s, partition: {shape: groups, groups: [[workers], [apiserver]]}, for: 5s}
`))
	require.NoError(t, err)
	k := sc.Cron.Config.Kube
	assert.Equal(t, 3, k.Kubelets)
	assert.Equal(t, cron.KubeForbid, k.Concurrency)
	assert.Equal(t, 30*time.Second, k.StartingDeadline)
	assert.Equal(t, 6, k.BackoffLimit, "the API default")
	assert.Equal(t, 3, k.SuccessfulHistory)
	assert.Equal(t, 1, k.FailedHistory)
	base := sim.NodeID(2 + 2) // after the candidates, the lease store and the resource
	assert.Equal(t, []sim.NodeID{base + 2, base}, sc.Faults[1].Crash.Target.Nodes)

	r, err := sc.Build(RunOptions{Seed: 1})
	require.NoError(t, err)
	for name, id := range map[string]sim.NodeID{"apiserver": base, "kubelet1": base + 1, "kubelet2": base + 2, "kubelet3": base + 3} {
		got, ok := r.Sim.NodeByName(name)
		require.True(t, ok, name)
		assert.Equal(t, id, got, name)
	}
	assert.Equal(t, []sim.NodeID{base + 1, base + 2, base + 3}, r.Workers)
	assert.Equal(t, r.Workers, r.CronConfig.Kube.KubeletNodes)
	y := sc.YAML()
	assert.Contains(t, string(y), "kubernetes: {kubelets: 3, starting_deadline_seconds: 30, termination_grace_period_seconds: 30, concurrency_policy: forbid, backoff_limit: 6")
	again, err := Parse("again.yaml", y)
	require.NoError(t, err, "the explicit YAML loads")
	assert.Equal(t, sc.Cron.Config.Kube, again.Cron.Config.Kube)
}

// Mistakes in the kubernetes section are reported at their file:line:col,
// naming the field.
func TestKubeSectionErrors(t *testing.T) {
	for _, tc := range []struct {
		yaml, want string
	}{
		{"", "k.yaml:6:3: cron.kubernetes: missing: mode kubernetes needs a kubernetes section"},
		{"  kubernetes: {concurrency_policy: forbid}\n", "k.yaml:8:16: cron.kubernetes.kubelets: missing: how many kubelet nodes"},
		{"  kubernetes: {kubelets: 0}\n", "cron.kubernetes.kubelets: 0 is out of range [1, 100]"},
		{"  kubernetes: {kubelets: 2, concurrency_policy: forbidden}\n", `cron.kubernetes.concurrency_policy: "forbidden" is not one of allow, forbid, replace (did you mean "forbid"?)`},
		{"  kubernetes: {kubelets: 2, pod_replacement_policy: Never}\n", `cron.kubernetes.pod_replacement_policy: "Never" is not one of TerminatingOrFailed, Failed`},
		{"  kubernetes: {kubelets: 2, startng_deadline_seconds: 5}\n", `cron.kubernetes.startng_deadline_seconds: unknown field (did you mean "starting_deadline_seconds"?)`},
		{"  kubernetes: {kubelets: 2, backoff_limit: -1}\n", "cron.kubernetes.backoff_limit: -1 is out of range [0, 62]"},
		{"  kubernetes: {kubelets: 2, sync_every: 0s}\n", "cron.kubernetes.sync_every: must be at least 1ms"},
		{"  kubernetes: {kubelets: 2}\nfaults:\n  - {at: 1s, crash: queue, for: 1s}\n", "queue: this scenario has no queue-mode cron"},
		{"  kubernetes: {kubelets: 2}\nfaults:\n  - {at: 1s, crash: kubelet3, for: 1s}\n", "kubelet3"},
		// validateJobSpec: successPolicy requires indexed completion mode.
		{"  kubernetes: {kubelets: 2, success_policy: {rules: [{succeeded_count: 1}]}}\n", "cron.kubernetes.success_policy: requires indexed completion mode"},
		// validatePodReplacementPolicy: only Failed beside a pod failure policy.
		{"  kubernetes: {kubelets: 2, pod_replacement_policy: TerminatingOrFailed, pod_failure_policy: {rules: []}}\n", "only Failed is supported when pod_failure_policy is specified"},
		// validatePodFailurePolicyRule and its OnExitCodes check.
		{"  kubernetes: {kubelets: 2, pod_failure_policy: {rules: [{action: FailJob, on_exit_codes: {operator: In, values: [0]}}]}}\n", "value 0 must not be used with the In operator"},
		{"  kubernetes: {kubelets: 2, pod_failure_policy: {rules: [{action: FailIndex, on_exit_codes: {operator: In, values: [1]}}]}}\n", "requires the backoffLimitPerIndex"},
		{"  kubernetes: {kubelets: 2, pod_failure_policy: {rules: [{action: Ignore}]}}\n", "one of on_exit_codes and on_pod_conditions is required"},
	} {
		_, err := Parse("k.yaml", []byte(kubeBaseYAML+tc.yaml))
		require.Error(t, err, tc.yaml)
		assert.Contains(t, err.Error(), tc.want, tc.yaml)
	}
	_, err := Parse("k.yaml", []byte(strings.Replace(kubeBaseYAML, "mode: kubernetes", "mode: leader", 1)+"  kubernetes: {kubelets: 2}\n"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "k.yaml:8:3: cron.kubernetes: only used with mode: kubernetes")
	_, err = Parse("k.yaml", []byte(kubeBaseYAML+"  kubernetes: {kubelets: 1}\nexpect: {allow: [lost_slot, overlap]}\n"))
	require.NoError(t, err, "kubernetes mode reports the execution checks")
	// Must not refuse a grace period at or below the kubelet's status
	// period: NodeLifecycleControllerOptions.Validate
	// (cmd/kube-controller-manager/app/options/nodelifecyclecontroller.go)
	// checks nothing, and the two are flags of different processes.
	_, err = Parse("k.yaml", []byte(kubeBaseYAML+"  kubernetes: {kubelets: 2, node_monitor_grace: 5s}\n"))
	require.NoError(t, err)
	// A pod failure policy, even with no rules, makes the replacement
	// policy Failed (SetDefaults_Job); an empty rule list is valid
	// (validatePodFailurePolicy has no "at least one rule" check).
	sc, err := Parse("k.yaml", []byte(kubeBaseYAML+"  kubernetes: {kubelets: 2, pod_failure_policy: {rules: []}}\n"))
	require.NoError(t, err)
	require.NotNil(t, sc.Cron.Config.Kube.PodFailurePolicy)
}

// kubeRun runs a shipped kube scenario at seed with sets applied.
func kubeRun(t *testing.T, file string, seed uint64, sets ...string) *Run {
	t.Helper()
	sc, err := LoadWith(shipped(file), sets)
	require.NoError(t, err)
	r, err := sc.Run(RunOptions{Seed: seed, Recorder: &sim.Recorder{}})
	require.NoError(t, err)
	return r
}

func effectsNamed(r *Run, name string) []sim.Record {
	var out []sim.Record
	for _, rec := range r.Recorder.Records {
		if rec.Type == sim.RecEffect && rec.Name == name {
			out = append(out, rec)
		}
	}
	return out
}

func factsOf(r *Run, f sim.Fact, slot int64) []sim.Record {
	var out []sim.Record
	for _, rec := range r.Recorder.Records {
		if rec.Type == sim.RecEffect && rec.Fact == f && rec.B == slot {
			out = append(out, rec)
		}
	}
	return out
}

// The seven shipped Kubernetes stories do what their comments promise, and
// each has a variant in which it must not happen.
func TestKubeStories(t *testing.T) {
	slot := time.Date(2026, 11, 21, 2, 0, 0, 0, time.UTC).UnixNano()
	for seed := uint64(1); seed <= 5; seed++ {
		// cronjob_controllerv2.go syncCronJob, the AlreadyExists path.
		t.Run("lease split", func(t *testing.T) {
			r := kubeRun(t, "kube-lease-split.yaml", seed)
			require.True(t, r.OK, "seed %d: %v", seed, r.Problems)
			assert.Len(t, factsOf(r, sim.FactExecCreated, slot), 1, "one Job for 02:00")
			exists := effectsNamed(r, "kube.job_already_exists")
			require.NotEmpty(t, exists, "the stalled controller's create failed with AlreadyExists")
			assert.Equal(t, slot, exists[0].B)
			assert.NotEmpty(t, effectsNamed(r, "kube.status_conflict"), "its status update with the old resourceVersion failed")
			assert.Len(t, factsOf(r, sim.FactExecStarted, slot), 1, "one Pod ran it")
			// Must not happen without the stall: one leader, no collision.
			calm := kubeRun(t, "kube-lease-split.yaml", seed, "faults=[]")
			assert.Empty(t, effectsNamed(calm, "kube.job_already_exists"))
			assert.Len(t, factsOf(calm, sim.FactExecCreated, slot), 1)
		})
		// Node lifecycle taint + eviction, job_controller.go podReplacementPolicy.
		t.Run("node partition", func(t *testing.T) {
			r := kubeRun(t, "kube-node-partition.yaml", seed)
			require.True(t, r.OK, "seed %d: %v", seed, r.Problems)
			require.Len(t, factsOf(r, sim.FactExecRedelivered, slot), 1, "a replacement Pod")
			assert.Len(t, factsOf(r, sim.FactExecStarted, slot), 2)
			c, _ := r.Report.Check(checker.CheckDuplicateExecution)
			assert.False(t, c.OnlyHarmless(), "policy none: both runs applied")
			// Must not happen under podReplacementPolicy Failed.
			f := kubeRun(t, "kube-node-partition.yaml", seed, "cron.kubernetes.pod_replacement_policy=Failed")
			assert.Empty(t, factsOf(f, sim.FactExecRedelivered, slot))
			assert.Len(t, factsOf(f, sim.FactExecStarted, slot), 1)
			c, _ = f.Report.Check(checker.CheckDuplicateExecution)
			assert.Empty(t, c.Violations)
		})
		// job_controller.go onlyReplaceFailedPods and matchPodFailurePolicy
		// (Ignore on DisruptionTarget, which taint_eviction.go sets).
		t.Run("pod failure policy", func(t *testing.T) {
			r := kubeRun(t, "kube-pod-failure-policy.yaml", seed)
			require.True(t, r.OK, "seed %d: %v", seed, r.Problems)
			assert.Empty(t, factsOf(r, sim.FactExecRedelivered, slot), "no Pod beside the Terminating one")
			starts := factsOf(r, sim.FactExecStarted, slot)
			require.Len(t, starts, 2, "replaced once the node returned and the Pod was Failed")
			killed := effectsNamed(r, "kubelet.pod_killed")
			require.Len(t, killed, 1)
			assert.Greater(t, starts[1].At, killed[0].At, "one after the other")
			c, _ := r.Report.Check(checker.CheckDuplicateExecution)
			assert.False(t, c.OnlyHarmless(), "policy none: both runs applied")
			// Must not happen the same way without the policy: the
			// replacement starts beside the Terminating Pod at eviction.
			n := kubeRun(t, "kube-pod-failure-policy.yaml", seed, "cron.kubernetes.pod_failure_policy=null")
			require.Len(t, factsOf(n, sim.FactExecRedelivered, slot), 1)
			started := factsOf(n, sim.FactExecStarted, slot)
			require.Len(t, started, 2)
			assert.Less(t, started[1].At, effectsNamed(n, "kubelet.pod_killed")[0].At, "beside the first")
		})
		// syncCronJob, concurrencyPolicy Forbid.
		t.Run("forbid stuck", func(t *testing.T) {
			r := kubeRun(t, "kube-forbid-stuck.yaml", seed)
			require.True(t, r.OK, "seed %d: %v", seed, r.Problems)
			skipped := effectsNamed(r, "kube.job_already_active")
			assert.GreaterOrEqual(t, len(skipped), 4, "02:01..02:04 skipped at least")
			lost, _ := r.Report.Check(checker.CheckLostSlot)
			assert.NotEmpty(t, lost.Violations)
			ov, _ := r.Report.Check(checker.CheckOverlap)
			assert.Empty(t, ov.Violations)
			// Must not happen under Allow.
			a := kubeRun(t, "kube-forbid-stuck.yaml", seed, "cron.kubernetes.concurrency_policy=allow")
			assert.Empty(t, effectsNamed(a, "kube.job_already_active"))
			lost, _ = a.Report.Check(checker.CheckLostSlot)
			assert.Empty(t, lost.Violations)
		})
		// job_controller.go enactJobFinished: Complete waits for the
		// Terminating Pod (delayTerminalCondition), so Forbid skips 02:05.
		t.Run("forbid terminating", func(t *testing.T) {
			r := kubeRun(t, "kube-forbid-terminating.yaml", seed)
			require.True(t, r.OK, "seed %d: %v", seed, r.Problems)
			five := time.Date(2026, 11, 21, 2, 5, 0, 0, time.UTC).UnixNano()
			assert.Empty(t, factsOf(r, sim.FactExecCreated, five), "02:05 never created")
			assert.Len(t, factsOf(r, sim.FactExecRedelivered, slot), 1, "the replacement beside the Terminating Pod")
			// Must not happen with the node reachable.
			calm := kubeRun(t, "kube-forbid-terminating.yaml", seed, "faults=[]")
			assert.Empty(t, effectsNamed(calm, "kube.job_already_active"))
			assert.Len(t, factsOf(calm, sim.FactExecCreated, five), 1)
		})
		// syncCronJob, concurrencyPolicy Replace, on a Job started late:
		// lost_slot judges a slot started and never completed whatever the
		// leadership when it came due.
		t.Run("replace late job", func(t *testing.T) {
			r := kubeRun(t, "kube-replace-late-job.yaml", seed)
			require.True(t, r.OK, "seed %d: %v", seed, r.Problems)
			require.Len(t, factsOf(r, sim.FactExecStarted, slot), 1, "02:00's Pod started once, late")
			assert.Empty(t, factsOf(r, sim.FactExecCompleted, slot), "and was killed by Replace")
			lost, _ := r.Report.Check(checker.CheckLostSlot)
			require.NotEmpty(t, lost.Violations)
			assert.Contains(t, lost.Violations[0].Details, "while no scheduler led")
			// Must not under Allow: the late Job completes.
			a := kubeRun(t, "kube-replace-late-job.yaml", seed, "cron.kubernetes.concurrency_policy=allow")
			lost, _ = a.Report.Check(checker.CheckLostSlot)
			assert.Empty(t, lost.Violations)
		})
		// utils.go mostRecentScheduleTime with startingDeadlineSeconds.
		t.Run("controller downtime", func(t *testing.T) {
			r := kubeRun(t, "kube-controller-downtime.yaml", seed)
			require.True(t, r.OK, "seed %d: %v", seed, r.Problems)
			assert.Empty(t, factsOf(r, sim.FactExecCreated, slot), "02:00 never created")
			// Must not happen with a deadline longer than the downtime.
			l := kubeRun(t, "kube-controller-downtime.yaml", seed, "cron.kubernetes.starting_deadline_seconds=300")
			created := factsOf(l, sim.FactExecCreated, slot)
			require.Len(t, created, 1)
			assert.Greater(t, created[0].At, sim.Time(170*time.Second), "created after the controllers came back")
		})
	}
}

// Kubernetes-mode runs are deterministic: one seed, one trace.
func TestKubeScenarioDeterminism(t *testing.T) {
	for _, f := range []string{"kube-lease-split.yaml", "kube-node-partition.yaml"} {
		a := kubeRun(t, f, 4)
		b := kubeRun(t, f, 4)
		assert.Equal(t, a.Sim.TraceHash(), b.Sim.TraceHash(), f)
	}
}
