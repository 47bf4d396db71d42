package sim

import (
	"fmt"
	"runtime/debug"
	"strings"
)

// Failure is what stopped a crashed run (OutcomeCrashed): a panic in a
// node's handler, or a call that broke the engine's contract. The engine
// recovers it at the run loop, so the same seed stops at the same event
// with the same Failure; only Stack depends on the binary.
type Failure struct {
	// At is the true time of the event that failed.
	At Time
	// Node is the node whose handler was running (None for a driver
	// callback: a fault, a nemesis), and NodeName its name ("" for None).
	Node     NodeID
	NodeName string
	// Handler says which call failed: "Start", "OnMessage(raft.Vote from
	// n2)", "OnTimer(tag=1)" or "control" (a driver callback).
	Handler string
	// Value is the panic value, formatted ("%v").
	Value string
	// Contract marks a call the engine refused (ContractError): a send to
	// an unknown node or of an unregistered kind, an oversized Persist;
	// false for the node's own panic.
	Contract bool
	// Stack is the failing goroutine's stack from the panic down to the
	// engine's run loop, without runtime frames or arguments: for people,
	// never parsed.
	Stack string
}

// String is the failure in one line, e.g. "n2 OnTimer(tag=1) panicked:
// runtime error: index out of range [3] with length 3".
func (f *Failure) String() string {
	verb := "panicked"
	if f.Contract {
		verb = "broke the engine's contract"
	}
	return fmt.Sprintf("%s %s %s: %s", f.who(), f.Handler, verb, f.Value)
}

func (f *Failure) who() string {
	if f.Node == None {
		return "driver"
	}
	return f.NodeName
}

// ContractError is the panic value of an Env call the engine refuses: the
// run stops at that call with OutcomeCrashed and a Failure marked
// Contract.
type ContractError struct {
	// Msg says what was refused, e.g. "n1 sent raft.Vote to unknown node 9".
	Msg string
}

func (e *ContractError) Error() string { return "sim: " + e.Msg }

// contract stops the current handler at a refused call.
func contract(format string, args ...any) {
	panic(&ContractError{Msg: fmt.Sprintf(format, args...)})
}

// guard runs Config.Guard's Check after a handler returned; its error
// stops the run there as a refused call would.
func (s *Sim) guard() {
	if s.cfg.Guard == nil {
		return
	}
	if err := s.cfg.Guard.Check(); err != nil {
		contract("%v", err)
	}
}

// budgetStop is the panic value a bound checked at the call that exceeds
// it uses to stop the handler: the run ends with that budget outcome, not
// as crashed.
type budgetStop Outcome

// recoverRun is run's deferred recover: a budget stop becomes that budget
// outcome; any other panic a Failure and OutcomeCrashed. A panic outside
// any handler call (an engine bug) is attributed to the driver.
func (s *Sim) recoverRun(o *Outcome) {
	if s.cfg.Beat != nil {
		s.cfg.Beat.Store(-1) // out of the loop: nothing for a watchdog to time
	}
	p := recover()
	if p == nil {
		return
	}
	if b, ok := p.(budgetStop); ok {
		s.outcome, *o = Outcome(b), Outcome(b)
		return
	}
	f := &Failure{At: s.now, Node: None, Handler: "control", Value: fmt.Sprint(p), Stack: trimStack(debug.Stack())}
	if ce, ok := p.(*ContractError); ok {
		f.Contract, f.Value = true, ce.Msg
	}
	s.attribute(f)
	s.failure = f
	s.booting = nil
	s.checkAt = 0
	s.outcome, *o = OutcomeCrashed, OutcomeCrashed
	if s.cfg.Guard != nil {
		s.cfg.Guard.Crashed(f)
	}
}

// attribute names the handler that failed: the node being started, else
// the one the entry being processed was for. (A panic in the engine's own
// handling of an entry, a bug, is attributed the same way.)
func (s *Sim) attribute(f *Failure) {
	var n *nodeState
	switch e := &s.ev; {
	case s.booting != nil:
		n, f.Handler = s.booting, "Start"
	case e.kind == evDeliver || e.kind == evLocal:
		m := &s.msgs[e.ref].m
		n, f.Handler = s.nodes[e.node], fmt.Sprintf("OnMessage(%v from %s)", m.Kind, s.NodeName(m.From))
	case e.kind == evTimer:
		n = s.nodes[e.node]
		f.Handler = "OnTimer(" + s.TimerName(n.id, s.firingTag) + ")"
	case e.kind == evDepart || e.kind == evPersistDone:
		n, f.Handler = s.nodes[e.node], "engine"
	}
	if n != nil {
		f.Node, f.NodeName = n.id, n.name
	}
}

// Failure returns what stopped a crashed run (nil unless the outcome is
// OutcomeCrashed).
func (s *Sim) Failure() *Failure { return s.failure }

// trimStack keeps a debug.Stack's frames from the panic to the engine's
// run loop, without the runtime's frames, argument values or offsets, so
// the same binary prints the same stack for the same failure.
func trimStack(b []byte) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	var out []string
	// After the "goroutine N [running]:" header, frames are pairs: the
	// function with its arguments, then "\tfile:line +0xoff".
	for i := 1; i+1 < len(lines); i += 2 {
		fn, loc := lines[i], strings.TrimSpace(lines[i+1])
		if k := strings.LastIndexByte(fn, '('); k > 0 {
			fn = fn[:k]
		}
		if strings.HasPrefix(fn, simPkg+".(*Sim).run") {
			break
		}
		if strings.HasPrefix(fn, "runtime.") || strings.HasPrefix(fn, "runtime/debug.") || fn == "panic" ||
			strings.HasPrefix(fn, simPkg+".(*Sim).recoverRun") || strings.HasPrefix(fn, simPkg+".contract") {
			continue
		}
		if k := strings.LastIndex(loc, " +0x"); k > 0 {
			loc = loc[:k]
		}
		out = append(out, fn+"\n\t"+loc)
	}
	return strings.Join(out, "\n")
}

// simPkg is this package's import path as stack frames name it.
const simPkg = "github.com/electsim/electsim/sim"
