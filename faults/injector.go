package faults

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/electsim/electsim/sim"
)

// Trace note names. Every note is a note record (sim.RecNote, which the trace
// hash ignores) whose Node is
// the first node the fault acted on (sim.None if none) and whose Detail
// starts with the fault's source ("faults[2]: …", "nemesis[0]: …").
const (
	// NotePrefix + kind ("fault.pause", …) records an injection; Detail says
	// what it resolved to, e.g. "faults[0]: pause n3 (leader, epoch 4) for 8.000s".
	NotePrefix = "fault."
	// NoteRevert records a revert, e.g. "faults[0]: resume n3".
	NoteRevert = "fault.revert"
	// NoteSkip records a fault that did not fire, e.g. "faults[0]: pause skipped: no leader".
	NoteSkip = "fault.skip"
	// NoteTrigger records a trigger matching its event.
	NoteTrigger = "fault.trigger"
	// NoteSwarm records the kinds and weights a swarm nemesis drew.
	NoteSwarm = "fault.swarm"
	// NoteSettle records the start of the settle phase.
	NoteSettle = "fault.settle"
)

// Environment tells the injector what the cluster's nodes are, for target
// resolution. Use sim.None for an absent service (the zero NodeID is node 0).
type Environment struct {
	// Candidates are the election nodes (not the services).
	Candidates []sim.NodeID
	// Store is the lease store's node, or sim.None.
	Store sim.NodeID
	// StoreNode is the lease store itself, for lease_holder and store
	// faults; if nil and Store's node is a StoreService, it is found from
	// Store.
	StoreNode StoreService
	// LeaseKey is the lease record's key. Default DefaultLeaseKey.
	LeaseKey string
	// Resource is the fenced resource's node, or sim.None.
	Resource sim.NodeID
	// States are the protocol states the candidates' algorithm declares
	// (registry.Algorithm.States), by index: a trigger's State must be one.
	// The last CronStates of them are the cron layer's step states
	// (cron.ModeStates), which its services and workers report as well.
	States []string
	// CronStates is how many of States, at its end, any node may report
	// (the others count only from a candidate). Default 0.
	CronStates int
	// QueueMode is queue-mode cron's nodes, or nil without queue mode.
	QueueMode *QueueNodes
}

// QueueNodes are queue-mode cron's nodes beside the candidates (the
// schedulers): the message queue, the execution store and the workers.
type QueueNodes struct {
	Queue, ExecStore sim.NodeID
	Workers          []sim.NodeID
}

// busy is what a busy_worker target asks a worker node.
type busy interface{ Busy() bool }

// StoreService is a lease-holding service node as faults see it: store
// faults make it unavailable or fail it over, and lease_holder targets ask
// it who holds the lease. The lease store (algorithms/lease.Store)
// implements it; so can the coordination services an algorithm brings.
type StoreService interface {
	sim.Node
	// Unavailable reports whether it ignores requests.
	Unavailable() bool
	// SetUnavailable makes it ignore requests (or serve them again).
	SetUnavailable(on bool)
	// FailoverLoseLast fails it over to a replica that lost its last n
	// acknowledged writes; it returns how many were lost.
	FailoverLoseLast(n int) int
	// LeaseHolder returns who holds the lease named key and its token, as
	// the service judges it at its own clock readings (monotonic and wall,
	// nanoseconds); ok is false when the lease is free or has expired.
	LeaseHolder(key string, monoNs, wallNs int64) (holder sim.NodeID, token int64, ok bool)
}

// DefaultLeaseKey is Environment.LeaseKey's default: the key the lease
// algorithms elect through unless configured otherwise.
const DefaultLeaseKey = "leader"

