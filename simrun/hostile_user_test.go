package simrun

import (
	"fmt"
	"os"
	"time"

	"github.com/electsim/electsim/registry"
	"github.com/electsim/electsim/sim"
)

// hostileAlgo is a user's algorithm (not built into electsim: no
// InProcess) that misbehaves as its "bug" parameter says, for the
// hostile corpus (hostile_workers_test.go). Its nodes never lead; each
// sets a timer every hostileTick and, at it:
//
//   - exit: os.Exit(0);
//   - forge: prints what a reply of an older simrun's hunt worker looked
//     like (a line with its marker) on stdout, then goes on;
//   - forge-exit: prints a sweep worker's announcement of seed 999 and
//     a progress line on stderr, then os.Exit(0);
//   - alloc: allocates (and touches) memory without bound;
//   - late-panic: panics once the simulated clock passes 900 s (a
//     finding whose shrink takes long: every trial runs to 900 s).
//
// and at its factory (while the run is built, before any handler):
//
//   - build-exit: os.Exit(7);
//   - build-block: never returns.
//
// and in its Build, which the scenario loader calls to check a file's
// parameters (before any run is built):
//
//   - validate-exit: os.Exit(7);
//   - validate-block: never returns;
//   - validate-refuse: refuses the configuration (an error).
const hostileAlgo = "hostile-user"

// hostileTick is the nodes' timer period.
const hostileTick = time.Millisecond

type hostileNode struct {
	env  sim.Env
	bug  string
	keep [][]byte
}

func (h *hostileNode) Start(env sim.Env, _ []byte) {
	h.env = env
	env.SetTimer(hostileTick, 1)
}

func (h *hostileNode) OnMessage(sim.Message) {}

func (h *hostileNode) OnTimer(sim.TimerID, int) {
	switch h.bug {
	case "exit":
		os.Exit(0)
	case "forge":
		fmt.Println(`@@simrun-hunt-reply@@ {"run":{"hash":"forged"`)
		fmt.Println(`@@simrun-hunt-reply@@ {"run":{"failure":["crashed"],"crash":"forged"}}`)
	case "alloc":
		for {
			b := make([]byte, 1<<20)
			for i := 0; i < len(b); i += 4096 {
				b[i] = 1
			}
			h.keep = append(h.keep, b)
		}
	case "forge-exit":
		// What a sweep worker told its parent on stderr until round
		// four: another seed's announcement and a progress line, then
		// the process's end.
		fmt.Fprintln(os.Stderr, "simrun: worker run 999 0 "+hostileAlgo)
		fmt.Fprintln(os.Stderr, "simrun: 1000/1000 runs, no failing runs")
		os.Exit(0)
	case "late-panic":
		if h.env.Now() >= 900*time.Second {
			panic("hostile-user: a late bug")
		}
	}
	h.env.SetTimer(hostileTick, 1)
}

func init() {
	bugs := []string{"none", "exit", "forge", "forge-exit", "alloc", "late-panic", "build-exit", "build-block", "validate-exit", "validate-block", "validate-refuse"}
	registry.Default.MustRegister(registry.Algorithm{
		Name: hostileAlgo, Doc: "throwaway: a user algorithm that misbehaves (hostile corpus)", Package: "hostileuser",
		Params: []registry.Param{{Key: "bug", Kind: registry.Enum, Enum: bugs, Doc: "how it misbehaves"}},
		Build: func(v registry.Values, _ int, _ *sim.Rand) (registry.Factory, error) {
			bug := "none"
			if v.Has("bug") {
				bug = v.String("bug")
			}
			switch bug { // Build itself: the loader's check of the file's parameters
			case "validate-exit":
				os.Exit(7)
			case "validate-block":
				var never chan struct{}
				<-never
			case "validate-refuse":
				return nil, fmt.Errorf("hostileuser: bug %q is refused", bug)
			}
			return func([]sim.NodeID, registry.Services) sim.Node {
				switch bug {
				case "build-exit":
					os.Exit(7)
				case "build-block":
					var never chan struct{}
					<-never
				}
				return &hostileNode{bug: bug}
			}, nil
		},
	})
}

// hostileBuiltin is an algorithm registered as built into electsim
// (InProcess: trusted, swept in simrun's own process) with a planted
// bug, for the supervising parent of hunts (issue 35 point 7,
// hostile_supervision_test.go): with bug "recurse" a node's timer
// handler recurses without end once the simulated clock passes 1 s,
// as the ring bug issue 35 planted did.
const hostileBuiltin = "hostile-builtin"

type recursingNode struct {
	env sim.Env
	bug string
}

func (n *recursingNode) Start(env sim.Env, _ []byte) {
	n.env = env
	env.SetTimer(100*time.Millisecond, 1)
}

func (n *recursingNode) OnMessage(sim.Message) {}

func (n *recursingNode) OnTimer(sim.TimerID, int) {
	if n.bug == "recurse" && n.env.Now() > time.Second {
		n.forward(0)
	}
	n.env.SetTimer(100*time.Millisecond, 1)
}

// forward is the planted bug: a relay that never reaches its end.
func (n *recursingNode) forward(hops int) int { return n.forward(hops+1) + 1 }

func init() {
	registry.Default.MustRegister(registry.Algorithm{
		Name: hostileBuiltin, Doc: "throwaway: a built-in algorithm with a planted recursion (hostile corpus)", Package: "hostilebuiltin",
		InProcess: true,
		Params:    []registry.Param{{Key: "bug", Kind: registry.Enum, Enum: []string{"none", "recurse"}, Doc: "the planted bug"}},
		Build: func(v registry.Values, _ int, _ *sim.Rand) (registry.Factory, error) {
			bug := "none"
			if v.Has("bug") {
				bug = v.String("bug")
			}
			switch bug { // Build itself: the loader's check of the file's parameters
			case "validate-exit":
				os.Exit(7)
			case "validate-block":
				var never chan struct{}
				<-never
			case "validate-refuse":
				return nil, fmt.Errorf("hostileuser: bug %q is refused", bug)
			}
			return func([]sim.NodeID, registry.Services) sim.Node { return &recursingNode{bug: bug} }, nil
		},
	})
}
