package reality

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/electsim/electsim/faults"
	"github.com/electsim/electsim/scenario"
)

// FaultKind is what the harness does to a real process.
type FaultKind string

// The faults a trial applies.
const (
	// FaultPause: SIGSTOP the holder's client for For, then SIGCONT.
	FaultPause FaultKind = "pause"
	// FaultCrash: SIGKILL the holder's client; For later a new client
	// process takes its place (none without For).
	FaultCrash FaultKind = "crash"
	// FaultRestartStore: SIGKILL server Store and start it again at once on
	// the same port and folder, keeping what its persistence put on disk
	// (nothing with Wipe).
	FaultRestartStore FaultKind = "restart_store"
	// FaultCut: cut the holder's client off every server through its own
	// proxies (Proxy.Cut: no byte passes either way) for For, then
	// Restore — a partition with the clients' clocks left correct.
	FaultCut FaultKind = "cut"
)

// Fault is one fault of a story, aimed at the client holding the lock.
type Fault struct {
	Kind FaultKind
	// AtMin..AtMax is when it hits, drawn per trial, from the trial's start.
	AtMin, AtMax time.Duration
	// ForMin..ForMax is how long it lasts (0: until the trial ends).
	ForMin, ForMax time.Duration
	// Store is the server a FaultRestartStore restarts (0-based: 0 is the
	// scenario's store, 1 its store2, …); Wipe restarts it without its
	// files (restart's wipe_disk).
	Store int
	Wipe  bool
}

// Story is a scenario as the harness plays it with real processes.
type Story struct {
	// Scenario is the electsim scenario, run as is on the simulated side.
	Scenario *scenario.Scenario
	// Adapter names the real system (Adapters).
	Adapter string
	// Candidates is the number of client processes; Stores the number of
	// servers (1, or Redlock's masters).
	Candidates, Stores int
	// Client is the client's tuning, as the scenario's algorithm sets it.
	TTL, Renew, Retry time.Duration
	Jitter            float64
	// Persistence is the Redis servers' persistence (the lease model's
	// persistence: none, rdb, aof_everysec, aof_always); "" is rdb, the
	// model's default.
	Persistence string
	// Policy is LeaderLatch's connection-state error policy (standard,
	// session) and TickTime the ZooKeeper server's tickTime: zookeeper
	// stories only.
	Policy   string
	TickTime time.Duration
	// Faults, in the scenario's order.
	Faults []Fault
	// Length is how long a trial runs: the scenario's duration and settle.
	Length time.Duration
	// Unmeasured says, one line each, what the scenario has that the
	// trials do not measure (a cron layer: the clients write nowhere).
	Unmeasured []string
}

// leaseParams are the lease parameters a real client follows (the rest
// are refused: the real client could not be told them); persistence
// configures the servers (redisPersistence); token only matters to writes,
// which no trial has.
var leaseParams = map[string]bool{"flavor": true, "ttl": true, "renew_interval": true, "retry_period": true,
	"jitter_factor": true, "masters": true, "validity_check": true, "token": true, "persistence": true,
	"clock_drift_factor": true, "clock_drift_margin": true}

