package cron_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/cron"
	"github.com/electsim/electsim/sim"
)

// The sources these tests reproduce (kubernetes/kubernetes):
//   - pkg/controller/job/pod_failure_policy.go matchPodFailurePolicy (the
//     first matching rule decides; onExitCodes skips exit code 0);
//   - pkg/controller/job/job_controller.go syncJob (getFailJobMessage
//     before exceedsBackoffLimit; nonIgnoredFailedPodsCount), isPodFailed
//     and onlyReplaceFailedPods (a policy makes only Failed Pods failed and
//     replaceable), manageJob (the replacement waits for the backoff
//     record, which counts ignored failures too: backoff_utils.go
//     newBackoffRecord);
//   - pkg/controller/tainteviction/taint_eviction.go
//     addConditionAndDeletePod: the DisruptionTarget condition on an
//     evicted Pod;
//   - pkg/apis/batch/validation/validation.go validatePodFailurePolicyRule,
//     validatePodReplacementPolicy.

func failPolicy(action, op string, codes ...int32) *cron.KubePodFailurePolicy {
	return &cron.KubePodFailurePolicy{Rules: []cron.KubePodFailureRule{{Action: action, ExitCodes: &cron.KubeExitCodes{Operator: op, Values: codes}}}}
}

// getFailJobMessage: a Failed Pod whose exit code matches a FailJob rule
// fails the Job at once (reason PodFailurePolicy), with backoffLimit to
// spare. Must-refute: a rule on another code, or Count, retries up to
// backoffLimit as without a policy.
func TestKubePodFailurePolicyFailJob(t *testing.T) {
	run := func(p *cron.KubePodFailurePolicy) *kworld {
		w := newKWorld(t, 21, kcfg("0 2 * * *", time.Second, 1, cron.Policy{}, kube(func(k *cron.KubeConfig) {
			k.BackoffLimit, k.PodFailRate, k.PodExitCode, k.PodFailurePolicy = 2, 1, 42, p
		})), [][]tenure{{{0, 5 * time.Minute, 1}}}, true)
		w.s.RunUntil(at(5 * time.Minute))
		return w
	}
	s := slotAt(2, 0, 0)
	f := run(failPolicy(cron.KubeActionFailJob, "In", 42))
	assert.Len(t, f.facts(sim.FactExecStarted, s), 1, "no retry after a FailJob match")
	require.Len(t, f.facts(sim.FactExecDead, s), 1)
	assert.Contains(t, f.facts(sim.FactExecDead, s)[0].Detail, "PodFailurePolicy")

	other := run(failPolicy(cron.KubeActionFailJob, "In", 43))
	assert.Len(t, other.facts(sim.FactExecStarted, s), 3, "42 is not 43: backoffLimit 2, three Pods")
	assert.Contains(t, other.facts(sim.FactExecDead, s)[0].Detail, "BackoffLimitExceeded")
	notIn := run(failPolicy(cron.KubeActionFailJob, "NotIn", 42))
	assert.Len(t, notIn.facts(sim.FactExecStarted, s), 3, "NotIn 42 does not match 42")
	count := run(failPolicy(cron.KubeActionCount, "In", 42))
	assert.Len(t, count.facts(sim.FactExecStarted, s), 3, "Count counts as without a rule")
}

