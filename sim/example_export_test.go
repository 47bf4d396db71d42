package sim_test

import (
	"fmt"
	"os"
	"time"

	"github.com/electsim/electsim/sim"
)

// exportExampleNode leads at start, runs one job after 5 ms of its own clock
// and steps down.
type exportExampleNode struct{ env sim.Env }

func (n *exportExampleNode) Start(env sim.Env, _ []byte) {
	n.env = env
	env.ActAsLeader(1, 100)
	env.SetTimer(5*time.Millisecond, 0)
}

func (n *exportExampleNode) OnMessage(sim.Message) {}

func (n *exportExampleNode) OnTimer(sim.TimerID, int) {
	n.env.Effect(sim.Effect{Name: "job.run", Detail: `backup "nightly"`, A: 1})
	n.env.StopLeading("done")
}

// ExampleJSONLWriter streams a run's trace as JSON lines: subscribe the writer
// before the run, Flush it after.
func ExampleJSONLWriter() {
	s := sim.New(sim.Config{Seed: 1})
	s.AddNode("n1", &exportExampleNode{})
	w := sim.NewJSONLWriter(os.Stdout, s)
	s.AddSink(w)
	s.RunFor(10 * time.Millisecond)
	s.End()
	if err := w.Flush(); err != nil {
		fmt.Println("write failed:", err)
	}
	// Output:
	// {"t_ns":0,"t":"0.000s","type":"start","node":"n1","mono_ns":0,"wall":"2026-01-01T00:00:00Z"}
	// {"t_ns":0,"t":"0.000s","type":"lead","node":"n1","epoch":1,"token":100,"mono_ns":0,"wall":"2026-01-01T00:00:00Z"}
	// {"t_ns":5000000,"t":"0.005s","type":"timer","node":"n1","b":1}
	// {"t_ns":5000000,"t":"0.005s","type":"effect","node":"n1","a":1,"mono_ns":5000000,"wall":"2026-01-01T00:00:00.005Z","name":"job.run","detail":"backup \"nightly\""}
	// {"t_ns":5000000,"t":"0.005s","type":"step_down","node":"n1","epoch":1,"token":100,"mono_ns":5000000,"wall":"2026-01-01T00:00:00.005Z","detail":"done"}
	// {"t_ns":10000000,"t":"0.010s","type":"end","a":2,"detail":"horizon"}
}
