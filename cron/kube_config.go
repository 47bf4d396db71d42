package cron

import (
	"fmt"
	"time"

	"github.com/electsim/electsim/sim"
)

// Concurrency policies of a Kubernetes CronJob (spec.concurrencyPolicy).
const (
	// KubeAllow lets Jobs of one CronJob run at once (the API default).
	KubeAllow = "allow"
	// KubeForbid skips a scheduled time while a Job of the CronJob is
	// still active (syncCronJob: "JobAlreadyActive").
	KubeForbid = "forbid"
	// KubeReplace deletes the active Jobs and creates the new one.
	KubeReplace = "replace"
)

// Pod replacement policies of a Job (spec.podReplacementPolicy).
const (
	KubeReplaceTerminating = "TerminatingOrFailed"
	KubeReplaceFailed      = "Failed"
)

// Limits of Kubernetes mode: every input size is bounded.
const (
	// MaxKubelets bounds the kubelet nodes.
	MaxKubelets = 100
	// MaxKubeJobsPerCronJob is how many Jobs of one CronJob the API server
	// holds at most (active and finished); a create past it is refused, as
	// a ResourceQuota on count/jobs.batch would.
	MaxKubeJobsPerCronJob = 100
	// MaxKubePodsPerJob is how many Pods of one Job the API server holds at
	// most; a create past it is refused (a quota on count/pods).
	MaxKubePodsPerJob = 64
)

// KubeConfig configures Kubernetes mode (cron.mode: kubernetes): the
// candidates are kube-controller-managers running the CronJob, Job and
// node lifecycle controllers while they lead; an API server node holds the
// CronJobs' status, the Jobs and the Pods; kubelet nodes run the Pods,
// whose containers make the job's writes to the fenced resource. Every
// job of the table is one CronJob. Zero Kubelets: the mode is off.
type KubeConfig struct {
	// Kubelets is the number of kubelet (worker) nodes.
	Kubelets int
	// APIServer and KubeletNodes are the nodes (set by whoever builds the run).
	APIServer    sim.NodeID
	KubeletNodes []sim.NodeID
	// StartingDeadline is spec.startingDeadlineSeconds; 0: unset (nil).
	StartingDeadline time.Duration
	// Concurrency is KubeAllow (default), KubeForbid or KubeReplace.
	Concurrency string
	// BackoffLimit is the Job's spec.backoffLimit: failed Pods beyond it
	// fail the Job. Zero is a valid limit (no retry); the scenario loader
	// and DefaultKube give the API default, 6.
	BackoffLimit int
	// ActiveDeadline is the Job's spec.activeDeadlineSeconds; 0: unset.
	ActiveDeadline time.Duration
	// SuccessfulHistory and FailedHistory are the CronJob's
	// successfulJobsHistoryLimit and failedJobsHistoryLimit: finished Jobs
	// beyond them are deleted. Zero keeps none; the scenario loader and
	// DefaultKube give the API defaults, 3 and 1.
	SuccessfulHistory, FailedHistory int
	// SyncEvery is how often a leading controller-manager re-lists from the
	// API server and reconciles (the informers' lag and the work queue's
	// pace, folded into one period). Default 1s.
	SyncEvery time.Duration
	// NodeStatusEvery is the kubelet's node status / lease renewal period
	// (--node-status-update-frequency, default 10s).
	NodeStatusEvery time.Duration
	// NodeMonitorGrace is --node-monitor-grace-period: a node whose status
	// has not changed for this long is unreachable. Default 40s.
	NodeMonitorGrace time.Duration
	// TolerationSeconds is how long a Pod tolerates the unreachable
	// NoExecute taint before eviction: the DefaultTolerationSeconds
	// admission plugin's default 300s.
	TolerationSeconds time.Duration
	// PodReplacementPolicy is the Job's spec.podReplacementPolicy:
	// KubeReplaceTerminating (default: TerminatingOrFailed, a replacement
	// as soon as a Pod is Terminating) or KubeReplaceFailed (only once it
	// has failed, which a Pod on an unreachable node cannot report).
	PodReplacementPolicy string
	// PodFailRate is the probability that a Pod's container exits non-zero
	// after its writes (restartPolicy: Never). Default 0.
	PodFailRate float64
	// StartDeadline is how long after its slot a Job's first Pod may start
	// and be on time, for the late_start check only. Default 1m.
	StartDeadline time.Duration
	// TerminationGrace is the Pod's spec.terminationGracePeriodSeconds:
	// a deleted Pod's container gets SIGTERM and is killed this long
	// after. The container ignores SIGTERM (the pessimistic reading: a
	// shell script as PID 1 does) and runs on until then. Zero kills at
	// once; DefaultKube and the scenario loader give the API default, 30s.
	TerminationGrace time.Duration
	// PodFailurePolicy is the Job's spec.podFailurePolicy; nil: unset. Set,
	// it makes PodReplacementPolicy KubeReplaceFailed (SetDefaults_Job),
	// and validation refuses any other (validatePodReplacementPolicy).
	PodFailurePolicy *KubePodFailurePolicy
	// PodExitCode is the exit code of a container that fails (PodFailRate).
	// Default 1.
	PodExitCode int32
}