// nonIgnoredFailedPodsCount and newBackoffRecord: an Ignored failure does
// not count towards backoffLimit, but the backoff still counts it, so the
// replacements wait 10 s, 20 s, 40 s, … Must-refute: backoffLimit 0 with
// no policy fails the Job after the first Pod.
func TestKubePodFailurePolicyIgnoreStillBacksOff(t *testing.T) {
	run := func(p *cron.KubePodFailurePolicy) *kworld {
		w := newKWorld(t, 22, kcfg("0 2 * * *", time.Second, 1, cron.Policy{}, kube(func(k *cron.KubeConfig) {
			k.BackoffLimit, k.PodFailRate, k.PodExitCode, k.PodFailurePolicy = 0, 1, 42, p
		})), [][]tenure{{{0, 3 * time.Minute, 1}}}, true)
		w.s.RunUntil(at(3 * time.Minute))
		return w
	}
	s := slotAt(2, 0, 0)
	ig := run(failPolicy(cron.KubeActionIgnore, "In", 42))
	starts := ig.facts(sim.FactExecStarted, s)
	require.GreaterOrEqual(t, len(starts), 4, "ignored failures never exhaust backoffLimit 0")
	assert.Empty(t, ig.facts(sim.FactExecDead, s))
	for i := 1; i < 4; i++ {
		want := 10 * time.Second << (i - 1)
		assert.GreaterOrEqual(t, time.Duration(starts[i].At-starts[i-1].At), want, "Pod %d waits the doubled backoff", i+1)
	}
	none := run(nil)
	assert.Len(t, none.facts(sim.FactExecStarted, s), 1)
	assert.Len(t, none.facts(sim.FactExecDead, s), 1)
}

// cutBusy cuts the kubelet running a Pod at 02:01:10 from the API server
// (not the database) for cut.
func cutBusy(w *kworld, cut time.Duration) {
	w.s.At(at(70*time.Second), func() {
		for _, k := range w.kubelets {
			if w.s.Node(k).(*cron.Kubelet).Busy() {
				w.s.Cut(k, w.apiID)
				w.s.Cut(w.apiID, k)
				w.s.After(cut, func() { w.s.Connect(k, w.apiID); w.s.Connect(w.apiID, k) })
			}
		}
	})
}

// The pod failure policy of the Kubernetes documentation's example
// (Ignore on DisruptionTarget) under a node partition that heals while the
// Pod still runs: the eviction sets DisruptionTarget (taint_eviction.go);
// with a policy only Failed Pods are replaced (onlyReplaceFailedPods), so
// nothing runs beside the Terminating Pod; the node returns at 02:07:10,
// the kubelet kills the Pod after its 30 s grace period (exit 137), the
// Failed Pod matches Ignore and is replaced ~10 s later (the backoff
// counts it): a second, sequential run of 02:00 with backoffLimit 0.
// Must-refute: without a policy (TerminatingOrFailed) the Terminating Pod
// counts as failed at once (isPodFailed), exceeds backoffLimit 0 and the
// Job fails with no second Pod; with Count instead of Ignore the Job fails
// once the Pod is Failed.
func TestKubePodFailurePolicyIgnoresEviction(t *testing.T) {
	disruption := &cron.KubePodFailurePolicy{Rules: []cron.KubePodFailureRule{{Action: cron.KubeActionIgnore, Conditions: []cron.KubePodCondition{{Type: "DisruptionTarget"}}}}}
	count := &cron.KubePodFailurePolicy{Rules: []cron.KubePodFailureRule{{Action: cron.KubeActionCount, Conditions: []cron.KubePodCondition{{Type: "DisruptionTarget"}}}}}
	run := func(p *cron.KubePodFailurePolicy) *kworld {
		w := newKWorld(t, 23, kcfg("0 2 * * *", 8*time.Minute, 4, cron.Policy{}, kube(func(k *cron.KubeConfig) {
			k.BackoffLimit, k.PodFailurePolicy = 0, p
		})), [][]tenure{{{0, 20 * time.Minute, 1}}}, true)
		cutBusy(w, 6*time.Minute)
		w.s.RunUntil(at(20 * time.Minute))
		return w
	}
	s := slotAt(2, 0, 0)
	ig := run(disruption)
	require.Len(t, ig.effects("kube.pod_evicted", s), 1)
	assert.Empty(t, ig.facts(sim.FactExecRedelivered, s), "no replacement beside the Terminating Pod")
	assert.Equal(t, 1, ig.maxConcurrent(s))
	starts := ig.facts(sim.FactExecStarted, s)
	require.Len(t, starts, 2, "the ignored eviction is replaced once the Pod is Failed")
	killed := ig.effects("kubelet.pod_killed", s)
	require.Len(t, killed, 1)
	assert.Greater(t, starts[1].At, killed[0].At)
	assert.GreaterOrEqual(t, time.Duration(starts[1].At-killed[0].At), 10*time.Second, "the backoff counts the ignored failure")
	assert.Empty(t, ig.facts(sim.FactExecDead, s))
	assert.Len(t, ig.facts(sim.FactExecCompleted, s), 1, "the replacement completes")
	runs, _ := ig.runsOf(s)
	assert.Equal(t, 2, runs, "both Pods wrote: a second run of 02:00, after the first")

	none := run(nil)
	assert.Len(t, none.facts(sim.FactExecStarted, s), 1, "backoffLimit 0: the Terminating Pod's failure ends the Job")
	require.Len(t, none.facts(sim.FactExecDead, s), 1)
	assert.Contains(t, none.facts(sim.FactExecDead, s)[0].Detail, "BackoffLimitExceeded")
	assert.Empty(t, none.facts(sim.FactExecRedelivered, s))

	c := run(count)
	assert.Len(t, c.facts(sim.FactExecStarted, s), 1)
	require.Len(t, c.facts(sim.FactExecDead, s), 1)
	assert.Greater(t, c.facts(sim.FactExecDead, s)[0].At, c.effects("kubelet.pod_killed", s)[0].At, "failed only once the Pod is")
}

