// Package registry is the public list of election algorithms a scenario can
// name: each algorithm describes itself once (its name, its parameters with
// their types, ranges and docs, the services its runs need, and how to build
// its nodes from validated values) and the scenario loader, -set validation,
// simrun -algo, the matrix, the materialize/repro writer and the docs'
// parameter tables all follow that description. A user's own algorithm
// registers itself the same way and gets every simrun feature
// (docs/extending.md).
package registry

import (
	"fmt"
	"sync"
	"time"

	"github.com/electsim/electsim/contract"
	"github.com/electsim/electsim/sim"
)

// Kind is the type of a parameter in a scenario file.
type Kind uint8

// The parameter kinds.
const (
	// Duration: a duration; a range a..b is drawn once per run.
	Duration Kind = iota
	// DurationRange: a duration range taken as is (raft's election_timeout).
	DurationRange
	// Bool: true or false.
	Bool
	// Int: a whole number in [Min, Max]; a range is drawn once per run.
	Int
	// Float: a number in [Min, Max]; a range is drawn once per run.
	Float
	// Enum: one of Param.Enum.
	Enum
	// Nodes: a list of candidate references (n1 or 1).
	Nodes
	// Ints: a list of whole numbers, one per candidate.
	Ints
)

// Param is one parameter of an algorithm, as a scenario file writes it.
type Param struct {
	// Key is the YAML key, e.g. "election_timeout".
	Key string
	// Kind is its type.
	Kind Kind
	// Enum lists the allowed values of an Enum parameter.
	Enum []string
	// Min and Max bound Int and Float parameters.
	Min, Max float64
	// MinDur and MaxDur, when MaxDur > 0, are a Duration parameter's valid
	// range (the real system's documented limits): a scenario may set any
	// value, but hunt's extremes strategy draws these edges. A Duration
	// without them keeps its value under hunt.
	MinDur, MaxDur time.Duration
	// Doc is one line for the docs table, with the default.
	Doc string
	// Fields are the Go configuration fields the parameter sets, when
	// FieldNames does not map them to its key (e.g. election_timeout sets
	// ElectionTimeoutMin and ElectionTimeoutMax); FieldError locations use
	// them (Algorithm.KeyOf).
	Fields []string
	// Single: the scenario must give one value, never a range, because the
	// parameter decides the run's nodes (Algorithm.LeaseStores reads it).
	Single bool
}

// Values are one run's parameter values, drawn from the scenario's ranges:
// only the keys the scenario sets are present (Has); the rest take the
// algorithm's defaults.
type Values interface {
	Has(key string) bool
	Duration(key string) time.Duration
	DurationRange(key string) (lo, hi time.Duration)
	Bool(key string) bool
	Int(key string) int
	Float(key string) float64
	String(key string) string
	Nodes(key string) []sim.NodeID
	Ints(key string) []int64
}

// Services are the service nodes of a run a candidate may talk to.
type Services struct {
	// LeaseStore is the lease store's ID (sim.None without one); with
	// several stores, the first.
	LeaseStore sim.NodeID
	// LeaseStores are every lease store's ID, LeaseStore first (nil
	// without one); Algorithm.LeaseStores says how many.
	LeaseStores []sim.NodeID
}

// MaxLeaseStores bounds Algorithm.LeaseStores.
const MaxLeaseStores = 15

// Factory builds one candidate node of a run: peers are every candidate's
// ID in ascending order.
type Factory func(peers []sim.NodeID, svc Services) sim.Node

// Setting is a parameter a materialized scenario changes so it builds the
// same nodes without a random draw (Algorithm.Concrete).
type Setting struct {
	Key    string
	Remove bool         // drop the key
	Nodes  []sim.NodeID // for a Nodes parameter
}

