package cron

import (
	"fmt"
	"sort"
	"strings"

	"github.com/electsim/electsim/sim"
)

// Policy is the set of rules the fenced resource applies to writes.
type Policy struct {
	// Fencing rejects a write whose token is lower than the highest token the
	// resource has accepted in the fencing scope.
	Fencing bool
	// FencingScope is "job" (default: tokens are compared per job) or
	// "global" (one highest token across all jobs).
	FencingScope string
	// Idempotency rejects a write of a (job, slot, step) already applied.
	Idempotency bool
	// Claim requires a run to win an atomic claim on its slot first
	// (UPDATE slot SET token = ? WHERE token < ?) and rejects writes whose
	// token is not the slot's current claim.
	Claim bool
}

// ParsePolicy parses a list of rule names: "fencing", "idempotency",
// "claim", or "none" alone.
func ParsePolicy(names []string) (Policy, error) {
	var p Policy
	for _, n := range names {
		switch n {
		case "fencing":
			p.Fencing = true
		case "idempotency":
			p.Idempotency = true
		case "claim":
			p.Claim = true
		case "none":
			if len(names) > 1 {
				return p, fmt.Errorf("policy \"none\" cannot be combined with other rules")
			}
		default:
			return p, fmt.Errorf("unknown policy %q (want fencing, idempotency, claim or none)", n)
		}
	}
	return p, nil
}

// String lists the rules, e.g. "fencing+idempotency", or "none".
func (p Policy) String() string {
	var r []string
	if p.Fencing {
		if p.FencingScope == "global" {
			r = append(r, "fencing(global)")
		} else {
			r = append(r, "fencing")
		}
	}
	if p.Idempotency {
		r = append(r, "idempotency")
	}
	if p.Claim {
		r = append(r, "claim")
	}
	if len(r) == 0 {
		return "none"
	}
	return strings.Join(r, "+")
}

// Reasons a write is rejected, as they appear in the log.
const (
	ReasonAccepted  = "accepted"
	ReasonStale     = "stale_token"
	ReasonDuplicate = "duplicate"
	ReasonClaimLost = "claim_lost"
)

// LogEntry is one write the resource received, accepted or rejected.
type LogEntry struct {
	At       sim.Time
	Job      string
	JobIndex int
	Slot     int64 // scheduled wall time, Unix ns: the slot this run stands for
	FireTime int64 // the scheduled fire time the run saw (== Slot unless a Quartz catch-up run); idempotency and claims key on it
	Step     int
	Token    int64
	Node     sim.NodeID
	Run      int64 // run ID, unique per node
	Accepted bool
	Reason   string
	// Against is, for a claim_lost or stale_token rejection, the token the
	// write was compared with (the slot's claim, the highest accepted).
	Against int64
}

// Why tells people why the resource decided as it did: the reason and,
// for a rejection, what the write was compared with, rendered from the
// typed fields ("stale_token, highest accepted token 4").
func (e *LogEntry) Why() string {
	if d := e.Detail(); d != "" {
		return e.Reason + ", " + d
	}
	return e.Reason
}

// Detail is what a rejected write was compared with, for people, rendered
// from Reason and Against ("" for an accepted write, or when Against is
// unknown, 0: tokens start at 1). Code reads the typed fields.
func (e *LogEntry) Detail() string {
	switch {
	case e.Reason == ReasonClaimLost && e.Against > 0:
		return fmt.Sprintf("slot claimed by token %d", e.Against)
	case e.Reason == ReasonClaimLost:
		return "slot not claimed"
	case e.Reason == ReasonStale && e.Against > 0:
		return fmt.Sprintf("highest accepted token %d", e.Against)
	case e.Reason == ReasonDuplicate:
		return "step already applied"
	}
	return ""
}