// Injector schedules, resolves, applies and reverts faults on one Sim.
//
// Randomness: explicit faults draw from the stream s.Stream("faults") — every
// At when New runs (in list order), then, when a fault fires, its For and its
// numeric parameters in field order, and one 64-bit seed from which that
// firing's target resolution draws. A trigger draws its Delay when its event
// happens. Each nemesis i draws from its own stream s.Stream("nemesis/<i>"),
// so adding an explicit fault or another nemesis does not reshuffle it. Since
// target resolution draws from a per-firing sub-stream, the streams'
// consumption never depends on the cluster's state: the same seed draws the
// same schedule whatever the algorithm does.
type Injector struct {
	s      *sim.Sim
	env    Environment
	faults []Fault
	rng    *sim.Rand
	isCand []bool
	// services are the nodes that are not candidates, in ID order.
	services []sim.NodeID

	triggers []*trigger
	nemeses  []*nemesisRun
	applied  []Applied // every fault injected, unless the history is forgotten
	nApplied int       // faults injected so far: the next one's Seq
	forget   bool      // ForgetHistory: keep no Applied records
	limit    int       // LimitHistory: keep at most this many (0: all)
	active   []*active

	holds       []int32 // per directed link: partition faults holding it cut
	pauseHolds  []int32
	crashHolds  []int32
	downByFault []bool
	storeHolds  int

	clockBase   []rates
	clockLayers []clockLayer
	linkBase    linkTable
	linkCur     linkTable
	linkLayers  []linkLayer
	diskBase    []sim.Dist
	diskCur     []sim.Dist
	diskLayers  []diskLayer

	effHolder sim.NodeID // lease holder from effects, when there is no StoreNode
	effToken  int64

	settleSet bool
	settled   bool
	settleAt  sim.Time
}

// active is an applied fault not yet reverted.
type active struct {
	app  int           // its Applied.Seq: index into applied
	src  string        // Applied.Source
	node sim.NodeID    // the first node it hit, or sim.None
	kind string        // fault kind
	undo func() string // reverts it; returns what it did
	done bool
}

// ctx is one firing's context.
type ctx struct {
	src   string
	res   *sim.Rand  // target resolution stream
	event sim.NodeID // the trigger event's node, or None
}

// New validates faults and nemeses against the cluster and schedules them on
// s. Call it after every node is added (it snapshots the link, clock and disk
// settings as the scenario's defaults, which reverts and Settle restore) and
// before the run. All of a run's faults go through one Injector.
func New(s *sim.Sim, env Environment, faults []Fault, nemeses []Nemesis) (*Injector, error) {
	n := s.NumNodes()
	in := &Injector{s: s, env: env, faults: faults, rng: s.Stream("faults"), isCand: make([]bool, n),
		holds: make([]int32, n*n), pauseHolds: make([]int32, n), crashHolds: make([]int32, n),
		downByFault: make([]bool, n), effHolder: sim.None}
	if in.env.LeaseKey == "" {
		in.env.LeaseKey = DefaultLeaseKey
	}
	if err := in.checkEnv(); err != nil {
		return nil, err
	}
	for i := range faults {
		if err := in.checkFault(&faults[i]); err != nil {
			return nil, fmt.Errorf("faults[%d]: %w", i, err)
		}
	}
	for i := range nemeses {
		if err := in.checkNemesis(&nemeses[i]); err != nil {
			return nil, fmt.Errorf("nemeses[%d]: %w", i, err)
		}
	}
	in.snapshot()
	needSink := false
	for i := range faults {
		f := &faults[i]
		at := sim.Time(f.At.Draw(in.rng))
		src := fmt.Sprintf("faults[%d]", i)
		if f.Name != "" {
			src = f.Name
		}
		if f.After != nil {
			in.triggers = append(in.triggers, &trigger{f: f, src: src, armAt: at})
			needSink = true
			continue
		}
		s.AtLate(at, func() { in.fire(f, &ctx{src: src, event: sim.None}, in.rng) })
	}
	for i := range nemeses {
		in.startNemesis(i, nemeses[i])
	}
	if in.env.StoreNode == nil && in.env.Store != sim.None {
		needSink = true // the lease holder must be followed from the effects
	}
	if needSink {
		s.AddSink(sink{in})
	}
	return in, nil
}