// Algorithm is one algorithm's description.
type Algorithm struct {
	// Name is what a scenario's algorithm.name and simrun -algo say.
	Name string
	// Doc is the one-line title of its docs section.
	Doc string
	// Package prefixes its validation errors ("raftelect: ..."); the prefix
	// is dropped when they are reported against a scenario file.
	Package string
	// Params are its parameters.
	Params []Param
	// FieldNames map its Config's Go field names to the words a scenario
	// error uses ("HeartbeatInterval" → "heartbeat"): Build validates with
	// NameBy(FieldNames), so its FieldErrors are written in those words.
	FieldNames map[string]string
	// LeaseStore: its runs get a lease store node, and the checker
	// recognises a leader by holding the lease (from its lead record on)
	// rather than by a majority's beliefs.
	LeaseStore bool
	// LeaseStores, if set, says how many lease store nodes a run with
	// these values gets (1..MaxLeaseStores; for example Redlock's
	// independent masters); nil means one. It may read only Single
	// parameters (and defaults), so every run of a scenario has the same
	// nodes.
	LeaseStores func(v Values) int
	// NewStore, if set, builds the algorithm's lease-holding service node
	// (for example a simulated etcd) instead of the lease store
	// (algorithms/lease). The node must offer what store faults and
	// lease_holder targets need (faults.StoreService).
	NewStore func(v Values) sim.Node
	// NewLeaseStore, if set, builds lease store number k (1-based: 1 is
	// "store", 2 "store2", …) of a run that gets lease stores
	// (algorithms/lease) rather than its own NewStore service, so each
	// store can take the algorithm's per-store settings (a Redis master's
	// persistence). nil: the lease store's defaults.
	NewLeaseStore func(v Values, k int) sim.Node
	// StoreStreams, if set, says whether the candidates reach the lease
	// store (or the NewStore service) with these values over TCP
	// connections, as client-go reaches the API server's Lease by HTTP:
	// the network then never duplicates a request or an answer, and a
	// lost segment costs a retransmission rather than the message
	// (sim.Streams). nil or false: datagrams, the pessimistic reading.
	StoreStreams func(v Values) bool
	// InProcess: its handlers are trusted to return (electsim's own
	// algorithms, tested in its repository, set it), so simrun sweeps it
	// in its own process. Unset (a user's algorithm), a sweep of more than
	// one run uses worker processes unless -isolate=false, so a run that
	// overflows its stack or never returns is reported crashed rather than
	// ending the sweep (docs/output.md, -isolate).
	InProcess bool
	// ProcessWide: its nodes share process-wide state (etcdraft holds a
	// lock around the raft library's global entropy), so parallel runs in
	// one process serialize; simrun runs its sweeps in worker processes.
	ProcessWide bool
	// Build validates the values for a cluster of candidates and returns
	// the node factory, or the configuration's error. It may draw from r.
	Build func(v Values, candidates int, r *sim.Rand) (Factory, error)
	// Concrete, if set, returns the settings that make a materialized
	// scenario build the same nodes without the draws Build made from r (r
	// as Build received it).
	Concrete func(v Values, candidates int, r *sim.Rand) []Setting
	// DriftMargin, if set, is the algorithm's analytic worst case under
	// clock drift, for simrun margin: the longest two candidates can both
	// act as leader when the leader (whose clock is exact) is cut off the
	// store and every follower's clock runs at rate × true time, with
	// one-way latencies in [latMin, latMax]. ok is false when these
	// values have no such bound (another flavour).
	DriftMargin func(v Values, rate float64, latMin, latMax time.Duration) (m Margin, ok bool)
	// Token, if set, says which fencing token the algorithm's leaders write
	// with for these values (see Token): set by algorithms whose library
	// hands the application none. nil: the library hands one out (a raft
	// term, etcd's Election.Rev). The scenario loader refuses cron.policy
	// [fencing] when it says TokenNone.
	Token func(v Values) Token
	// Contract, if set, is what the algorithm guarantees with these values
	// and under which faults (contract.Guarantee): the checker holds every
	// finding of a covered check to it, and a finding no exception excuses
	// fails the run whatever the scenario allows (docs/checkers.md,
	// "Contracts"). nil: the algorithm promises nothing; its scenarios'
	// expect blocks alone judge it. A bound that depends on message latency
	// states it as contract.LatencyTerms; the scenario resolves them
	// against its network (contract.Contract.Resolve).
	Contract func(v Values) contract.Contract
	// States names the protocol states the algorithm reports, in order:
	// a candidate that reaches state i records a sim.Effect with
	// sim.FactProtocolState and A = i (for example raft's vote_granted,
	// term_bumped, persisted). A fault can fire right after one
	// (after: {state: NAME}) and simrun hunt aims faults at them
	// (docs/hunting.md). Each is a lower-case word of letters, digits and
	// underscores, unique. nil: the algorithm declares none.
	States []string
	// Timescale, if set, is the longest timeout of the algorithm with
	// these values that a fault must outlast to change who leads: a
	// lease's duration, a session's timeout, an election timeout's
	// maximum. simrun hunt draws some faults that long and sizes its
	// built-in base to it (docs/hunting.md, "Fault lengths"). nil: hunt
	// assumes faults of at most 5 s suffice.
	Timescale func(v Values) time.Duration
}