// Resource is the fenced resource: a service node that applies or rejects
// job writes by policy and keeps the log that is the ground truth for
// "executed". It models a durable database: its state survives its own crash.
type Resource struct {
	jobs    Table
	policy  Policy
	env     sim.Env
	highest map[int]int64 // fencing scope → highest accepted token (-1 = global)
	applied map[stepKey]bool
	claims  map[slotKey]int64
	done    map[slotKey]bool
	fired   map[slotKey]bool // slots some write or claim reached, by truth slot
	log     []LogEntry
	trueNow func() sim.Time
	names   func(sim.NodeID) string
	// zooAmnesia, zooRowFence and zooIdemByNode are internal/bugzoo's
	// planted resource bugs (zoohook.go); always false outside its tests.
	zooAmnesia, zooRowFence, zooIdemByNode bool
	zooRowHigh                             map[slotKey]int64
	zooApplied                             map[zooNodeStep]bool
	zooLoseEvery, zooSlots                 int
	zooLost                                map[slotKey]bool
}

type slotKey struct {
	job  int
	slot int64
}

type stepKey struct {
	slotKey
	step int
}

// NewResource returns a resource for the job table under policy.
func NewResource(jobs Table, policy Policy) *Resource {
	return &Resource{jobs: jobs, policy: policy,
		highest: map[int]int64{}, applied: map[stepKey]bool{}, claims: map[slotKey]int64{}, done: map[slotKey]bool{}, fired: map[slotKey]bool{}}
}

// Policy returns the resource's policy.
func (r *Resource) Policy() Policy { return r.policy }

// Log returns every write received so far, in arrival order.
func (r *Resource) Log() []LogEntry { return r.log }

// Start implements sim.Node. The resource's data is durable by design, so a
// restart keeps it.
func (r *Resource) Start(env sim.Env, _ []byte) {
	if r.zooAmnesia && r.env != nil {
		r.zooForget()
	}
	r.env = env
}

// OnTimer implements sim.Node; the resource sets no timers.
func (r *Resource) OnTimer(sim.TimerID, int) {}

// OnMessage implements sim.Node.
func (r *Resource) OnMessage(m sim.Message) {
	switch m.Kind {
	case KindWrite:
		r.write(m)
	case KindClaim:
		r.claim(m)
	case KindQuery:
		r.query(m)
	}
}

func (r *Resource) scope(job int) int {
	if r.policy.FencingScope == "global" {
		return -1
	}
	return job
}

func (r *Resource) write(m sim.Message) {
	w := writeReqOf(&m)
	job, step := unpackJobStep(w.JobStep)
	if job < 0 || job >= len(r.jobs) {
		return
	}
	slot := slotKey{job, w.Slot}
	sk := slotKey{job, fireTimeOf(m)} // what the application keys on
	if r.zooLoseEvery > 0 && r.zooLose(slot) {
		r.env.Send(writeResp{Token: w.Token, Slot: w.Slot, JobStep: w.JobStep, Run: w.Run, Accepted: true}.message(m.From))
		return
	}
	r.fired[slot] = true
	e := LogEntry{At: 0, Job: r.jobs[job].Name, JobIndex: job, Slot: w.Slot, FireTime: sk.slot, Step: step, Token: w.Token, Node: m.From, Run: w.Run, Reason: ReasonAccepted}
	hi, seen := r.highest[r.scope(job)]
	if r.zooRowFence {
		hi, seen = r.zooRowHigh[slot]
	}
	switch {
	case r.policy.Claim && r.claims[sk] != w.Token:
		e.Reason, e.Against = ReasonClaimLost, r.claims[sk]
	case r.policy.Fencing && seen && w.Token < hi:
		e.Reason, e.Against = ReasonStale, hi
	case r.policy.Idempotency && r.duplicate(stepKey{sk, step}, m.From):
		e.Reason = ReasonDuplicate
	}
	e.Accepted = e.Reason == ReasonAccepted
	if e.Accepted {
		if !seen || w.Token > hi {
			r.highest[r.scope(job)] = w.Token
		}
		if r.zooRowFence {
			r.zooRowHigh[slot] = max(r.zooRowHigh[slot], w.Token)
		}
		if r.zooIdemByNode {
			r.zooApplied[zooNodeStep{stepKey{sk, step}, m.From}] = true
		}
		r.applied[stepKey{sk, step}] = true
		if step == r.jobs[job].Writes-1 {
			r.done[slot] = true
		}
	}
	r.record(e)
	r.env.Send(writeResp{Token: w.Token, Slot: w.Slot, JobStep: w.JobStep, Run: w.Run, Accepted: e.Accepted}.message(m.From))
}