// FromScenario reads what the harness needs from a scenario, or refuses
// it with a one-line reason: an algorithm with no real adapter, a
// parameter the real client cannot be given, a fault the harness cannot
// apply to real processes.
func FromScenario(sc *scenario.Scenario) (*Story, error) {
	st := &Story{Scenario: sc, Candidates: sc.Nodes, Stores: 1, TTL: 10 * time.Second, Retry: 2 * time.Second, Jitter: 1.2,
		Length: sc.Duration + sc.Settle.For}
	switch sc.Algorithm.Name {
	case "lease":
	case "etcd":
		if err := st.etcd(sc); err != nil {
			return nil, err
		}
		return st.faults(sc)
	case "zookeeper":
		if err := st.zookeeper(sc); err != nil {
			return nil, err
		}
		return st.faults(sc)
	default:
		return nil, fmt.Errorf("algorithm %q has no real adapter yet (lease ttl: Redis, lease redlock: five Redis masters, etcd: etcd, zookeeper: ZooKeeper and Curator 5.4)", sc.Algorithm.Name)
	}
	flavor := "k8s"
	for _, kv := range sc.Algorithm.Params() {
		k, v, _ := strings.Cut(kv, "=")
		if !leaseParams[k] {
			return nil, fmt.Errorf("algorithm parameter %s: the real client is not told it", k)
		}
		var err error
		switch k {
		case "flavor":
			flavor = v
		case "ttl":
			st.TTL, err = time.ParseDuration(v)
		case "renew_interval":
			st.Renew, err = time.ParseDuration(v)
		case "retry_period":
			st.Retry, err = time.ParseDuration(v)
		case "jitter_factor":
			st.Jitter, err = strconv.ParseFloat(v, 64)
		case "masters":
			st.Stores, err = strconv.Atoi(v)
		case "persistence":
			st.Persistence = v
		case "validity_check":
			if v != "never" {
				return nil, fmt.Errorf("validity_check %s: the real client follows go-redsync's README (never)", v)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("algorithm parameter %s: %v", kv, err)
		}
	}
	switch flavor {
	case "ttl":
		st.Adapter, st.Stores = "redis", 1
	case "redlock":
		st.Adapter = "redlock"
		if st.Stores == 1 && !hasParam(sc, "masters") {
			st.Stores = 5
		}
	default:
		return nil, fmt.Errorf("lease flavor %q has no real adapter yet (ttl, redlock)", flavor)
	}
	if st.Renew == 0 {
		st.Renew = st.TTL / 3
	}
	return st.faults(sc)
}

// etcd reads the etcd election's parameters: the session TTL (default 60 s,
// NewSession's); the rest are the model's server and timeouts, left at the
// real ones' defaults.
func (st *Story) etcd(sc *scenario.Scenario) error {
	st.Adapter, st.Stores, st.TTL = "etcd", 1, 60*time.Second
	for _, kv := range sc.Algorithm.Params() {
		k, v, _ := strings.Cut(kv, "=")
		if k != "ttl" {
			return fmt.Errorf("algorithm parameter %s: the real client and server are not told it", k)
		}
		d, err := time.ParseDuration(v)
		if err != nil || d%time.Second != 0 {
			return fmt.Errorf("algorithm parameter %s: a whole number of seconds", kv)
		}
		st.TTL = d
	}
	st.Renew = st.TTL / 3
	return nil
}

// realCurator is the Curator release the real client runs (Debian's
// libcurator-recipes-java): a zookeeper story must ask the model for it.
const realCurator = "5.4"

// zookeeper reads the ZooKeeper election's parameters, with the model's
// defaults (docs/algorithms/zookeeper.md): the session timeout (60 s), the
// policy (standard), the server's tickTime (2 s); curator_version must
// name the release the real client runs, and connect_servers must be 1:
// the client's connect string names the one standalone server.
func (st *Story) zookeeper(sc *scenario.Scenario) error {
	st.Adapter, st.Stores, st.TTL, st.Policy, st.TickTime = "zookeeper", 1, 60*time.Second, "standard", 2*time.Second
	curator, servers := "", ""
	for _, kv := range sc.Algorithm.Params() {
		k, v, _ := strings.Cut(kv, "=")
		var err error
		switch k {
		case "session_timeout":
			st.TTL, err = time.ParseDuration(v)
		case "tick_time":
			st.TickTime, err = time.ParseDuration(v)
		case "policy":
			st.Policy = v
		case "curator_version":
			curator = v
		case "connect_servers":
			servers = v
		default:
			return fmt.Errorf("algorithm parameter %s: the real client and server are not told it", k)
		}
		if err != nil {
			return fmt.Errorf("algorithm parameter %s: %v", kv, err)
		}
	}
	if curator != realCurator {
		return fmt.Errorf("curator_version %q: the real client is Debian's Curator %s; set curator_version: %s so the model follows the same release", curator, realCurator, realCurator)
	}
	if servers != "1" {
		return fmt.Errorf("connect_servers %q: the real client's connect string names the one standalone server; set connect_servers: 1 so the model's client spins before every reconnection as the real one does", servers)
	}
	if st.TTL%time.Millisecond != 0 || st.TickTime%time.Millisecond != 0 {
		return fmt.Errorf("session_timeout and tick_time: whole milliseconds (what the real client and zoo.cfg take)")
	}
	st.Renew = st.TTL / 3
	return nil
}

// faults reads the scenario's faults, or refuses those the harness cannot
// apply to real processes.
func (st *Story) faults(sc *scenario.Scenario) (*Story, error) {
	if len(sc.Clocks) > 0 {
		return nil, fmt.Errorf("clocks: the harness cannot set a real process's clock (libfaketime conflicts with Debian's jemalloc Redis)")
	}
	if len(sc.Nemeses) > 0 {
		return nil, fmt.Errorf("nemeses: the harness plays the faults list only")
	}
	for i, f := range sc.Faults {
		if f.Restart != nil {
			rs, err := st.storeRestarts(sc, f)
			if err != nil {
				return nil, fmt.Errorf("faults[%d]: %v", i, err)
			}
			st.Faults = append(st.Faults, rs...)
			continue
		}
		rf, err := realFault(f)
		if err != nil {
			return nil, fmt.Errorf("faults[%d]: %v", i, err)
		}
		st.Faults = append(st.Faults, rf)
	}
	if sc.Cron != nil {
		st.Unmeasured = append(st.Unmeasured, "cron: the real clients write nowhere, so double_execution and stale_write are measured in simulation only")
	}
	return st, nil
}

// cutTarget reads the one partition the harness plays, the holder cut off
// the servers: shape groups, [[leader], [store, …]] (followers or
// candidates beside the store change nothing: clients never talk to each
// other). The cut is both ways, through the holder's own proxies.
func cutTarget(p *faults.Partition) (faults.Target, error) {
	const want = "a partition is played only as groups [[leader], [store]]: the holder cut off the servers"
	if p.Shape != faults.ShapeGroups || len(p.Groups) != 2 || len(p.Groups[0]) != 1 {
		return faults.Target{}, fmt.Errorf("%s", want)
	}
	holder := p.Groups[0][0]
	if holder.Kind != faults.TargetLeader && holder.Kind != faults.TargetLeaseHolder {
		return faults.Target{}, fmt.Errorf("%s", want)
	}
	store := false
	for _, t := range p.Groups[1] {
		switch t.Kind {
		case faults.TargetStore:
			store = true
		case faults.TargetFollowers, faults.TargetCandidate:
		default:
			return faults.Target{}, fmt.Errorf("%s", want)
		}
	}
	if !store {
		return faults.Target{}, fmt.Errorf("%s", want)
	}
	return holder, nil
}

// HasCut reports whether a fault cuts a client off: the trial then routes
// every client through proxies of its own.
func (st *Story) HasCut() bool {
	for _, f := range st.Faults {
		if f.Kind == FaultCut {
			return true
		}
	}
	return false
}

func hasParam(sc *scenario.Scenario, key string) bool {
	for _, kv := range sc.Algorithm.Params() {
		if strings.HasPrefix(kv, key+"=") {
			return true
		}
	}
	return false
}

// storeRestarts reads a restart of lease stores (restart: store3, or a
// list): one FaultRestartStore per server. A restart of a client is
// refused (crash with for: says the same), and so is one in a story with a
// cron block, whose resource node shifts the stores' IDs.
func (st *Story) storeRestarts(sc *scenario.Scenario, f faults.Fault) ([]Fault, error) {
	if f.After != nil {
		return nil, fmt.Errorf("a fault on a protocol event (after: %s) needs the engine's trace; give it a time (at:)", f.After.Event+f.After.State)
	}
	if st.Adapter != "redis" && st.Adapter != "redlock" {
		return nil, fmt.Errorf("restart of a server: only Redis servers are restarted yet")
	}
	if sc.Cron != nil {
		return nil, fmt.Errorf("restart of a server in a story with a cron block: not played")
	}
	rf := Fault{Kind: FaultRestartStore, AtMin: f.At.Min, AtMax: f.At.Max, Wipe: f.Restart.WipeDisk}
	t := f.Restart.Target
	var stores []int
	switch t.Kind {
	case faults.TargetStore:
		stores = []int{0}
	case faults.TargetNode:
		for _, id := range t.Nodes {
			k := int(id) - sc.Nodes
			if k < 0 || k >= st.Stores {
				return nil, fmt.Errorf("restart of %v: only servers (store, store2, …) are restarted; a client's crash is crash: with for:", id)
			}
			stores = append(stores, k)
		}
	default:
		return nil, fmt.Errorf("restart target %s: name the servers (store, store2, …)", t.Kind)
	}
	out := make([]Fault, 0, len(stores))
	for _, k := range stores {
		x := rf
		x.Store = k
		out = append(out, x)
	}
	return out, nil
}

// realFault is f as the harness applies it, or why it cannot.
func realFault(f faults.Fault) (Fault, error) {
	if f.After != nil {
		return Fault{}, fmt.Errorf("a fault on a protocol event (after: %s) needs the engine's trace; give it a time (at:)", f.After.Event+f.After.State)
	}
	rf := Fault{AtMin: f.At.Min, AtMax: f.At.Max}
	if f.For != nil {
		rf.ForMin, rf.ForMax = f.For.Min, f.For.Max
	}
	var target faults.Target
	switch {
	case f.Pause != nil:
		rf.Kind, target = FaultPause, f.Pause.Target
		if f.For == nil {
			return Fault{}, fmt.Errorf("a pause without for: would last past the trial")
		}
	case f.Crash != nil:
		rf.Kind, target = FaultCrash, f.Crash.Target
	case f.Partition != nil:
		t, err := cutTarget(f.Partition)
		if err != nil {
			return Fault{}, err
		}
		if f.For == nil {
			return Fault{}, fmt.Errorf("a cut without for: would last past the trial")
		}
		rf.Kind, target = FaultCut, t
	default:
		return Fault{}, fmt.Errorf("only a pause, a crash or a cut off the servers of the holder are applied to real processes")
	}
	if target.Kind != faults.TargetLeader && target.Kind != faults.TargetLeaseHolder {
		return Fault{}, fmt.Errorf("target %s: the harness aims at the client holding the lock (leader, lease_holder)", target.Kind)
	}
	return rf, nil
}