// TimescaleOf returns a's timescale for v (0 without a Timescale).
func (a *Algorithm) TimescaleOf(v Values) time.Duration {
	if a.Timescale == nil {
		return 0
	}
	return max(a.Timescale(v), 0)
}

// MaxStates bounds Algorithm.States.
const MaxStates = 64

// StateIndex returns the index of the protocol state named name.
func (a *Algorithm) StateIndex(name string) (int, bool) {
	for i, s := range a.States {
		if s == name {
			return i, true
		}
	}
	return 0, false
}

// checkStates validates a's declared protocol states.
func checkStates(a *Algorithm) error {
	if len(a.States) > MaxStates {
		return fmt.Errorf("registry: %s: %d protocol states, at most %d", a.Name, len(a.States), MaxStates)
	}
	for i, s := range a.States {
		if s == "" {
			return fmt.Errorf("registry: %s: protocol state %d has no name", a.Name, i)
		}
		for _, c := range s {
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
				return fmt.Errorf("registry: %s: protocol state %q: use lower-case letters, digits and underscores", a.Name, s)
			}
		}
		for _, t := range a.States[:i] {
			if t == s {
				return fmt.Errorf("registry: %s: protocol state %q declared twice", a.Name, s)
			}
		}
	}
	return nil
}

// ContractOf returns a's contract for v (empty without a Contract).
func (a *Algorithm) ContractOf(v Values) contract.Contract {
	if a.Contract == nil {
		return contract.Contract{}
	}
	return a.Contract(v)
}

// Margin is an algorithm's analytic drift margin at one clock rate.
type Margin struct {
	// Overlap is the worst-case overlap of two acting leaders (0 when none
	// is possible).
	Overlap time.Duration
	// SafeRate is the largest follower clock rate with no possible
	// overlap.
	SafeRate float64
	// Formula is the bound with its terms' values, for people.
	Formula string
	// Terms name where each term of the formula comes from (a file and
	// function of the real system).
	Terms []string
}

// Param returns the parameter with key, if the algorithm has it.
func (a *Algorithm) Param(key string) (*Param, bool) {
	for i := range a.Params {
		if a.Params[i].Key == key {
			return &a.Params[i], true
		}
	}
	return nil, false
}

// Registry is a set of algorithms, in registration order.
type Registry struct {
	mu    sync.RWMutex
	algos []*Algorithm
}

// Default is the registry simrun and the scenario loader use.
var Default = &Registry{}