// checkEnv validates the environment against the cluster.
func (in *Injector) checkEnv() error {
	s, n := in.s, in.s.NumNodes()
	if len(in.env.Candidates) == 0 {
		return fmt.Errorf("env.Candidates: empty")
	}
	in.env.Candidates = slices.Clone(in.env.Candidates)
	slices.Sort(in.env.Candidates)
	for i, id := range in.env.Candidates {
		if id < 0 || int(id) >= n {
			return fmt.Errorf("env.Candidates[%d]: node %d does not exist (%d nodes)", i, id, n)
		}
		if in.isCand[id] {
			return fmt.Errorf("env.Candidates: node %s listed twice", s.NodeName(id))
		}
		in.isCand[id] = true
	}
	for _, svc := range []struct {
		name string
		id   sim.NodeID
	}{{"env.Store", in.env.Store}, {"env.Resource", in.env.Resource}} {
		if svc.id == sim.None {
			continue
		}
		if svc.id < 0 || int(svc.id) >= n {
			return fmt.Errorf("%s: node %d does not exist (%d nodes); use sim.None when there is none", svc.name, svc.id, n)
		}
		if in.isCand[svc.id] {
			return fmt.Errorf("%s: node %s is a candidate; use sim.None when there is none", svc.name, s.NodeName(svc.id))
		}
	}
	if in.env.StoreNode != nil {
		if v := reflect.ValueOf(in.env.StoreNode); v.Kind() == reflect.Pointer && v.IsNil() {
			in.env.StoreNode = nil // a nil *Store passed as the interface: no store
		}
	}
	if in.env.StoreNode == nil && in.env.Store != sim.None {
		in.env.StoreNode, _ = s.Node(in.env.Store).(StoreService)
	}
	if in.env.StoreNode != nil && (in.env.Store == sim.None || s.Node(in.env.Store) != in.env.StoreNode) {
		return fmt.Errorf("env.Store: must be the ID of env.StoreNode")
	}
	for i := 0; i < n; i++ {
		if !in.isCand[i] {
			in.services = append(in.services, sim.NodeID(i))
		}
	}
	return nil
}

// checkFault validates a fault and checks it against the cluster.
func (in *Injector) checkFault(f *Fault) error {
	if err := f.Validate(); err != nil {
		return err
	}
	if f.Store != nil && in.env.StoreNode == nil {
		return fmt.Errorf("store: no lease store in this scenario")
	}
	ts := f.targets()
	if f.After != nil {
		ts = append(ts, f.After.Node)
		if st := f.After.State; st != "" && !slices.Contains(in.env.States, st) {
			if len(in.env.States) == 0 {
				return fmt.Errorf("after.state: %q, but the algorithm declares no protocol states", st)
			}
			return fmt.Errorf("after.state: unknown %q (the algorithm declares %v)", st, in.env.States)
		}
		if f.After.Event == EventRenew || f.After.Event == EventAcquired || f.After.Event == EventExpired {
			if in.env.Store == sim.None {
				return fmt.Errorf("after.event: %q needs a lease store", f.After.Event)
			}
		}
	}
	return in.checkTargets(ts)
}

// checkTargets checks targets against the cluster.
func (in *Injector) checkTargets(ts []Target) error {
	n := in.s.NumNodes()
	for _, t := range ts {
		for _, id := range t.Nodes {
			if int(id) >= n {
				return fmt.Errorf("target %s: node %d does not exist (%d nodes)", t, id, n)
			}
		}
		switch {
		case (t.Kind == TargetStore || t.Kind == TargetLeaseHolder) && in.env.Store == sim.None:
			return fmt.Errorf("target %s: no lease store in this scenario", t)
		case t.Kind == TargetResource && in.env.Resource == sim.None:
			return fmt.Errorf("target %s: no fenced resource in this scenario", t)
		case slices.Contains(queueTargets, t.Kind) && in.env.QueueMode == nil:
			return fmt.Errorf("target %s: no queue-mode cron in this scenario", t)
		}
	}
	return nil
}

// snapshot records the scenario's link, clock and disk settings.
func (in *Injector) snapshot() {
	s, n := in.s, in.s.NumNodes()
	in.linkBase = linkTable{def: s.DefaultLink()}
	for f := 0; f < n; f++ {
		for t := 0; t < n; t++ {
			in.linkBase.set(f*n+t, s.Link(sim.NodeID(f), sim.NodeID(t)))
		}
	}
	in.linkCur = in.linkBase.clone()
	in.clockBase = make([]rates, n)
	in.diskBase = make([]sim.Dist, n)
	for i := 0; i < n; i++ {
		c := s.Clock(sim.NodeID(i))
		in.clockBase[i] = rates{mono: c.MonoRatePPB, wall: c.WallRatePPB}
		in.diskBase[i] = s.FsyncLatency(sim.NodeID(i))
	}
	in.diskCur = slices.Clone(in.diskBase)
}

