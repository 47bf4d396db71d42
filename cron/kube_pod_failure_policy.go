package cron

import (
	"fmt"
	"slices"
)

// Pod failure policy actions (batch/v1 PodFailurePolicyAction).
const (
	// KubeActionFailJob fails the Job at once: no replacement Pod
	// (FailureTarget with reason PodFailurePolicy, then Failed once no Pod
	// of it terminates).
	KubeActionFailJob = "FailJob"
	// KubeActionIgnore does not count the failure towards backoffLimit
	// (the failure backoff still counts it) and replaces the Pod.
	KubeActionIgnore = "Ignore"
	// KubeActionCount counts the failure, as with no rule.
	KubeActionCount = "Count"
	// KubeActionFailIndex is for Indexed Jobs with backoffLimitPerIndex:
	// refused, as the API server refuses it without backoffLimitPerIndex.
	KubeActionFailIndex = "FailIndex"
)

// Exit codes the model's containers exit with besides KubeConfig.PodExitCode.
const (
	// KubeExitKilled is a container stopped by SIGKILL (128+9): a deleted
	// Pod's container that ignored SIGTERM for its grace period, and the
	// kubelet's ContainerStatusUnknown for a container lost in a crash.
	KubeExitKilled = 137
)

// Limits of pkg/apis/batch/validation (maxPodFailurePolicyRules,
// maxPodFailurePolicyOnExitCodesValues,
// maxPodFailurePolicyOnPodConditionsPatterns).
const (
	maxPodFailurePolicyRules      = 20
	maxPodFailurePolicyExitValues = 255
	maxPodFailurePolicyPatterns   = 20
)

// KubePodFailurePolicy is a Job's spec.podFailurePolicy. A non-nil policy,
// even with no rules, makes the Job controller replace only Failed Pods
// and count only Failed Pods as failed (onlyReplaceFailedPods,
// isPodFailed in pkg/controller/job/job_controller.go).
type KubePodFailurePolicy struct {
	Rules []KubePodFailureRule
}

// KubePodFailureRule is one rule: an action and exactly one of ExitCodes
// and Conditions.
type KubePodFailureRule struct {
	Action     string
	ExitCodes  *KubeExitCodes
	Conditions []KubePodCondition
}

// KubeExitCodes is onExitCodes: Operator "In" or "NotIn" over Values
// (ordered, unique; In may not hold 0). The model's Pod has one container,
// so containerName is not read.
type KubeExitCodes struct {
	Operator string
	Values   []int32
}

// KubePodCondition is one onPodConditions pattern; Status defaults to
// "True" (SetDefaults_Job). The model's Pods carry one condition a rule
// can match: DisruptionTarget=True on a Pod the taint manager evicted.
type KubePodCondition struct {
	Type, Status string
}

// Validate is validatePodFailurePolicy and validatePodFailurePolicyRule
// (pkg/apis/batch/validation/validation.go) for the model's one-container
// NonIndexed Job: an error for what the API server refuses.
func (p *KubePodFailurePolicy) Validate() error {
	if len(p.Rules) > maxPodFailurePolicyRules {
		return fmt.Errorf("kubernetes pod_failure_policy: at most %d rules, got %d", maxPodFailurePolicyRules, len(p.Rules))
	}
	for i := range p.Rules {
		r := &p.Rules[i]
		switch r.Action {
		case KubeActionFailJob, KubeActionIgnore, KubeActionCount:
		case KubeActionFailIndex:
			return fmt.Errorf("kubernetes pod_failure_policy rule %d: action FailIndex requires the backoffLimitPerIndex to be set, which requires indexed completion mode (the model's Jobs are NonIndexed)", i)
		default:
			return fmt.Errorf("kubernetes pod_failure_policy rule %d: action %q: want %s, %s or %s", i, r.Action, KubeActionCount, KubeActionFailJob, KubeActionIgnore)
		}
		if (r.ExitCodes != nil) == (len(r.Conditions) > 0) {
			return fmt.Errorf("kubernetes pod_failure_policy rule %d: specifying one of on_exit_codes and on_pod_conditions is required, not both", i)
		}
		if e := r.ExitCodes; e != nil {
			if e.Operator != "In" && e.Operator != "NotIn" {
				return fmt.Errorf("kubernetes pod_failure_policy rule %d: operator %q: want In or NotIn", i, e.Operator)
			}
			if len(e.Values) == 0 || len(e.Values) > maxPodFailurePolicyExitValues {
				return fmt.Errorf("kubernetes pod_failure_policy rule %d: between 1 and %d values, got %d", i, maxPodFailurePolicyExitValues, len(e.Values))
			}
			for j, v := range e.Values {
				switch {
				case e.Operator == "In" && v == 0:
					return fmt.Errorf("kubernetes pod_failure_policy rule %d: value 0 must not be used with the In operator", i)
				case j > 0 && e.Values[j-1] == v:
					return fmt.Errorf("kubernetes pod_failure_policy rule %d: duplicate value %d", i, v)
				case j > 0 && e.Values[j-1] > v:
					return fmt.Errorf("kubernetes pod_failure_policy rule %d: values must be ordered", i)
				}
			}
		}
		if len(r.Conditions) > maxPodFailurePolicyPatterns {
			return fmt.Errorf("kubernetes pod_failure_policy rule %d: at most %d on_pod_conditions, got %d", i, maxPodFailurePolicyPatterns, len(r.Conditions))
		}
		for j := range r.Conditions {
			c := &r.Conditions[j]
			if c.Status == "" {
				c.Status = "True"
			}
			if c.Type == "" {
				return fmt.Errorf("kubernetes pod_failure_policy rule %d: a condition needs a type", i)
			}
			if !slices.Contains([]string{"True", "False", "Unknown"}, c.Status) {
				return fmt.Errorf("kubernetes pod_failure_policy rule %d: condition status %q: want True, False or Unknown", i, c.Status)
			}
		}
	}
	return nil
}

// match is matchPodFailurePolicy (pkg/controller/job/pod_failure_policy.go)
// for a failed Pod: the first rule that matches decides; countFailed is
// false for Ignore, failJob true for FailJob. A nil policy counts every
// failure. Exit code 0 means the container never terminated with a code
// (it never ran, or ran nowhere): matchOnExitCodes skips it, as it skips
// a container with no Terminated state or exit code 0.
func (p *KubePodFailurePolicy) match(pod *KubePod) (countFailed, failJob bool, rule int) {
	if p == nil {
		return true, false, -1
	}
	for i, r := range p.Rules {
		hit := false
		if e := r.ExitCodes; e != nil {
			in := slices.Contains(e.Values, pod.ExitCode)
			hit = pod.ExitCode != 0 && in == (e.Operator == "In")
		} else {
			for _, c := range r.Conditions {
				// The model's only Pod condition: DisruptionTarget, True
				// when the taint manager evicted the Pod, else absent
				// (a pattern on an absent condition never matches).
				if c.Type == "DisruptionTarget" && c.Status == "True" && pod.Disruption {
					hit = true
				}
			}
		}
		if !hit {
			continue
		}
		switch r.Action {
		case KubeActionIgnore:
			return false, false, i
		case KubeActionFailJob:
			return true, true, i
		default:
			return true, false, i
		}
	}
	return true, false, -1
}
