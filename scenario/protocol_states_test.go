package scenario

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/faults"
	"github.com/electsim/electsim/registry"
	"github.com/electsim/electsim/sim"
)

// Every protocol state an algorithm declares (registry.Algorithm.States,
// docs/hunting.md "Protocol states") is reached in a run whose faults
// lead there — the leader cut off its store long enough to lose its
// session or lease, then the cluster heals — and a state trigger armed on
// each fires: a declared state nobody reaches would give hunt's state
// strategy a trigger that never fires.
func TestDeclaredStatesAreReached(t *testing.T) {
	cut := "faults:\n  - {at: 20s, partition: {shape: groups, groups: [[leader], [store, followers]]}, for: 40s}\n"
	// Consensus algorithms have no store: their leader is cut off the
	// followers.
	cutPeers := "faults:\n  - {at: 20s, partition: {shape: groups, groups: [[leader], [followers]]}, for: 40s}\n"
	cases := []struct{ name, algo string }{
		{"lease k8s", "{name: lease, flavor: k8s}"},
		{"lease ttl", "{name: lease, flavor: ttl}"},
		{"lease walltime", "{name: lease, flavor: walltime}"},
		{"lease redlock", "{name: lease, flavor: redlock, masters: 3}"},
		{"zookeeper", "{name: zookeeper, session_timeout: 10s}"},
		{"etcd", "{name: etcd}"},
		{"consul", "{name: consul, session_ttl: 10s, lock_delay: 15s}"},
		{"raft", "{name: raft}"},
		{"etcdraft", "{name: etcdraft}"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			schedule := cut
			if strings.Contains(c.algo, "raft") {
				schedule = cutPeers
			}
			src := "name: s\nduration: 150s\ncluster: {nodes: 3}\nalgorithm: " + c.algo + "\n" + schedule
			sc, err := Parse("s.yaml", []byte(src))
			require.NoError(t, err)
			d, ok := registry.Default.Lookup(sc.Algorithm.Name)
			require.True(t, ok)
			require.NotEmpty(t, d.States, "%s declares no protocol state", sc.Algorithm.Name)
			rec := &sim.Recorder{}
			_, err = sc.Run(RunOptions{Seed: 1, Recorder: rec})
			require.NoError(t, err)
			reached := make([]int, len(d.States))
			for _, r := range rec.Records {
				if r.Type == sim.RecEffect && r.Fact == sim.FactProtocolState {
					require.True(t, r.A >= 0 && int(r.A) < len(d.States), "state index %d out of range", r.A)
					reached[r.A]++
				}
			}
			for i, st := range d.States {
				assert.Positive(t, reached[i], "%s: state %s never reached", c.name, st)
			}

			// A trigger on each state fires: a pause of the node that reached it.
			for _, st := range d.States {
				trig := fmt.Sprintf("  - {after: {state: %s}, pause: event_node, for: 1ms}\n", st)
				sc, err := Parse("s.yaml", []byte(src+trig))
				require.NoError(t, err, st)
				r, err := sc.Run(RunOptions{Seed: 1, Recorder: &sim.Recorder{}})
				require.NoError(t, err, st)
				fired := 0
				for _, a := range r.Injector.Applied() {
					if a.Kind == faults.KindPause {
						fired++
					}
				}
				assert.Positive(t, fired, "%s: the trigger after %s never fired", c.name, st)
			}
		})
	}
}
