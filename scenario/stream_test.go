package scenario_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/scenario"
	"github.com/electsim/electsim/sim"
)

// duplicatedWith runs src once and counts the duplicated messages whose
// kind's name starts with prefix.
func duplicatedWith(t *testing.T, src, prefix string) (dup, sent uint64) {
	t.Helper()
	sc, err := scenario.Parse("stream.yaml", []byte(src))
	require.NoError(t, err)
	opts := scenario.RunOptions{Seed: 1}
	r, err := sc.Build(opts)
	require.NoError(t, err)
	r.Execute(opts)
	st := r.Sim.Stats()
	for k := range sim.MaxKinds {
		if strings.HasPrefix(sim.MsgKind(k).String(), prefix) {
			dup += st.Duplicated[k]
			sent += st.Sent[k]
		}
	}
	return dup, sent
}

const streamLease = `name: stream
seed: 1
duration: 30s
cluster: {nodes: 3}
network: {latency: 1ms..5ms, duplicate: 0.5}
algorithm: {name: lease, flavor: %s}
`

// TestK8sStoreStreams: client-go reaches the Lease by HTTP over TCP
// (registry.Algorithm.StoreStreams), so under a network that duplicates
// half the messages no lease request or answer of the k8s flavour is
// duplicated; the Redis flavour keeps the datagram model and is (the
// must-refute twin).
func TestK8sStoreStreams(t *testing.T) {
	dup, sent := duplicatedWith(t, strings.Replace(streamLease, "%s", "k8s", 1), "lease.")
	require.Positive(t, sent)
	assert.Zero(t, dup, "k8s: the Lease travels over TCP")
	dup, sent = duplicatedWith(t, strings.Replace(streamLease, "%s", "ttl", 1), "lease.")
	require.Positive(t, sent)
	assert.Positive(t, dup, "ttl: datagrams a duplicating link copies")
}

// TestKubeAPIServerStreams: every client of the Kubernetes mode's API
// server talks to it over TCP: none of its requests or answers is
// duplicated, where the cron layer's own datagrams to the fenced resource
// are.
func TestKubeAPIServerStreams(t *testing.T) {
	src := `name: stream
seed: 1
duration: 3m
start: 2026-11-21T01:59:00Z
cluster: {nodes: 2}
network: {latency: 1ms..5ms, duplicate: 0.5}
algorithm: {name: lease, flavor: k8s, identity: process}
cron:
  mode: kubernetes
  jobs: [{name: report, schedule: "* * * * *", duration: 20s}]
  policy: [idempotency]
  kubernetes: {kubelets: 2}
`
	dup, sent := duplicatedWith(t, src, "kube.")
	require.Positive(t, sent)
	assert.Zero(t, dup)
	dup, sent = duplicatedWith(t, src, "cron.Write")
	require.Positive(t, sent)
	assert.Positive(t, dup, "must-refute: the resource is reached by datagrams")
}