func (r *Resource) record(e LogEntry) {
	e.At = r.now()
	r.log = append(r.log, e)
	name := "resource.accept"
	detail := fmt.Sprintf("%s step %d token %d from %s run %d: %s", SlotName(e.Job, e.Slot), e.Step, e.Token, r.nodeName(e.Node), e.Run, e.Reason)
	if !e.Accepted {
		name = "resource.reject"
		detail += " (" + e.Detail() + ", policy " + r.policy.String() + ")"
	} else {
		detail += " (policy " + r.policy.String() + ")"
	}
	r.env.Effect(sim.Effect{Name: name, Detail: detail, A: e.Token, B: e.Slot, C: int64(e.Node)})
}

func (r *Resource) claim(m sim.Message) {
	c := claimReqOf(&m)
	job := c.Job
	if job < 0 || job >= len(r.jobs) {
		return
	}
	r.fired[slotKey{job, c.Slot}] = true
	sk := slotKey{job, fireTimeOf(m)}
	cur, held := r.claims[sk]
	won := !held || cur < c.Token
	if won {
		r.claims[sk] = c.Token
	}
	name := "resource.claim_won"
	if !won {
		name = "resource.claim_lost"
	}
	r.env.Effect(sim.Effect{Name: name, Detail: fmt.Sprintf("%s token %d from %s (current claim %d)", SlotName(r.jobs[job].Name, c.Slot), c.Token, r.nodeName(m.From), cur), A: c.Token, B: c.Slot, C: int64(m.From)})
	r.env.Send(claimResp{Token: c.Token, Slot: c.Slot, Job: c.Job, Run: c.Run, Won: won}.message(m.From))
}

// fireTimeOf is the scheduled fire time a write or claim carries (its
// FireTime body), or its slot (both kinds carry the slot in Index).
func fireTimeOf(m sim.Message) int64 {
	if f, ok := m.Body.(FireTime); ok {
		return int64(f)
	}
	return writeReqOf(&m).Slot
}

// query answers which slots of a job in (from, to] are complete (their last
// step applied) and which were fired but are not complete (QueryAnswer).
func (r *Resource) query(m sim.Message) {
	q := queryOf(&m)
	job := q.Job
	if job < 0 || job >= len(r.jobs) {
		return
	}
	a := &QueryAnswer{}
	for k := range r.fired { // collected then sorted: order cannot leak
		if k.job != job || k.slot <= q.FromSlot || k.slot > q.ToSlot {
			continue
		}
		if r.done[k] {
			a.Done = append(a.Done, k.slot)
		} else {
			a.Fired = append(a.Fired, k.slot)
		}
	}
	sort.Slice(a.Done, func(i, j int) bool { return a.Done[i] < a.Done[j] })
	sort.Slice(a.Fired, func(i, j int) bool { return a.Fired[i] < a.Fired[j] })
	r.env.Send(q.message(KindQueryResp, m.From, a))
}

// Completed reports whether the slot's last step has been applied.
func (r *Resource) Completed(job int, slot int64) bool { return r.done[slotKey{job, slot}] }

// now is the true time for log entries. A node cannot read true time, so the
// harness that adds the resource (AddResource) hands it the simulation's
// clock; the resource's behaviour never depends on it.
func (r *Resource) now() sim.Time {
	if r.trueNow == nil {
		return 0
	}
	return r.trueNow()
}

func (r *Resource) nodeName(id sim.NodeID) string {
	if r.names != nil {
		return r.names(id)
	}
	return fmt.Sprintf("node %d", id)
}

// AddResource adds a fenced resource named name to s (as a service node) and
// returns its ID and value. Its log entries are stamped with true time.
func AddResource(s *sim.Sim, name string, jobs Table, policy Policy) (sim.NodeID, *Resource) {
	r := NewResource(jobs, policy)
	r.trueNow = s.Now
	r.names = s.NodeName
	return s.AddNode(name, r, sim.Service()), r
}
