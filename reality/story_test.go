package reality

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/scenario"
)

func parse(t *testing.T, src string) *scenario.Scenario {
	t.Helper()
	sc, err := scenario.Parse("story.yaml", []byte(src))
	require.NoError(t, err)
	return sc
}

const storyHead = "name: s\nseed: 1\nduration: 16s\nstart: 2026-11-21T01:59:00Z\ncluster: {nodes: 3}\nsettle: {for: 4s, leader_within: 4s}\n"

func TestFromScenarioReadsTheShippedStories(t *testing.T) {
	for _, f := range []string{"stories/redis-gc-pause.yaml", "stories/redis-leader-crash.yaml"} {
		sc, err := scenario.Load(f)
		require.NoError(t, err, f)
		st, err := FromScenario(sc)
		require.NoError(t, err, f)
		require.Equal(t, "redis", st.Adapter)
		require.Equal(t, 3, st.Candidates)
		require.Equal(t, 1, st.Stores)
		require.Equal(t, 3*time.Second, st.TTL)
		require.Equal(t, time.Second, st.Renew, "TTL/3, the model's default RenewInterval")
		require.Equal(t, time.Second, st.Retry)
		require.Equal(t, 1.2, st.Jitter)
		require.Equal(t, 20*time.Second, st.Length)
		require.Len(t, st.Faults, 1)
		require.Equal(t, 4*time.Second, st.Faults[0].AtMin)
		require.Equal(t, 5*time.Second, st.Faults[0].AtMax)
	}
}

func TestFromScenarioRedlockHasFiveMasters(t *testing.T) {
	st, err := FromScenario(parse(t, storyHead+"algorithm: {name: lease, flavor: redlock, ttl: 8s}\nfaults: [{at: 5s, crash: leader}]\n"))
	require.NoError(t, err)
	require.Equal(t, "redlock", st.Adapter)
	require.Equal(t, 5, st.Stores)
	require.Equal(t, FaultCrash, st.Faults[0].Kind)
	require.Zero(t, st.Faults[0].ForMax, "a crash without for: never restarted")
}

func TestFromScenarioRefusesWhatItCannotPlay(t *testing.T) {
	for name, tail := range map[string]string{
		"no adapter":     "algorithm: {name: raft}\n",
		"k8s lease":      "algorithm: {name: lease, flavor: k8s}\n",
		"parameter":      "algorithm: {name: lease, flavor: ttl, request_timeout: 1s}\n",
		"validity check": "algorithm: {name: lease, flavor: ttl, validity_check: before_each_action}\n",
		"event trigger":  "algorithm: {name: lease, flavor: ttl}\nfaults: [{after: {event: elected, node: leader}, pause: leader, for: 5s}]\n",
		"partition":      "algorithm: {name: lease, flavor: ttl}\nfaults: [{at: 5s, partition: {shape: groups, groups: [[leader], [followers]]}, for: 5s}]\n",
		"isolate":        "algorithm: {name: lease, flavor: ttl}\nfaults: [{at: 5s, partition: {shape: isolate, target: leader}, for: 5s}]\n",
		"endless cut":    "algorithm: {name: lease, flavor: ttl}\nfaults: [{at: 5s, partition: {shape: groups, groups: [[leader], [store]]}}]\n",
		"cut a follower": "algorithm: {name: lease, flavor: ttl}\nfaults: [{at: 5s, partition: {shape: groups, groups: [[candidate], [store]]}, for: 5s}]\n",
		"clock":          "algorithm: {name: lease, flavor: ttl}\nfaults: [{at: 1s, clock: {target: followers, rate: 2.0}}]\n",
		"target":         "algorithm: {name: lease, flavor: ttl}\nfaults: [{at: 5s, pause: candidate, for: 5s}]\n",
	} {
		sc, err := scenario.Parse("story.yaml", []byte(storyHead+tail))
		require.NoError(t, err, "%s: a valid scenario the harness must refuse itself", name)
		_, err = FromScenario(sc)
		require.Error(t, err, name)
	}
}

func TestPrepareNamesTheMissingPackage(t *testing.T) {
	t.Setenv("PATH", t.TempDir()) // no redis-server here
	_, _, err := Prepare(Options{Scenario: "stories/redis-gc-pause.yaml"})
	var missing *MissingError
	require.True(t, errors.As(err, &missing), "%v", err)
	require.Equal(t, "redis-server", missing.Package)
	require.Contains(t, err.Error(), "apt-get install -y redis-server")
}

