package scenario

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/electsim/electsim/cron"
	"github.com/electsim/electsim/sim"
)

// readKube reads cron.kubernetes, the Kubernetes CronJob deployment
// (cron.mode: kubernetes): kubelets, the CronJob's startingDeadlineSeconds,
// concurrencyPolicy and history limits, the Job's backoffLimit and
// activeDeadlineSeconds, and the node lifecycle timings.
func (l *loader) readKube(m *mapReader, cs *CronSpec) {
	kn := l.modeSection(m, cs, "kubernetes", "{kubelets: 2}")
	if kn == nil {
		return
	}
	k := &cs.Config.Kube
	*k = cron.DefaultKube(0)
	km := l.mapOf(kn, "cron.kubernetes")
	if !km.integer("kubelets", &k.Kubelets, 1, cron.MaxKubelets) && !km.has("kubelets") && km.ok {
		l.errAt(kn, "cron.kubernetes.kubelets", "missing: how many kubelet nodes run Pods (kubelet1..kubeletN)")
	}
	var secs int
	if km.integer("starting_deadline_seconds", &secs, 0, 1<<30) {
		k.StartingDeadline = time.Duration(secs) * time.Second
	}
	if km.integer("active_deadline_seconds", &secs, 0, 1<<30) {
		k.ActiveDeadline = time.Duration(secs) * time.Second
	}
	if km.integer("termination_grace_period_seconds", &secs, 0, 1<<30) {
		k.TerminationGrace = time.Duration(secs) * time.Second
	}
	if km.integer("toleration_seconds", &secs, 1, 1<<30) {
		k.TolerationSeconds = time.Duration(secs) * time.Second
	}
	km.oneOf("concurrency_policy", &k.Concurrency, cron.KubeAllow, cron.KubeForbid, cron.KubeReplace)
	km.oneOf("pod_replacement_policy", &k.PodReplacementPolicy, cron.KubeReplaceTerminating, cron.KubeReplaceFailed)
	km.integer("backoff_limit", &k.BackoffLimit, 0, cron.MaxKubePodsPerJob-2)
	km.integer("successful_jobs_history_limit", &k.SuccessfulHistory, 0, cron.MaxKubeJobsPerCronJob/4)
	km.integer("failed_jobs_history_limit", &k.FailedHistory, 0, cron.MaxKubeJobsPerCronJob/4)
	km.dur("sync_every", &k.SyncEvery)
	km.dur("node_status_every", &k.NodeStatusEvery)
	km.dur("node_monitor_grace", &k.NodeMonitorGrace)
	km.dur("start_deadline", &k.StartDeadline)
	if p := km.probability("pod_fail_rate"); p != nil {
		k.PodFailRate = *p
	}
	var code int
	if km.integer("pod_exit_code", &code, 1, 255) {
		k.PodExitCode = int32(code)
	}
	l.readPodFailurePolicy(km, k)
	if n := km.get("success_policy"); n != nil {
		// validateJobSpec (pkg/apis/batch/validation/validation.go) refuses
		// a successPolicy on a NonIndexed Job, and a CronJob's Jobs here
		// are NonIndexed (the completionMode default) with completions 1.
		l.errAt(n, "cron.kubernetes.success_policy", "requires indexed completion mode, as the API server answers (validateJobSpec); the model's Jobs are NonIndexed with completions 1, where every rule the API server would accept on an Indexed Job is met exactly when the Job's one completion is")
	}
	for _, key := range []string{"sync_every", "node_status_every", "node_monitor_grace", "start_deadline"} {
		var d time.Duration
		if km.has(key) && km.dur(key, &d) && d < time.Millisecond {
			l.errAt(km.get(key), join("cron.kubernetes", key), "must be at least 1ms, got %s", fmtDur(d))
		}
	}
	km.finish()
}

