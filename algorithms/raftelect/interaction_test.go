package raftelect_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/electsim/electsim/algorithms/raftelect"
	"github.com/electsim/electsim/sim"
	"github.com/electsim/electsim/sim/simtest"
)

// TestInteraction runs the step-level scripts of testdata/*.txt: one node
// driven by hand through sim/simtest, every action it takes printed. Each
// script names the rule it checks (Raft paper Figure 2 and §5.2, §5.4.1;
// Ongaro's thesis §9.6 PreVote, §6.2 and §4.2.3 CheckQuorum). Rewrite the
// expected output after a deliberate change with
//
//	go test ./algorithms/raftelect -run TestInteraction -rewrite
//
// and review the diff.
func TestInteraction(t *testing.T) {
	simtest.RunScripts(t, "testdata", func() func(*datadriven.TestData) (string, error) { return (&harness{}).run })
}

// harness is one script's node: n<node> of a cluster of peers nodes.
type harness struct {
	env   *simtest.Env
	node  *raftelect.Node
	ids   []sim.NodeID
	names []string
}

func (h *harness) run(d *datadriven.TestData) (string, error) {
	switch d.Cmd {
	case "boot":
		return h.boot(d)
	}
	if h.node == nil {
		return "", fmt.Errorf("boot first")
	}
	out, handled, err := h.env.Step(d, h.node)
	if !handled {
		return "", fmt.Errorf("unknown command %q", d.Cmd)
	}
	if err != nil || d.Cmd == "timers" {
		return out, err
	}
	return out + h.state(), nil
}

// boot node=1 peers=3 [timeout=150ms..300ms] [prevote] [check-quorum]
// [log=term/index,...] [no-persist] [timer-reset=figure2|etcd]
func (h *harness) boot(d *datadriven.TestData) (string, error) {
	node, peers := 1, 3
	cfg := raftelect.DefaultConfig()
	cfg.ElectionTimeoutMin, cfg.ElectionTimeoutMax = 150*time.Millisecond, 150*time.Millisecond
	for _, a := range d.CmdArgs {
		val := ""
		if len(a.Vals) > 0 {
			val = a.Vals[0]
		}
		var err error
		switch a.Key {
		case "node":
			node, err = strconv.Atoi(val)
		case "peers":
			peers, err = strconv.Atoi(val)
		case "timeout":
			lo, hi, _ := strings.Cut(val, "..")
			if hi == "" {
				hi = lo
			}
			if cfg.ElectionTimeoutMin, err = time.ParseDuration(lo); err == nil {
				cfg.ElectionTimeoutMax, err = time.ParseDuration(hi)
			}
		case "prevote":
			cfg.PreVote = true
		case "check-quorum":
			cfg.CheckQuorum = true
		case "no-persist":
			cfg.Persist = false
		case "timer-reset":
			cfg.TimerReset = raftelect.TimerReset(val)
		case "log":
			for _, v := range strings.Split(strings.Join(a.Vals, ","), ",") {
				term, index, _ := strings.Cut(v, "/")
				tt, e1 := strconv.ParseInt(term, 10, 64)
				ii, e2 := strconv.ParseInt(index, 10, 64)
				if e1 != nil || e2 != nil {
					return "", fmt.Errorf("log: want term/index, got %q", v)
				}
				cfg.LastLogTerm = append(cfg.LastLogTerm, tt)
				cfg.LastLogIndex = append(cfg.LastLogIndex, ii)
			}
		default:
			return "", fmt.Errorf("boot: unknown argument %q", a.Key)
		}
		if err != nil {
			return "", fmt.Errorf("%s: %v", a.Key, err)
		}
	}
	h.ids, h.names = nil, nil
	for i := 0; i < peers; i++ {
		h.ids = append(h.ids, sim.NodeID(i))
		h.names = append(h.names, fmt.Sprintf("n%d", i+1))
	}
	h.env = simtest.New(sim.NodeID(node-1), h.names, 1)
	h.node = raftelect.MustNew(cfg, h.ids)
	h.env.Boot(h.node)
	return h.env.Output() + h.state(), nil
}

// state prints the node's Figure 2 state after a step.
func (h *harness) state() string {
	voted := "none"
	if v := h.node.VotedFor(); v != sim.None {
		voted = h.names[v]
	}
	leader := "none"
	if l := h.node.Leader(); l != sim.None {
		leader = h.names[l]
	}
	return fmt.Sprintf("> term=%d voted=%s role=%v leader=%s\n", h.node.Term(), voted, h.node.Role(), leader)
}