func TestFromScenarioEtcd(t *testing.T) {
	for _, f := range []string{"stories/etcd-gc-pause.yaml", "stories/etcd-leader-crash.yaml"} {
		sc, err := scenario.Load(f)
		require.NoError(t, err, f)
		st, err := FromScenario(sc)
		require.NoError(t, err, f)
		require.Equal(t, "etcd", st.Adapter)
		require.Equal(t, 1, st.Stores)
		require.Equal(t, 3*time.Second, st.TTL)
		require.Len(t, st.Faults, 1)
	}
	st, err := FromScenario(parse(t, storyHead+"algorithm: {name: etcd}\n"))
	require.NoError(t, err)
	require.Equal(t, 60*time.Second, st.TTL, "NewSession's default")
	for name, tail := range map[string]string{
		"request timeout": "algorithm: {name: etcd, ttl: 3s, request_timeout: 1s}\n",
		"revoke delay":    "algorithm: {name: etcd, ttl: 3s, revoke_delay: 50ms}\n",
	} {
		_, err := FromScenario(parse(t, storyHead+tail))
		require.Error(t, err, name)
	}
}

// A check cancelled before or between trials (SIGINT) returns an error,
// never a result with trials missing; no server is needed to see it: the
// cancelled trial starts nothing.
func TestRunTrialsCancelledReturnsAnError(t *testing.T) {
	sc, err := scenario.Load("stories/redis-gc-pause.yaml")
	require.NoError(t, err)
	st, err := FromScenario(sc)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res := &Result{Trials: make([]*TrialResult, 3)}
	err = runTrials(ctx, Options{Trials: 3, Workers: 1}, st, "/nonexistent/client", t.TempDir(), res)
	require.Error(t, err)
}

func TestFromScenarioZooKeeper(t *testing.T) {
	for _, f := range []string{"stories/zk-gc-pause.yaml", "stories/zk-leader-crash.yaml"} {
		sc, err := scenario.Load(f)
		require.NoError(t, err, f)
		st, err := FromScenario(sc)
		require.NoError(t, err, f)
		require.Equal(t, "zookeeper", st.Adapter)
		require.Equal(t, 1, st.Stores)
		require.Equal(t, 4*time.Second, st.TTL, "the session timeout")
		require.Equal(t, time.Second, st.TickTime)
		require.Equal(t, "standard", st.Policy)
		require.Len(t, st.Faults, 1)
		args := Adapters[st.Adapter].ClientArgs(st, []string{"127.0.0.1:2181"})
		require.Equal(t, []string{"-connect", "127.0.0.1:2181", "-session-timeout-ms", "4000", "-policy", "standard"}, args)
	}
	st, err := FromScenario(parse(t, storyHead+"algorithm: {name: zookeeper, curator_version: \"5.4\", connect_servers: 1, policy: session}\n"))
	require.NoError(t, err)
	require.Equal(t, 60*time.Second, st.TTL, "the model's default session timeout")
	require.Equal(t, 2*time.Second, st.TickTime, "zoo_sample.cfg's tickTime")
	require.Equal(t, "session", st.Policy)
}

// The real client is Debian's Curator 5.4: a story whose model follows
// another release (the model's default is 5.9) would compare two
// different LeaderLatch behaviours on RECONNECTED, so it is refused.
func TestFromScenarioZooKeeperRefusesAnotherCurator(t *testing.T) {
	for name, tail := range map[string]string{
		"default release": "algorithm: {name: zookeeper, session_timeout: 4s}\n",
		"5.9":             "algorithm: {name: zookeeper, session_timeout: 4s, curator_version: \"5.9\"}\n",
		"request timeout": "algorithm: {name: zookeeper, curator_version: \"5.4\", request_timeout: 1s}\n",
		"token":           "algorithm: {name: zookeeper, curator_version: \"5.4\", token: czxid}\n",
	} {
		_, err := FromScenario(parse(t, storyHead+tail))
		require.Error(t, err, name)
	}
	_, err := FromScenario(parse(t, storyHead+"algorithm: {name: zookeeper, curator_version: \"5.3\"}\n"))
	require.ErrorContains(t, err, "Curator 5.4")
}

// The real client's connect string names one standalone server, so it
// spins 1 s before every reconnection (ZooKeeper's
// StaticHostProvider.next); a model left at its default of three servers
// would reconnect sooner, so the story must say connect_servers: 1.
func TestFromScenarioZooKeeperNeedsOneServer(t *testing.T) {
	for name, tail := range map[string]string{
		"default": "algorithm: {name: zookeeper, curator_version: \"5.4\"}\n",
		"three":   "algorithm: {name: zookeeper, curator_version: \"5.4\", connect_servers: 3}\n",
	} {
		_, err := FromScenario(parse(t, storyHead+tail))
		require.ErrorContains(t, err, "connect_servers", name)
	}
	_, err := FromScenario(parse(t, storyHead+"algorithm: {name: zookeeper, curator_version: \"5.4\", connect_servers: 1}\n"))
	require.NoError(t, err)
}