// readPodFailurePolicy reads cron.kubernetes.pod_failure_policy, the Job's
// spec.podFailurePolicy: {rules: [{action, on_exit_codes: {operator,
// values}} or {action, on_pod_conditions: [{type, status}]}]}, checked as
// the API server checks it (cron.KubePodFailurePolicy.Validate), with
// pod_replacement_policy, which it allows only as Failed.
func (l *loader) readPodFailurePolicy(km *mapReader, k *cron.KubeConfig) {
	n := km.get("pod_failure_policy")
	if n == nil || n.kind == yNull { // null: unset, as the API reads it
		return
	}
	path := "cron.kubernetes.pod_failure_policy"
	pm := l.mapOf(n, path)
	pol := &cron.KubePodFailurePolicy{Rules: []cron.KubePodFailureRule{}}
	for i, it := range pm.list("rules") {
		rp := index(join(path, "rules"), i)
		rm := l.mapOf(it, rp)
		var r cron.KubePodFailureRule
		rm.str("action", &r.Action)
		if en := rm.get("on_exit_codes"); en != nil {
			em := l.mapOf(en, join(rp, "on_exit_codes"))
			r.ExitCodes = &cron.KubeExitCodes{}
			em.str("operator", &r.ExitCodes.Operator)
			if vn := em.get("values"); vn != nil {
				vs, _ := l.intList(vn, join(rp, "on_exit_codes.values"))
				for _, v := range vs {
					r.ExitCodes.Values = append(r.ExitCodes.Values, int32(max(min(v, 1<<30), -1<<30)))
				}
			}
			em.finish()
		}
		for j, cn := range rm.list("on_pod_conditions") {
			cm := l.mapOf(cn, index(join(rp, "on_pod_conditions"), j))
			var c cron.KubePodCondition
			cm.str("type", &c.Type)
			cm.str("status", &c.Status)
			cm.finish()
			r.Conditions = append(r.Conditions, c)
		}
		rm.finish()
		pol.Rules = append(pol.Rules, r)
	}
	pm.finish()
	if err := pol.Validate(); err != nil {
		l.errAt(n, path, "%s", strings.TrimPrefix(err.Error(), "kubernetes pod_failure_policy "))
		return
	}
	if k.PodReplacementPolicy != "" && k.PodReplacementPolicy != cron.KubeReplaceFailed {
		l.errAt(km.get("pod_replacement_policy"), "cron.kubernetes.pod_replacement_policy", "only %s is supported when pod_failure_policy is specified (validatePodReplacementPolicy)", cron.KubeReplaceFailed)
		return
	}
	k.PodFailurePolicy = pol
}

// kubeMode reports whether the scenario runs cron in Kubernetes mode.
func (sc *Scenario) kubeMode() bool { return sc.Cron != nil && sc.Cron.Mode == "kubernetes" }

// kubeBase is the API server's node ID: after the candidates, the lease
// stores and the resource (queue mode's first ID; the modes exclude each
// other). The kubelets have the IDs after it.
func (sc *Scenario) kubeBase() sim.NodeID { return sc.queueBase() }

// kubeletName names kubelet k (1-based).
func kubeletName(k int) string { return fmt.Sprintf("kubelet%d", k) }

// kubeServiceID resolves "apiserver" and "kubelet1".."kubeletN" (svc false
// for other names; sim.None when the scenario has no Kubernetes mode or no
// such kubelet).
func (sc *Scenario) kubeServiceID(name string) (sim.NodeID, bool) {
	switch {
	case name == "apiserver":
		if !sc.kubeMode() {
			return sim.None, true
		}
		return sc.kubeBase(), true
	case strings.HasPrefix(name, "kubelet"):
		k, err := strconv.Atoi(strings.TrimPrefix(name, "kubelet"))
		if err != nil || k < 1 {
			return sim.None, false
		}
		if !sc.kubeMode() || k > sc.Cron.Config.Kube.Kubelets {
			return sim.None, true
		}
		return sc.kubeBase() + sim.NodeID(k), true
	}
	return sim.None, false
}

// kubeNodeName names Kubernetes mode's node id, false for other IDs.
func (sc *Scenario) kubeNodeName(id sim.NodeID) (string, bool) {
	if !sc.kubeMode() {
		return "", false
	}
	return blockName(id, sc.kubeBase(), "apiserver", sc.Cron.Config.Kube.Kubelets, kubeletName)
}