// ForgetHistory makes the injector keep no record of the faults it
// injects, so that its memory does not grow with them: a sweep's runs are
// judged from the trace and need none. Call it before the run starts;
// Applied then returns nil. The trace (notes, typed fault records) is the
// same either way.
func (in *Injector) ForgetHistory() { in.forget = true }

// LimitHistory makes the injector keep the first n faults it injects
// (n > 0), so that a long run's memory does not grow with them while its
// report still draws them: simrun's featured run keeps 5,000. Faults past
// n are injected and traced as usual; Applied lists only the first n, and
// HistoryDropped counts the others. Call it before the run starts.
func (in *Injector) LimitHistory(n int) { in.limit = n }

// HistoryDropped returns how many injected faults Applied does not list
// because of LimitHistory.
func (in *Injector) HistoryDropped() int {
	if in.forget {
		return 0
	}
	return in.nApplied - len(in.applied)
}

// KeepsHistory reports whether Applied lists the injected faults (no
// ForgetHistory).
func (in *Injector) KeepsHistory() bool { return !in.forget }

// Applied returns every fault injected so far, in injection order (nil
// after ForgetHistory).
func (in *Injector) Applied() []Applied {
	out := slices.Clone(in.applied)
	for i := range out {
		out[i].Nodes = slices.Clone(out[i].Nodes)
	}
	return out
}

// Active returns how many injected faults are not reverted yet.
func (in *Injector) Active() int {
	k := 0
	for _, a := range in.active {
		if !a.done {
			k++
		}
	}
	return k
}

// Settled reports whether the settle phase has begun, and when.
func (in *Injector) Settled() (sim.Time, bool) { return in.settleAt, in.settled }

// fire resolves and applies one fault now. draw is the stream its For and
// parameters come from.
func (in *Injector) fire(f *Fault, c *ctx, draw *sim.Rand) {
	kind := f.Kind()
	forD := sim.Never
	if f.For != nil {
		forD = sim.Time(f.For.Draw(draw))
	}
	cf := concretize(f, draw)
	c.res = sim.NewRand(draw.Uint64(), "resolve")
	if in.settled {
		in.s.Note(NoteSkip, c.src+": "+kind+" skipped: after settle", sim.None)
		return
	}
	o := in.apply(&cf, c)
	if o.skip != "" {
		in.s.Note(NoteSkip, c.src+": "+kind+" skipped: "+o.skip, sim.None)
		return
	}
	o.concrete.For = nil
	if o.undo != nil && forD != sim.Never {
		d := forD.Duration()
		o.concrete.For = &DurRange{Min: d, Max: d}
	}
	detail := c.src + ": " + o.body
	if o.undo != nil {
		if forD == sim.Never {
			detail += " until settle"
		} else {
			detail += " for " + forD.String()
		}
	}
	node := sim.None
	if len(o.nodes) > 0 {
		node = o.nodes[0]
	}
	seq := in.nApplied
	in.nApplied++
	if !in.forget && (in.limit == 0 || len(in.applied) < in.limit) {
		in.applied = append(in.applied, Applied{Seq: seq, Source: c.src, Kind: kind, At: in.s.Now(), Nodes: o.nodes,
			Detail: detail, concrete: o.concrete})
	}
	in.s.Note(NotePrefix+kind, detail, node)
	if o.undo == nil {
		return
	}
	a := &active{app: seq, src: c.src, node: node, kind: kind, undo: o.undo}
	in.active = append(slices.DeleteFunc(in.active, func(x *active) bool { return x.done }), a)
	if forD != sim.Never {
		in.s.AtLate(in.s.Now()+forD, func() { in.revert(a, RevertedByFor) })
	}
}

// The reasons a fault was reverted (Applied.RevertedBy).
const (
	RevertedByFor    = "for"    // its For elapsed
	RevertedByHeal   = "heal"   // a heal fault ended it (partitions)
	RevertedBySettle = "settle" // the settle phase
)

// revert undoes an active fault once.
func (in *Injector) revert(a *active, by string) {
	if a.done {
		return
	}
	a.done = true
	what := a.undo()
	if !in.forget && a.app < len(in.applied) {
		app := &in.applied[a.app]
		app.Reverted, app.RevertedAt, app.RevertedBy = true, in.s.Now(), by
	}
	in.s.Note(NoteRevert, a.src+": "+what, a.node)
}

