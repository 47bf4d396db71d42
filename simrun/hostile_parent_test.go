package simrun

import (
	"os"
	"time"

	"github.com/electsim/electsim/contract"
	"github.com/electsim/electsim/registry"
	"github.com/electsim/electsim/sim"
	"github.com/electsim/electsim/simrun/worker"
)

// hostileParent is a user's algorithm (no InProcess) whose code
// misbehaves only outside a worker process (worker.IsWorker false): a
// sweep's workers run its seeds without trouble, and the code that runs
// them again in the parent afterwards (the failing runs' explanations,
// the featured run, its shrink, a comparison's runs) or asks its own
// functions there (Contract, Token) meets the misbehaviour, as user code
// that is not deterministic across processes (a global counter, the
// environment) may (hostile_usercode_test.go). Its parameters:
//
//   - where: none; handler (its nodes' timer handler); rerun (its nodes'
//     timer handler, but only in a hunt worker process, which runs a
//     sweep's runs again: worker.HuntCmd); shrink (its
//     factory, in a cluster of fewer than 3 nodes: a shrink's trial);
//     contract (Contract); token (Token);
//   - how: exit (os.Exit(7)), block, panic (hostileMisbehave);
//   - fail: yes makes every run fail (a handler panics at 1 s of
//     simulated time, in any process: the run's crashed finding).
//
// Its nodes never lead. Its Token says an application addition, so the
// summary prints it.
const hostileParent = "hostile-parent"

// parentMisbehave misbehaves as how says when where is at and this
// process is not a worker.
func parentMisbehave(v registry.Values, at string) {
	if v.Has("where") && v.String("where") == at && !worker.IsWorker() {
		hostileMisbehave(v.String("how"))
	}
	if at == "handler" && v.Has("where") && v.String("where") == "rerun" && len(os.Args) > 1 && os.Args[1] == worker.HuntCmd {
		hostileMisbehave(v.String("how"))
	}
}

type parentNode struct {
	env  sim.Env
	v    registry.Values
	fail bool
}

func (n *parentNode) Start(env sim.Env, _ []byte) { n.env = env; n.tick() }

// tick sets the node's next timer.
func (n *parentNode) tick() { n.env.SetTimer(100*time.Millisecond, 1) }

func (n *parentNode) OnMessage(sim.Message) {}

func (n *parentNode) OnTimer(sim.TimerID, int) {
	if parentMisbehave(n.v, "handler"); n.fail && n.env.Now() >= time.Second {
		panic("hostile-parent: a bug")
	}
	n.tick()
}

func init() {
	registry.Default.MustRegister(registry.Algorithm{
		Name: hostileParent, Doc: "throwaway: a user algorithm that misbehaves only outside a worker process (hostile corpus)", Package: "hostileparent",
		Params: []registry.Param{
			{Key: "where", Kind: registry.Enum, Enum: []string{"none", "handler", "rerun", "shrink", "contract", "token"}, Doc: "where it misbehaves"},
			{Key: "how", Kind: registry.Enum, Enum: []string{"exit", "block", "panic"}, Doc: "how it misbehaves"},
			{Key: "fail", Kind: registry.Enum, Enum: []string{"no", "yes"}, Doc: "every run fails (a handler panics at 1 s)"},
		},
		Contract: func(v registry.Values) contract.Contract {
			parentMisbehave(v, "contract")
			return contract.Contract{}
		},
		Token: func(v registry.Values) registry.Token {
			parentMisbehave(v, "token")
			return registry.Token{Source: "hostile_rev", AppRead: true, Cost: "one read per term"}
		},
		Build: func(v registry.Values, candidates int, _ *sim.Rand) (registry.Factory, error) {
			fail := v.Has("fail") && v.String("fail") == "yes"
			return func([]sim.NodeID, registry.Services) sim.Node {
				if candidates < 3 {
					parentMisbehave(v, "shrink")
				}
				return &parentNode{v: v, fail: fail}
			}, nil
		},
	})
}

// hostileCaveat is a user's algorithm whose Contract calls os.Exit(7) in
// a worker process only: simrun list computes its default caveat in one
// (list_worker.go), which it kills (hostile_usercode_test.go).
const hostileCaveat = "hostile-caveat"

func init() {
	registry.Default.MustRegister(registry.Algorithm{
		Name: hostileCaveat, Doc: "throwaway: a user algorithm whose Contract kills a worker process (hostile corpus)", Package: "hostilecaveat",
		Contract: func(registry.Values) contract.Contract {
			if worker.IsWorker() {
				os.Exit(7)
			}
			return contract.Contract{}
		},
		Build: func(v registry.Values, _ int, _ *sim.Rand) (registry.Factory, error) {
			return func([]sim.NodeID, registry.Services) sim.Node { return &parentNode{v: v} }, nil
		},
	})
}
