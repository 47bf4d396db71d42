package checker

import (
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/faults"
	"github.com/electsim/electsim/sim"
)

type idle struct{}

func (idle) Start(sim.Env, []byte)    {}
func (idle) OnMessage(sim.Message)    {}
func (idle) OnTimer(sim.TimerID, int) {}

// reachProbe is a sink that, after every record, compares the streaming
// checker's reachability with the engine's.
type reachProbe struct {
	t     *testing.T
	s     *sim.Sim
	k     *Checker
	n     int
	recs  int
	nets  int
	fails int
}

func (p *reachProbe) Record(r *sim.Record) {
	p.recs++
	if isNetFault(r) {
		p.nets++
	}
	for x := sim.NodeID(0); int(x) < p.n; x++ {
		for y := sim.NodeID(0); int(y) < p.n; y++ {
			if p.s.Reachable(x, y) != p.k.rp.net.ok(x, y) && p.fails < 5 {
				p.fails++
				p.t.Errorf("seed %d, record %d (%s %s at %v): checker says %v -> %v reachable=%v, engine %v",
					p.s.Seed(), p.recs, r.Name, r.Detail, r.At, x, y, p.k.rp.net.ok(x, y), p.s.Reachable(x, y))
			}
		}
	}
}

// reachPrograms is the number of random fault programs; REACH_PROGRAMS
// overrides it for a longer sweep.
func reachPrograms(t *testing.T) int {
	if v := os.Getenv("REACH_PROGRAMS"); v != "" {
		n, err := strconv.Atoi(v)
		require.NoError(t, err)
		return n
	}
	return 1000
}

// A metamorphic test of the typed network vocabulary: over random fault
// programs that use every path of the injector that changes links (timed
// reverts, overlapping partitions of every shape, heals, nemesis faults and
// their reverts, settle), the streaming checker's reachability equals the
// engine's after every record. Before the typed facts, a partition reverted
// with `for:` (sim.ConnectLinks) left the checker believing the links cut.
func TestReachFollowsInjector(t *testing.T) {
	programs := reachPrograms(t)
	shapes := []faults.PartitionShape{faults.ShapeIsolate, faults.ShapeMajorityMinority, faults.ShapeBridge, faults.ShapeOneWay, faults.ShapeGroups}
	totalNets := 0
	for seed := 0; seed < programs; seed++ {
		s := sim.New(sim.Config{Seed: uint64(seed)})
		const n = 5
		var ids []sim.NodeID
		for i := 0; i < n; i++ {
			ids = append(ids, s.AddNode(fmt.Sprintf("n%d", i+1), idle{}))
		}
		r := sim.NewRand(uint64(seed), "program")
		var fs []faults.Fault
		for i, k := 0, 2+r.Intn(6); i < k; i++ {
			at := faults.Dur(time.Duration(r.Intn(4000)) * time.Millisecond)
			f := faults.Fault{At: at}
			switch r.Intn(6) {
			case 0:
				f.Heal = &faults.Heal{}
			default:
				p := &faults.Partition{Shape: shapes[r.Intn(len(shapes))]}
				switch p.Shape {
				case faults.ShapeIsolate, faults.ShapeOneWay:
					t := faults.Nodes(ids[r.Intn(n)])
					p.Target = &t
				case faults.ShapeGroups:
					k := 1 + r.Intn(n-1)
					p.Groups = [][]faults.Target{{faults.Nodes(ids[:k]...)}, {faults.Nodes(ids[k:]...)}}
				}
				f.Partition = p
				if r.Intn(3) > 0 { // a timed revert; else it lasts until settle
					d := faults.Dur(time.Duration(1+r.Intn(3000)) * time.Millisecond)
					f.For = &d
				}
			}
			fs = append(fs, f)
		}
		var nem []faults.Nemesis
		if r.Intn(2) == 0 {
			nem = append(nem, faults.Nemesis{Kinds: []string{faults.KindPartition}, Every: faults.Between(200*time.Millisecond, time.Second),
				For: faults.Between(100*time.Millisecond, 2*time.Second), Targets: []faults.Target{faults.Random()}})
		}
		k := New(Input{Candidates: ids, Names: NamesOf(s)})
		s.AddSink(k)
		p := &reachProbe{t: t, s: s, k: k, n: n}
		s.AddSink(p)
		inj, err := faults.New(s, faults.Environment{Candidates: ids, Store: sim.None, Resource: sim.None}, fs, nem)
		require.NoError(t, err)
		s.RunUntil(sim.Time(5 * time.Second))
		inj.Settle(s.Now())
		s.RunFor(time.Second)
		s.End()
		totalNets += p.nets
		if t.Failed() {
			return
		}
		for x := sim.NodeID(0); x < n; x++ {
			for y := sim.NodeID(0); y < n; y++ {
				require.True(t, s.Reachable(x, y), "seed %d: settle restores every link", seed)
			}
		}
	}
	require.Greater(t, totalNets, programs*3, "the programs changed links")
}

// Every engine primitive records exactly the links it changed.
func TestReachFollowsEnginePrimitives(t *testing.T) {
	const n = 6
	s := sim.New(sim.Config{Seed: 3})
	var all []sim.NodeID
	for i := 0; i < n; i++ {
		all = append(all, s.AddNode(fmt.Sprintf("n%d", i+1), idle{}))
	}
	k := New(Input{Candidates: all, Names: NamesOf(s)})
	s.AddSink(k)
	p := &reachProbe{t: t, s: s, k: k, n: n}
	s.AddSink(p)
	rnd := s.Stream("faults")
	pick := func() []sim.NodeID {
		var g []sim.NodeID
		for _, id := range all {
			if rnd.Intn(2) == 0 {
				g = append(g, id)
			}
		}
		return g
	}
	for step := 0; step < 2000; step++ {
		a, b := sim.NodeID(rnd.Intn(n)), sim.NodeID(rnd.Intn(n))
		switch rnd.Intn(10) {
		case 0:
			s.Cut(a, b)
		case 1:
			s.Connect(a, b)
		case 2:
			s.Partition(pick(), pick())
		case 3:
			s.Isolate(a)
		case 4:
			s.OneWay(pick(), pick())
		case 5:
			s.Bridge(pick(), pick(), a)
		case 6:
			s.SplitMinority(all, rnd)
		case 7:
			s.Heal()
		case 8:
			s.ConnectLinks(sim.CrossLinks([][]sim.NodeID{pick(), pick()}))
		case 9:
			s.CutLinks(sim.OneWayLinks(pick(), pick()))
		}
	}
	require.Equal(t, 2000, p.nets)
}
