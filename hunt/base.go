package hunt

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/electsim/electsim/registry"
	"github.com/electsim/electsim/scenario"
)

// BaseNodesMin and BaseNodesMax bound the built-in base cluster's size,
// drawn per run.
const (
	BaseNodesMin = 3
	BaseNodesMax = 5
)

// BaseYAML is the built-in base scenario for algorithm algo: a cluster of
// BaseNodesMin candidates (each run draws BaseNodesMin..BaseNodesMax), the
// algorithm with its defaults and its services, the fenced cron layer
// (policy fencing and idempotency, or idempotency alone when the
// algorithm's leaders write without a token), a short fault phase and a
// settle phase. It expects every safety check to hold; liveness, missed
// slots and the leadership history's linearizability are left to the
// contract (a fault schedule can always starve them), and so are stale
// writes when the base does not fence.
func BaseYAML(algo string, fencing bool) []byte { return baseYAML(algo, fencing, 0) }

// baseYAML is BaseYAML for an algorithm whose timescale
// (registry.Algorithm.Timescale) is ts: beyond the longest fault hunt
// draws by default (maxFor), the fault phase and the settle phase grow by
// it, so a fault as long as the algorithm's timeouts fits in the fault
// phase and the cluster has time to recover after it.
func baseYAML(algo string, fencing bool, ts time.Duration) []byte {
	dur, settle, within := 20*time.Second, 8*time.Second, 5*time.Second
	if ts > maxFor {
		ts = min(ts, maxTimescale)
		dur, settle, within = dur+2*ts, settle+ts, within+ts
	}
	policy, allow := "[fencing, idempotency]", "[leader_linearizability, liveness, missed_slots]"
	if !fencing {
		// Without fencing nothing refuses a stale token's write (the cron
		// contract promises no stale_write then): a finding there is the
		// base's, not the algorithm's, even when the search's parameter
		// edges give the leaders a token.
		policy, allow = "[idempotency]", "[leader_linearizability, liveness, missed_slots, stale_write]"
	}
	return []byte(fmt.Sprintf(`name: hunt-%s
description: simrun hunt's built-in base cluster for %s
seed: 1
duration: %s
cluster: {nodes: %d}
network: {latency: 1ms..10ms}
algorithm: {name: %s}
cron:
  jobs: [{name: tick, schedule: "@every 2s", duration: 100ms..500ms}]
  policy: %s
settle: {for: %s, leader_within: %s}
expect:
  allow: %s
`, algo, algo, dur, BaseNodesMin, algo, policy, settle, within, allow))
}

// base is the loaded base scenario and what the search may vary in it.
type base struct {
	name   string // file name for the loader (a path, or hunt-<algo>)
	src    []byte
	sets   []string // the user's -set overrides
	algo   string   // the algorithm hunted
	over   string   // RunOptions.Algorithm: the override of a file's algorithm
	sc     *scenario.Scenario
	desc   *registry.Algorithm
	nodes  bool     // the search draws the cluster size
	pinned []string // parameter keys the search leaves alone
	// noElection: a shedlock or celery mode base, whose nodes take the
	// cron layer's lock themselves (desc is a bare name).
	noElection bool
}

// loadBase reads the base scenario of o: its source, the parsed base
// (the built-in one fenced if it can be and sized to the algorithm), the
// algorithm hunted and the parameters the search must leave alone.
func loadBase(ctx context.Context, o *Options) (*base, error) {
	b := &base{sets: o.Sets}
	if err := b.readSource(o); err != nil {
		return nil, err
	}
	sc, err := b.parseBase(ctx, o)
	if err != nil {
		return nil, err
	}
	sc.Expect = huntExpect(sc.Expect, o.Checks)
	b.sc = sc
	b.algo = sc.AlgorithmName(o.Algo)
	if own := sc.AlgorithmName(""); own == "shedlock" || own == "celery" {
		// No election: the cron mode's nodes take the lock themselves. A
		// hunt draws faults and values of no algorithm; -algo is refused
		// as the sweep refuses it.
		if o.Algo != "" && o.Algo != own {
			return nil, usagef("-algo: %s is a %s-mode scenario (no election algorithm); it cannot run under %s", sc.Name, own, o.Algo)
		}
		b.sc, b.algo, b.desc, b.noElection = sc, own, &registry.Algorithm{Name: own}, true
		return b, nil
	}
	if o.Scenario != "" && o.Algo != "" && o.Algo != sc.AlgorithmName("") {
		b.over = o.Algo
	}
	d, ok := registry.Default.Lookup(b.algo)
	if !ok {
		return nil, usagef("unknown algorithm %q (one of %s)", b.algo, strings.Join(registry.Default.Names(), ", "))
	}
	b.desc = d
	b.pinSets(o)
	if err := b.pinFileParams(o); err != nil {
		return nil, err
	}
	return b, nil
}