// Register adds a; it fails on an empty or duplicate name, a missing Build
// or a malformed parameter.
func (r *Registry) Register(a Algorithm) error {
	if a.Name == "" || a.Build == nil {
		return fmt.Errorf("registry: an algorithm needs a name and a Build function")
	}
	if a.LeaseStores != nil && !a.LeaseStore {
		return fmt.Errorf("registry: %s: LeaseStores is set but LeaseStore is not", a.Name)
	}
	if err := checkStates(&a); err != nil {
		return err
	}
	seen := map[string]bool{} // lookups only
	for _, p := range a.Params {
		switch {
		case p.Key == "" || p.Key == "name":
			return fmt.Errorf("registry: %s: parameter key %q is not allowed", a.Name, p.Key)
		case seen[p.Key]:
			return fmt.Errorf("registry: %s: parameter %q declared twice", a.Name, p.Key)
		case p.Kind == Enum && len(p.Enum) == 0:
			return fmt.Errorf("registry: %s: enum parameter %q lists no values", a.Name, p.Key)
		case (p.Kind == Int || p.Kind == Float) && p.Min > p.Max:
			return fmt.Errorf("registry: %s: parameter %q has min > max", a.Name, p.Key)
		case (p.MinDur != 0 || p.MaxDur != 0) && (p.Kind != Duration || p.MinDur < 0 || p.MinDur > p.MaxDur):
			return fmt.Errorf("registry: %s: parameter %q: a duration range needs a duration parameter and 0 <= MinDur <= MaxDur", a.Name, p.Key)
		case p.Single && p.Kind != Int && p.Kind != Float && p.Kind != Duration:
			return fmt.Errorf("registry: %s: parameter %q: only int, float and duration parameters can be Single", a.Name, p.Key)
		}
		seen[p.Key] = true
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, x := range r.algos {
		if x.Name == a.Name {
			return fmt.Errorf("registry: algorithm %q registered twice", a.Name)
		}
	}
	r.algos = append(r.algos, &a)
	return nil
}

// MustRegister is Register that panics on error (for init functions).
func (r *Registry) MustRegister(a Algorithm) {
	if err := r.Register(a); err != nil {
		panic(err)
	}
}

// Lookup returns the algorithm named name.
func (r *Registry) Lookup(name string) (*Algorithm, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	for _, a := range r.algos {
		if a.Name == name {
			return a, true
		}
	}
	return nil, false
}

// Names lists the registered names in registration order.
func (r *Registry) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]string, len(r.algos))
	for i, a := range r.algos {
		out[i] = a.Name
	}
	return out
}

// All returns every registered algorithm in registration order.
func (r *Registry) All() []*Algorithm {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return append([]*Algorithm(nil), r.algos...)
}

// Namer names a configuration's Go field in an error message: GoName for
// the Go API, Algorithm.Name for a scenario file's words.
type Namer func(goField string) string

// GoName is the Namer of the Go API: the field's own name.
func GoName(goField string) string { return goField }

// NameBy is the Namer that names fields as names maps them (an
// Algorithm's FieldNames), and any other field by its Go name.
func NameBy(names map[string]string) Namer {
	return func(f string) string {
		if n, ok := names[f]; ok {
			return n
		}
		return f
	}
}

// FieldError is a structured validation error: which configuration fields
// it is about (Go field names, its subject first) and the message, whose
// field names were written by the Namer it was built with. A scenario
// loader reports it at the first of Fields the file sets, in Text's own
// words: no text rewriting.
type FieldError struct {
	// Pkg prefixes Error(), e.g. "lease".
	Pkg string
	// Fields are the Go fields the error is about, its subject first.
	Fields []string
	// Text is the message, e.g. "ttl must be positive, got 0s".
	Text string
}

// Error implements error: "pkg: text" (or the text alone without a Pkg).
func (e *FieldError) Error() string {
	if e.Pkg == "" {
		return e.Text
	}
	return e.Pkg + ": " + e.Text
}

// Fail builds a FieldError about fields (the subject first).
func Fail(pkg string, fields []string, format string, args ...any) *FieldError {
	return &FieldError{Pkg: pkg, Fields: fields, Text: fmt.Sprintf(format, args...)}
}

// KeyOf returns the parameter key a Go field is set through: the
// parameter that lists it in Fields, or whose key FieldNames gives it (a
// parameter key itself, as PerNode's errors name it, is its own key).
func (a *Algorithm) KeyOf(goField string) (string, bool) {
	if _, ok := a.Param(goField); ok {
		return goField, true
	}
	for _, p := range a.Params {
		for _, f := range p.Fields {
			if f == goField {
				return p.Key, true
			}
		}
	}
	if n, ok := a.FieldNames[goField]; ok {
		if _, ok := a.Param(n); ok {
			return n, true
		}
	}
	return "", false
}