// DefaultKube returns a KubeConfig with n kubelets and the API defaults
// whose zero value is a valid setting (backoffLimit 6, history limits 3
// and 1, terminationGracePeriodSeconds 30); validation fills in the rest.
func DefaultKube(n int) KubeConfig {
	return KubeConfig{Kubelets: n, BackoffLimit: 6, SuccessfulHistory: 3, FailedHistory: 1, TerminationGrace: 30 * time.Second}
}

// Enabled reports whether Kubernetes mode is on.
func (k *KubeConfig) Enabled() bool { return k.Kubelets > 0 }

// validate fills in defaults and checks the Kubernetes configuration.
func (k *KubeConfig) validate(c *Config) error {
	if !k.Enabled() {
		if k.Kubelets < 0 {
			return fmt.Errorf("kubernetes kubelets must not be negative, got %d", k.Kubelets)
		}
		return nil
	}
	if c.Queue.Enabled() {
		return fmt.Errorf("kubernetes mode and queue mode are exclusive")
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	def(&k.SyncEvery, time.Second)
	def(&k.NodeStatusEvery, 10*time.Second)
	def(&k.NodeMonitorGrace, 40*time.Second)
	def(&k.TolerationSeconds, 300*time.Second)
	def(&k.StartDeadline, time.Minute)
	if k.PodExitCode == 0 {
		k.PodExitCode = 1
	}
	if k.PodFailurePolicy != nil {
		// pkg/apis/batch/v1/defaults.go SetDefaults_Job: Failed when a pod
		// failure policy is set; validatePodReplacementPolicy refuses any
		// other value beside one.
		switch k.PodReplacementPolicy {
		case "":
			k.PodReplacementPolicy = KubeReplaceFailed
		case KubeReplaceFailed:
		default:
			return fmt.Errorf("kubernetes pod_replacement_policy %q: only %s is supported when pod_failure_policy is specified", k.PodReplacementPolicy, KubeReplaceFailed)
		}
		if err := k.PodFailurePolicy.Validate(); err != nil {
			return err
		}
	}
	if k.PodReplacementPolicy == "" {
		k.PodReplacementPolicy = KubeReplaceTerminating
	}
	if k.Concurrency == "" {
		k.Concurrency = KubeAllow
	}
	switch {
	case k.Kubelets > MaxKubelets:
		return fmt.Errorf("kubernetes kubelets must be in 1..%d, got %d", MaxKubelets, k.Kubelets)
	case k.Concurrency != KubeAllow && k.Concurrency != KubeForbid && k.Concurrency != KubeReplace:
		return fmt.Errorf("kubernetes concurrency %q: want %s, %s or %s", k.Concurrency, KubeAllow, KubeForbid, KubeReplace)
	case k.PodReplacementPolicy != KubeReplaceTerminating && k.PodReplacementPolicy != KubeReplaceFailed:
		return fmt.Errorf("kubernetes pod_replacement_policy %q: want %s or %s", k.PodReplacementPolicy, KubeReplaceTerminating, KubeReplaceFailed)
	case k.BackoffLimit < 0 || k.BackoffLimit > MaxKubePodsPerJob-2:
		return fmt.Errorf("kubernetes backoff_limit must be in 0..%d, got %d", MaxKubePodsPerJob-2, k.BackoffLimit)
	case k.SuccessfulHistory < 0 || k.FailedHistory < 0 || k.SuccessfulHistory+k.FailedHistory > MaxKubeJobsPerCronJob/2:
		return fmt.Errorf("kubernetes history limits must be in 0..%d together, got %d and %d", MaxKubeJobsPerCronJob/2, k.SuccessfulHistory, k.FailedHistory)
	case k.PodExitCode < 1 || k.PodExitCode > 255:
		return fmt.Errorf("kubernetes pod_exit_code must be in 1..255, got %d", k.PodExitCode)
	case k.PodFailRate < 0 || k.PodFailRate > 1:
		return fmt.Errorf("kubernetes pod_fail_rate must be in [0, 1], got %v", k.PodFailRate)
	case k.StartingDeadline < 0 || k.ActiveDeadline < 0 || k.TerminationGrace < 0:
		return fmt.Errorf("kubernetes deadlines and the termination grace period must not be negative")
	case k.StartingDeadline%time.Second != 0 || k.ActiveDeadline%time.Second != 0 || k.TerminationGrace%time.Second != 0:
		return fmt.Errorf("kubernetes starting_deadline, active_deadline and termination_grace are whole seconds (startingDeadlineSeconds, activeDeadlineSeconds, terminationGracePeriodSeconds), got %v, %v and %v", k.StartingDeadline, k.ActiveDeadline, k.TerminationGrace)
	}
	for _, d := range []time.Duration{k.SyncEvery, k.NodeStatusEvery, k.NodeMonitorGrace, k.TolerationSeconds, k.StartDeadline} {
		if d < time.Millisecond {
			return fmt.Errorf("kubernetes durations must be at least 1ms, got %v", d)
		}
	}
	// A node_monitor_grace at or below node_status_every is not refused:
	// kube-controller-manager's NodeLifecycleControllerOptions.Validate
	// (cmd/kube-controller-manager/app/options/nodelifecyclecontroller.go)
	// checks nothing, and the kubelet's period is another process's flag.
	// Every node then goes unreachable between two updates and Ready again
	// at the next (docs/cron-kubernetes.md, differences table).
	return nil
}