// Settle schedules the settle phase at true time at: from then on no fault
// fires (nemeses stop, pending triggers and scheduled faults are skipped),
// every active fault is reverted (newest first), and then, whatever else
// happened: every link is up, every paused node resumed, every node a fault
// crashed is up again (with its disk), link, clock-rate and fsync settings are
// the scenario's defaults again, and the store is available. Wall-clock
// offsets of active clock faults are stepped back like any revert; steps (Clock.Step)
// and time gained or lost while a rate was off stay. Settle may be called
// once.
func (in *Injector) Settle(at sim.Time) {
	if in.settleSet {
		panic("faults: Settle called twice")
	}
	in.settleSet = true
	in.s.AtLate(at, in.settle)
}

func (in *Injector) settle() {
	s := in.s
	in.settled, in.settleAt = true, s.Now()
	n := in.Active()
	s.Note(NoteSettle, fmt.Sprintf("settle: reverting %d active faults", n), sim.None)
	for i := len(in.active) - 1; i >= 0; i-- {
		in.revert(in.active[i], RevertedBySettle)
	}
	in.active = nil
	for i := range in.holds {
		in.holds[i] = 0
	}
	num := s.NumNodes()
	cut := false
	for i := 0; i < num*num; i++ {
		cut = cut || !s.Reachable(sim.NodeID(i/num), sim.NodeID(i%num))
	}
	if cut {
		s.Heal()
	}
	for i := 0; i < num; i++ {
		id := sim.NodeID(i)
		in.pauseHolds[i], in.crashHolds[i] = 0, 0
		if s.IsPaused(id) {
			s.Resume(id)
		}
		if in.downByFault[i] && !s.IsUp(id) {
			s.Restart(id, true)
		}
		in.downByFault[i] = false
	}
	in.clockLayers, in.linkLayers, in.diskLayers = nil, nil, nil
	all := make([]int, num*num)
	for i := range all {
		all[i] = i
	}
	in.applyLinks(all)
	for i := 0; i < num; i++ {
		in.applyClock(sim.NodeID(i))
		in.applyDisk(sim.NodeID(i))
	}
	if st := in.env.StoreNode; st != nil && st.Unavailable() {
		st.SetUnavailable(false)
	}
	in.storeHolds = 0
}

// --- resolution ---

// resolve turns a target into nodes now. why describes a role ("leader,
// epoch 4") and is empty for explicit nodes; skip says why nothing matched.
func (in *Injector) resolve(t Target, c *ctx) (nodes []sim.NodeID, why, skip string) {
	s := in.s
	switch t.Kind {
	case TargetLeader:
		id, epoch, ok := in.leader()
		if !ok {
			return nil, "", "no leader"
		}
		return []sim.NodeID{id}, fmt.Sprintf("leader, epoch %d", epoch), ""
	case TargetLeaseHolder:
		id, token, ok := in.holder()
		if !ok {
			return nil, "", "no lease holder"
		}
		return []sim.NodeID{id}, fmt.Sprintf("lease_holder, token %d", token), ""
	case TargetCandidate:
		var pool []sim.NodeID
		for _, id := range in.env.Candidates {
			if lead, _, _ := s.Leading(id); s.IsUp(id) && !lead {
				pool = append(pool, id)
			}
		}
		if len(pool) == 0 {
			return nil, "", "no up candidate that is not leading"
		}
		return pick(c.res, pool, 1), "candidate", ""
	case TargetFollowers:
		id, _, ok := in.leader()
		if !ok {
			return nil, "", "no leader"
		}
		for _, x := range in.env.Candidates {
			if lead, _, _ := s.Leading(x); !lead {
				nodes = append(nodes, x)
			}
		}
		if len(nodes) == 0 {
			return nil, "", "no followers"
		}
		return nodes, "followers of " + s.NodeName(id), ""
	case TargetRandom, TargetRandomMinority:
		up := in.upCandidates()
		if len(up) == 0 {
			return nil, "", "no candidate up"
		}
		k := max(t.Count, 1)
		if t.Kind == TargetRandomMinority {
			k = (len(in.env.Candidates) - 1) / 2
			if k == 0 {
				return nil, "", fmt.Sprintf("%d candidates have no minority", len(in.env.Candidates))
			}
		}
		return pick(c.res, up, k), string(t.Kind), ""
	case TargetNode:
		nodes = slices.Clone(t.Nodes)
		slices.Sort(nodes)
		return slices.Compact(nodes), "", ""
	case TargetAll:
		return slices.Clone(in.env.Candidates), "all", ""
	case TargetStore:
		return []sim.NodeID{in.env.Store}, "store", ""
	case TargetResource:
		return []sim.NodeID{in.env.Resource}, "resource", ""
	case TargetService:
		var pool []sim.NodeID
		for i := 0; i < s.NumNodes(); i++ {
			if id := sim.NodeID(i); s.IsService(id) {
				pool = append(pool, id)
			}
		}
		if len(pool) == 0 {
			return nil, "", "no service node"
		}
		return pick(c.res, pool, 1), "service", ""
	case TargetWorkers:
		return slices.Clone(in.env.QueueMode.Workers), "workers", ""
	case TargetBusyWorker:
		var up []sim.NodeID
		for _, id := range in.env.QueueMode.Workers {
			if b, ok := s.Node(id).(busy); ok && s.IsUp(id) && b.Busy() {
				up = append(up, id)
			}
		}
		if len(up) == 0 {
			return nil, "", "no worker is running an execution"
		}
		return pick(c.res, up, 1), "busy_worker", ""
	case TargetQueue:
		return []sim.NodeID{in.env.QueueMode.Queue}, "queue", ""
	case TargetExecStore:
		return []sim.NodeID{in.env.QueueMode.ExecStore}, "exec_store", ""
	case TargetEventNode:
		if c.event == sim.None {
			return nil, "", "no event node"
		}
		return []sim.NodeID{c.event}, "event_node", ""
	}
	return nil, "", "unknown target " + string(t.Kind)
}