// kubeNodeIDs sets the node IDs of cfg's Kubernetes mode from base, the
// API server's (kubeBase for the file's own algorithm).
func (sc *Scenario) kubeNodeIDs(cfg *cron.Config, base sim.NodeID) {
	cfg.Kube.APIServer = base
	cfg.Kube.KubeletNodes = nil
	for k := 1; k <= cfg.Kube.Kubelets; k++ {
		cfg.Kube.KubeletNodes = append(cfg.Kube.KubeletNodes, base+sim.NodeID(k))
	}
}

// addKubeNodes adds the API server and the kubelets (built afresh on
// every boot), at the IDs kubeNodeIDs gave them.
func (r *Run) addKubeNodes() error {
	s, cfg := r.Sim, r.CronConfig
	var id sim.NodeID
	if id, r.APIServer = cron.AddAPIServer(s, "apiserver", cfg); id != cfg.Kube.APIServer {
		return fmt.Errorf("internal: the API server got node ID %d, want %d", id, cfg.Kube.APIServer)
	}
	return r.addWorkers(kubeletName, func() sim.Node { return cron.NewKubelet(cfg) }, cfg.Kube.KubeletNodes)
}

// kubeYAML writes the fields of a kubernetes section.
func kubeYAML(k cron.KubeConfig) string {
	parts := []string{fmt.Sprintf("kubelets: %d", k.Kubelets)}
	secs := func(key string, d time.Duration) {
		if d != 0 {
			parts = append(parts, fmt.Sprintf("%s: %d", key, int64(d/time.Second)))
		}
	}
	add := func(key string, d time.Duration) {
		if d != 0 {
			parts = append(parts, key+": "+dur(d))
		}
	}
	secs("starting_deadline_seconds", k.StartingDeadline)
	secs("active_deadline_seconds", k.ActiveDeadline)
	secs("toleration_seconds", k.TolerationSeconds)
	parts = append(parts, fmt.Sprintf("termination_grace_period_seconds: %d", int64(k.TerminationGrace/time.Second)))
	if k.Concurrency != "" {
		parts = append(parts, "concurrency_policy: "+k.Concurrency)
	}
	if k.PodReplacementPolicy != "" {
		parts = append(parts, "pod_replacement_policy: "+k.PodReplacementPolicy)
	}
	parts = append(parts, fmt.Sprintf("backoff_limit: %d", k.BackoffLimit),
		fmt.Sprintf("successful_jobs_history_limit: %d", k.SuccessfulHistory),
		fmt.Sprintf("failed_jobs_history_limit: %d", k.FailedHistory))
	add("sync_every", k.SyncEvery)
	add("node_status_every", k.NodeStatusEvery)
	add("node_monitor_grace", k.NodeMonitorGrace)
	add("start_deadline", k.StartDeadline)
	if k.PodFailRate != 0 {
		parts = append(parts, "pod_fail_rate: "+strconv.FormatFloat(k.PodFailRate, 'g', -1, 64))
	}
	if k.PodExitCode != 0 {
		parts = append(parts, fmt.Sprintf("pod_exit_code: %d", k.PodExitCode))
	}
	if p := k.PodFailurePolicy; p != nil {
		var rules []string
		for _, r := range p.Rules {
			on := ""
			if e := r.ExitCodes; e != nil {
				vs := make([]string, len(e.Values))
				for i, v := range e.Values {
					vs[i] = strconv.Itoa(int(v))
				}
				on = fmt.Sprintf("on_exit_codes: {operator: %s, values: [%s]}", e.Operator, strings.Join(vs, ", "))
			} else {
				cs := make([]string, len(r.Conditions))
				for i, c := range r.Conditions {
					cs[i] = fmt.Sprintf("{type: %s, status: %s}", c.Type, c.Status)
				}
				on = "on_pod_conditions: [" + strings.Join(cs, ", ") + "]"
			}
			rules = append(rules, fmt.Sprintf("{action: %s, %s}", r.Action, on))
		}
		parts = append(parts, "pod_failure_policy: {rules: ["+strings.Join(rules, ", ")+"]}")
	}
	return strings.Join(parts, ", ")
}