func TestPrepareNamesTheMissingJava(t *testing.T) {
	t.Setenv("PATH", t.TempDir()) // no java here
	_, _, err := Prepare(Options{Scenario: "stories/zk-leader-crash.yaml"})
	var missing *MissingError
	require.True(t, errors.As(err, &missing), "%v", err)
	require.Equal(t, "zookeeper", missing.Package)
}

func TestFromScenarioRedlockRestart(t *testing.T) {
	for mode, file := range map[string]string{"none": "none", "rdb": "rdb", "aof_everysec": "aof-everysec", "aof_always": "aof-always"} {
		sc, err := scenario.Load("stories/redlock-restart-" + file + ".yaml")
		require.NoError(t, err, mode)
		st, err := FromScenario(sc)
		require.NoError(t, err, mode)
		require.Equal(t, "redlock", st.Adapter)
		require.Equal(t, 5, st.Stores)
		require.Equal(t, mode, st.Persistence)
		require.Len(t, st.Faults, 3, "one restart per master named")
		for i, f := range st.Faults {
			require.Equal(t, FaultRestartStore, f.Kind)
			require.Equal(t, i, f.Store, "store, store2, store3 are servers 0, 1, 2")
			require.False(t, f.Wipe)
		}
	}
	st, err := FromScenario(parse(t, storyHead+"algorithm: {name: lease, flavor: redlock, ttl: 3s}\nfaults: [{at: 5s, restart: store4, wipe_disk: true}]\n"))
	require.NoError(t, err)
	require.Equal(t, 3, st.Faults[0].Store)
	require.True(t, st.Faults[0].Wipe)
	for name, tail := range map[string]string{
		"a client":    "algorithm: {name: lease, flavor: redlock, ttl: 3s}\nfaults: [{at: 5s, restart: n1}]\n",
		"the leader":  "algorithm: {name: lease, flavor: redlock, ttl: 3s}\nfaults: [{at: 5s, restart: leader}]\n",
		"etcd server": "algorithm: {name: etcd, ttl: 3s}\nfaults: [{at: 5s, restart: store}]\n",
	} {
		_, err := FromScenario(parse(t, storyHead+tail))
		require.Error(t, err, name)
	}
}

// Each persistence mode is the redis.conf lines the lease model names
// (docs/algorithms/lease.md, "Redis persistence").
func TestRedisPersistenceFlags(t *testing.T) {
	for mode, want := range map[string][]string{
		"none":         {"--save", "", "--appendonly", "no"},
		"":             {"--save", "3600 1 300 100 60 10000", "--appendonly", "no"},
		"rdb":          {"--save", "3600 1 300 100 60 10000", "--appendonly", "no"},
		"aof_everysec": {"--save", "3600 1 300 100 60 10000", "--appendonly", "yes", "--appendfsync", "everysec"},
		"aof_always":   {"--save", "3600 1 300 100 60 10000", "--appendonly", "yes", "--appendfsync", "always"},
	} {
		got, err := redisPersistence(mode)
		require.NoError(t, err, mode)
		require.Equal(t, want, got, mode)
	}
	_, err := redisPersistence("aof_sometimes")
	require.Error(t, err)
}

func TestFromScenarioEtcdCut(t *testing.T) {
	sc, err := scenario.Load("stories/etcd-cut-off.yaml")
	require.NoError(t, err)
	st, err := FromScenario(sc)
	require.NoError(t, err)
	require.True(t, st.HasCut())
	require.Equal(t, FaultCut, st.Faults[0].Kind)
	require.Positive(t, st.Faults[0].ForMin)
	// The twin: a pause story routes no client through proxies.
	sc, err = scenario.Load("stories/etcd-gc-pause.yaml")
	require.NoError(t, err)
	st, err = FromScenario(sc)
	require.NoError(t, err)
	require.False(t, st.HasCut())
}

func TestSplitScheme(t *testing.T) {
	s, hp := splitScheme("http://127.0.0.1:2379")
	require.Equal(t, "http://", s)
	require.Equal(t, "127.0.0.1:2379", hp)
	s, hp = splitScheme("127.0.0.1:6379")
	require.Empty(t, s)
	require.Equal(t, "127.0.0.1:6379", hp)
}

func TestFromScenarioZooKeeperCut(t *testing.T) {
	sc, err := scenario.Load("stories/zk-cut-off.yaml")
	require.NoError(t, err)
	st, err := FromScenario(sc)
	require.NoError(t, err)
	require.Equal(t, "session", st.Policy)
	require.True(t, st.HasCut())
	args := Adapters[st.Adapter].ClientArgs(st, []string{"127.0.0.1:9"})
	require.Contains(t, args, "session")
}
