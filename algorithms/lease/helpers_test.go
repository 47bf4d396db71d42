package lease

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/electsim/electsim/sim"
)

const (
	minLat = time.Millisecond
	maxLat = 10 * time.Millisecond
)

// cluster is k candidates n0..n(k-1) plus the store, added last.
type cluster struct {
	s     *sim.Sim
	rec   *sim.Recorder
	ids   []sim.NodeID
	nodes []*Node
	store sim.NodeID
	st    *Store
}

// newCluster builds k candidates with cfg; down lists candidates that start
// down (bring them up with s.Restart).
func newCluster(t testing.TB, seed uint64, k int, cfg Config, down ...int) *cluster {
	t.Helper()
	c := &cluster{rec: &sim.Recorder{}}
	c.s = sim.New(sim.Config{Seed: seed, MaxTime: 2 * time.Hour, Link: sim.LinkConfig{Latency: sim.Uniform(minLat, maxLat)}})
	c.s.AddSink(c.rec)
	for i := 0; i < k; i++ {
		c.ids = append(c.ids, sim.NodeID(i))
	}
	for i := 0; i < k; i++ {
		var opts []sim.NodeOption
		for _, d := range down {
			if d == i {
				opts = append(opts, sim.StartDown())
			}
		}
		nd := MustNew(cfg, c.ids, sim.NodeID(k))
		c.nodes = append(c.nodes, nd)
		c.s.AddNode(fmt.Sprintf("n%d", i), nd, opts...)
	}
	c.st = NewStore(StoreConfig{})
	c.store = c.s.AddNode("store", c.st, sim.Service())
	return c
}

// cutFromStore cuts both directions between node and the store only.
func (c *cluster) cutFromStore(id sim.NodeID) {
	c.s.Cut(id, c.store)
	c.s.Cut(c.store, id)
}

// records returns the recorded records of type typ (for node, or any node if
// node is sim.None) at or after from.
func (c *cluster) records(typ sim.RecordType, node sim.NodeID, from sim.Time) []sim.Record {
	var out []sim.Record
	for _, r := range c.rec.Records {
		if r.Type == typ && r.At >= from && (node == sim.None || r.Node == node) {
			out = append(out, r)
		}
	}
	return out
}

// effects returns the store's effects named name at or after from.
func (c *cluster) effects(name string, from sim.Time) []sim.Record {
	var out []sim.Record
	for _, r := range c.records(sim.RecEffect, c.store, from) {
		if r.Name == name {
			out = append(out, r)
		}
	}
	return out
}

// firstLead returns the first RecLead at or after from by a node other than
// except (sim.None: any).
func (c *cluster) firstLead(from sim.Time, except sim.NodeID) (sim.Record, bool) {
	for _, r := range c.records(sim.RecLead, sim.None, from) {
		if r.Node != except {
			return r, true
		}
	}
	return sim.Record{}, false
}

// firstStepDown returns node's first RecStepDown at or after from.
func (c *cluster) firstStepDown(node sim.NodeID, from sim.Time) (sim.Record, bool) {
	rs := c.records(sim.RecStepDown, node, from)
	if len(rs) == 0 {
		return sim.Record{}, false
	}
	return rs[0], true
}

// leader returns the single node acting as leader now, failing otherwise.
func (c *cluster) leader(t testing.TB) sim.NodeID {
	t.Helper()
	ls := c.s.Leaders()
	if len(ls) != 1 {
		t.Fatalf("t=%v: want exactly one leader, have %v\n%s", c.s.Now(), ls, c.timeline())
	}
	return ls[0]
}

// timeline renders observations and store effects, for failure messages.
func (c *cluster) timeline() string {
	var b strings.Builder
	for _, r := range c.rec.Records {
		switch r.Type {
		case sim.RecLead, sim.RecStepDown, sim.RecBelieve, sim.RecEffect, sim.RecFault, sim.RecPause, sim.RecResume, sim.RecCrash:
			fmt.Fprintf(&b, "%v %s %v peer=%d epoch=%d token=%d %s %s A=%d B=%d C=%d\n",
				r.At, c.s.NodeName(r.Node), r.Type, r.Peer, r.Epoch, r.Token, r.Name, r.Detail, r.A, r.B, r.C)
		}
	}
	return b.String()
}