// validatePodFailurePolicyRule and validatePodReplacementPolicy: what the
// API server refuses is refused, and a policy makes the replacement policy
// Failed (SetDefaults_Job).
func TestKubePodFailurePolicyValidation(t *testing.T) {
	valid := func(p *cron.KubePodFailurePolicy, repl string) error {
		c := kcfg("0 2 * * *", time.Second, 1, cron.Policy{}, kube(func(k *cron.KubeConfig) { k.PodFailurePolicy, k.PodReplacementPolicy = p, repl }))
		c.Resource, c.Kube.APIServer, c.Kube.KubeletNodes = 1, 2, []sim.NodeID{3, 4}
		err := c.Validate()
		if err == nil {
			assert.Equal(t, cron.KubeReplaceFailed, c.Kube.PodReplacementPolicy)
		}
		return err
	}
	assert.NoError(t, valid(failPolicy(cron.KubeActionFailJob, "In", 1, 42), ""))
	assert.NoError(t, valid(&cron.KubePodFailurePolicy{}, cron.KubeReplaceFailed), "no rules is valid, and still a policy")
	assert.ErrorContains(t, valid(failPolicy(cron.KubeActionIgnore, "In", 1), cron.KubeReplaceTerminating), "only Failed")
	assert.ErrorContains(t, valid(failPolicy(cron.KubeActionFailJob, "In", 0), ""), "0")
	assert.ErrorContains(t, valid(failPolicy(cron.KubeActionFailJob, "In", 42, 1), ""), "ordered")
	assert.ErrorContains(t, valid(failPolicy(cron.KubeActionFailJob, "In", 1, 1), ""), "duplicate")
	assert.ErrorContains(t, valid(failPolicy(cron.KubeActionFailIndex, "In", 1), ""), "backoffLimitPerIndex")
	assert.ErrorContains(t, valid(failPolicy("Retry", "In", 1), ""), "want")
	assert.ErrorContains(t, valid(failPolicy(cron.KubeActionFailJob, "Is", 1), ""), "operator")
	both := failPolicy(cron.KubeActionIgnore, "In", 1)
	both.Rules[0].Conditions = []cron.KubePodCondition{{Type: "DisruptionTarget"}}
	assert.ErrorContains(t, valid(both, ""), "one of")
}