// readSource reads -scenario's file, or writes the built-in base of
// -algo (whose cluster size the search draws).
func (b *base) readSource(o *Options) error {
	if o.Scenario != "" {
		src, err := scenario.ReadFile(o.Scenario)
		if err != nil {
			return usagef("%v", err)
		}
		b.name, b.src = o.Scenario, src
		return nil
	}
	if _, ok := registry.Default.Lookup(o.Algo); !ok {
		return usagef("unknown algorithm %q (one of %s)", o.Algo, strings.Join(registry.Default.Names(), ", "))
	}
	b.name, b.src, b.nodes = "hunt-"+o.Algo, BaseYAML(o.Algo, true), true
	return nil
}

// parseBase parses the base. The built-in base is fenced unless the
// algorithm's leaders hand no fencing token with these values
// (registry.Algorithm.Token), then sized to the algorithm's timeouts.
func (b *base) parseBase(ctx context.Context, o *Options) (*scenario.Scenario, error) {
	sc, err := parse(o, b.name, b.src, b.sets)
	fencing := true
	if err != nil && o.Scenario == "" {
		fencing = false
		sc, err = b.unfenced(o)
	}
	if err != nil {
		return nil, usagef("%v", err)
	}
	if o.Scenario != "" {
		return sc, nil
	}
	return b.sizeBuiltIn(ctx, o, sc, fencing)
}

// unfenced makes the built-in base fence nothing, for an algorithm whose
// leaders hand no fencing token with these values, and parses it.
func (b *base) unfenced(o *Options) (*scenario.Scenario, error) {
	b.src = BaseYAML(o.Algo, false)
	return parse(o, b.name, b.src, b.sets)
}

// sizeBuiltIn builds the built-in base's cluster once, to size the base
// to the algorithm's timescale. In a worker, the file is read in full
// first: the token check this process left to it may refuse fencing.
func (b *base) sizeBuiltIn(ctx context.Context, o *Options, sc *scenario.Scenario, fencing bool) (*scenario.Scenario, error) {
	r, err := buildCluster(ctx, o, sc, "", b.src, b.sets)
	var le *loadError
	if errors.As(err, &le) && fencing {
		fencing = false
		if sc, err = b.unfenced(o); err != nil {
			return nil, usagef("%v", err)
		}
		r, err = buildCluster(ctx, o, sc, "", b.src, b.sets)
	}
	var died *DiedError
	if errors.As(err, &died) {
		return nil, err // the algorithm's code killed its worker
	}
	if err == nil && r.Timescale > maxFor {
		src := baseYAML(o.Algo, fencing, r.Timescale)
		if sc2, err := parse(o, b.name, src, b.sets); err == nil {
			b.src, sc = src, sc2
		}
	}
	return sc, nil
}

// pinSets pins the parameters the user's -set overrides name (as
// algorithm.KEY or NAME.KEY of the hunted algorithm); setting
// cluster.nodes fixes the cluster size.
func (b *base) pinSets(o *Options) {
	for _, s := range o.Sets {
		path, _, _ := strings.Cut(s, "=")
		if k, ok := strings.CutPrefix(strings.TrimSpace(path), "algorithm."); ok {
			b.pinned = append(b.pinned, k)
		}
		if k, ok := strings.CutPrefix(strings.TrimSpace(path), b.algo+"."); ok {
			b.pinned = append(b.pinned, k) // NAME.KEY of the hunted algorithm
		}
		if strings.TrimSpace(path) == "cluster.nodes" {
			b.nodes = false
		}
	}
}

// pinFileParams pins every parameter the file sets for the hunted
// algorithm: the user chose it. Under -algo over a file of another
// algorithm, the file's parameters the hunted one has are kept (and
// pinned); those it lacks are dropped, and said so.
func (b *base) pinFileParams(o *Options) error {
	sc, own := b.sc, b.sc
	if b.over != "" {
		var err error
		if own, err = sc.For(b.over); err != nil {
			return usagef("%v", err)
		}
		if d := sc.Dropped(b.over); len(d) > 0 && o.Progress != nil {
			fmt.Fprintf(o.Progress, "%s hunt: %s: dropped the file's %s settings %s does not take (%s); the others are kept\n",
				o.Program, sc.Name, sc.Algorithm.Name, b.over, strings.Join(d, ", "))
		}
	}
	for _, kv := range own.Algorithm.Params() {
		k, _, _ := strings.Cut(kv, "=")
		b.pinned = append(b.pinned, k) // the file sets it: the user chose it
	}
	return nil
}

// running is what the base runs under: -algo's algorithm over a file's
// own (its -set overrides then apply to it: scenario.ParseRunning).
func running(o *Options) []string {
	if o.Scenario != "" && o.Algo != "" {
		return []string{o.Algo}
	}
	return nil
}

// yamlOf is schedule scenario sc as a file that runs the hunted
// algorithm without -algo: with the override's own algorithm section
// (its values and -set overrides) in place of the file's.
func (b *base) yamlOf(sc *scenario.Scenario) []byte {
	if b.over != "" {
		if own, err := sc.For(b.over); err == nil {
			return own.YAML()
		}
	}
	return sc.YAML()
}

// setsFor returns the -set overrides of a schedule's configuration.
func (b *base) setsFor(nodes int, params []string) []string {
	out := append([]string(nil), b.sets...)
	if nodes > 0 {
		out = append(out, fmt.Sprintf("cluster.nodes=%d", nodes))
	}
	return append(out, params...)
}