// leader returns the candidate acting as leader with the highest epoch
// (lowest ID on a tie).
func (in *Injector) leader() (sim.NodeID, int64, bool) {
	best, bestE := sim.None, int64(0)
	for _, id := range in.env.Candidates {
		if lead, e, _ := in.s.Leading(id); lead && (best == sim.None || e > bestE) {
			best, bestE = id, e
		}
	}
	return best, bestE, best != sim.None
}

// holder returns the lease holder and its token according to the store.
func (in *Injector) holder() (sim.NodeID, int64, bool) {
	st := in.env.StoreNode
	if st == nil {
		return in.effHolder, in.effToken, in.effHolder != sim.None
	}
	clk := in.s.Clock(in.env.Store)
	return st.LeaseHolder(in.env.LeaseKey, int64(clk.Mono), clk.Wall.UnixNano())
}

func (in *Injector) upCandidates() []sim.NodeID {
	var out []sim.NodeID
	for _, id := range in.env.Candidates {
		if in.s.IsUp(id) {
			out = append(out, id)
		}
	}
	return out
}

// pick draws k distinct members of from (all of them if fewer), sorted.
func pick(r *sim.Rand, from []sim.NodeID, k int) []sim.NodeID {
	xs := slices.Clone(from)
	k = min(k, len(xs))
	for i := 0; i < k; i++ {
		j := i + r.Intn(len(xs)-i)
		xs[i], xs[j] = xs[j], xs[i]
	}
	out := xs[:k]
	slices.Sort(out)
	return out
}

// --- text ---

func (in *Injector) names(ids []sim.NodeID) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = in.s.NodeName(id)
	}
	return strings.Join(parts, ",")
}

// describe formats resolved nodes: "n3 (leader, epoch 4)", "{n1,n2} (followers of n3)".
func (in *Injector) describe(ids []sim.NodeID, why string) string {
	s := in.names(ids)
	if len(ids) != 1 {
		s = "{" + s + "}"
	}
	if why != "" {
		s += " (" + why + ")"
	}
	return s
}

func (in *Injector) groupsText(groups [][]sim.NodeID) string {
	parts := make([]string, len(groups))
	for i, g := range groups {
		parts[i] = "{" + in.names(g) + "}"
	}
	return strings.Join(parts, " | ")
}

func whyList(whys []string) string {
	if len(whys) == 0 {
		return ""
	}
	return " (" + strings.Join(whys, "; ") + ")"
}
