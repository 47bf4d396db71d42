package cron

import "github.com/electsim/electsim/sim"

// Message kinds of Kubernetes mode. Field use:
//
//	KubeList:          B=request; a controller-manager re-lists (its informers' view)
//	KubeListResp:      B=request, Body=*KubeSnapshot
//	KubeCreateJob:     Term=token, Index=slot, A=job, B=request
//	KubeCreateJobResp: as KubeCreateJob, Flag=created (false: AlreadyExists or refused)
//	KubeUpdateStatus:  A=job, Index=lastScheduleTime (0: nil), B=resourceVersion read, Body=[]string active Job names
//	KubeDeleteJob:     Body=string Job name (its Pods are deleted with it)
//	KubeCreatePod:     Index=pods the creator saw, Body=string Job name
//	KubeDeletePod:     Body=string Pod name (deletionTimestamp set), Flag=the taint manager's eviction (DisruptionTarget)
//	KubeFinishJob:     Flag=failed, Body=*KubeFinish
//	KubeBind:          Body=*KubePod; the API server tells a kubelet of a Pod bound to it, or deleted
//	KubeNodeStatus:    Body=[]KubePodStatus; a kubelet's status update and lease renewal
//	KubeNodeStatusResp: Body=[]KubePod bound to the kubelet
var (
	KindKubeList           = sim.RegisterKind("kube.List", sim.Fields{B: "request"})
	KindKubeListResp       = sim.RegisterKind("kube.ListResp", sim.Fields{B: "request"})
	KindKubeCreateJob      = sim.RegisterKind("kube.CreateJob", sim.Fields{Term: "token", Index: "slot", A: "job", B: "request"})
	KindKubeCreateJobResp  = sim.RegisterKind("kube.CreateJobResp", sim.Fields{Term: "token", Index: "slot", A: "job", B: "request", Flag: "created"})
	KindKubeUpdateStatus   = sim.RegisterKind("kube.UpdateStatus", sim.Fields{Index: "last_schedule", A: "job", B: "resource_version"})
	KindKubeDeleteJob      = sim.RegisterKind("kube.DeleteJob", sim.Fields{})
	KindKubeCreatePod      = sim.RegisterKind("kube.CreatePod", sim.Fields{Index: "pods_seen"})
	KindKubeDeletePod      = sim.RegisterKind("kube.DeletePod", sim.Fields{Flag: "eviction"})
	KindKubeFinishJob      = sim.RegisterKind("kube.FinishJob", sim.Fields{Flag: "failed"})
	KindKubeBind           = sim.RegisterKind("kube.Bind", sim.Fields{})
	KindKubeNodeStatus     = sim.RegisterKind("kube.NodeStatus", sim.Fields{})
	KindKubeNodeStatusResp = sim.RegisterKind("kube.NodeStatusResp", sim.Fields{})
)

// kubeKinds are Kubernetes mode's kinds; IsKind counts them as the cron layer's.
var kubeKinds = []sim.MsgKind{KindKubeList, KindKubeListResp, KindKubeCreateJob, KindKubeCreateJobResp,
	KindKubeUpdateStatus, KindKubeDeleteJob, KindKubeCreatePod, KindKubeDeletePod, KindKubeFinishJob,
	KindKubeBind, KindKubeNodeStatus, KindKubeNodeStatusResp}

// Pod phases.
const (
	PodPending   = 0
	PodRunning   = 1
	PodSucceeded = 2
	PodFailed    = 3
)

// Job conditions.
const (
	JobActive   = 0
	JobComplete = 1
	JobFailed   = 2
)

// KubeJob is a Job as the API server holds it.
type KubeJob struct {
	Name    string // <cronjob>-<scheduled time in minutes since the epoch> (getJobName)
	Job     int    // the CronJob: index in the job table
	Slot    int64  // the scheduled time, Unix ns
	Token   int64  // the creating controller-manager's leadership token
	UID     int64  // unique per creation (the execution ID of the exec facts)
	Start   int64  // status.startTime, the API server's wall clock, Unix ns
	Cond    int    // JobActive, JobComplete, JobFailed
	Reason  string // BackoffLimitExceeded, DeadlineExceeded
	PodSeq  int    // Pods created so far (names Pods <job>-<seq>)
	Pods    []string
	EndedAt int64 // when it finished, API server wall ns
}

// KubePod is a Pod as the API server holds it.
type KubePod struct {
	Name     string
	JobName  string
	Job      int
	Slot     int64
	Token    int64
	Node     sim.NodeID // the kubelet it is bound to; sim.None: Pending, unscheduled
	Phase    int
	Deleting bool  // deletionTimestamp set (evicted, or its Job deleted): Terminating
	EndedAt  int64 // when it succeeded or failed, API server wall ns
	// ExitCode is its container's exit code once it failed; 0: none (it
	// never ran, or succeeded).
	ExitCode int32
	// Disruption is the DisruptionTarget=True condition the taint manager
	// adds before it evicts a Pod (taint_eviction.go
	// addConditionAndDeletePod, reason DeletionByTaintManager).
	Disruption bool
}

// KubePodStatus is a kubelet's report of one Pod.
type KubePodStatus struct {
	Name  string
	Phase int
	Gone  bool // the kubelet killed it after its deletion: remove the object
	// ExitCode is the container's exit code once Failed (0: it never ran here).
	ExitCode int32
}

// KubeCronJobStatus is a CronJob's status and resourceVersion.
type KubeCronJobStatus struct {
	LastScheduleTime int64 // Unix ns; 0: nil
	Active           []string
	ResourceVersion  int64
}

// KubeSnapshot is what a List returns: every CronJob's status, every Job
// and Pod, and each kubelet's count of status updates (the node lease's
// renewals, which the node lifecycle controller watches for change).
type KubeSnapshot struct {
	CronJobs []KubeCronJobStatus
	Jobs     []KubeJob
	Pods     []KubePod
	Beats    []int64 // per kubelet, in Config.Kube.KubeletNodes order
}

// KubeFinish marks a Job finished.
type KubeFinish struct {
	Name   string
	Reason string
}
