package sim

// HostAgent is a process that runs beside a node's on the same host and
// outlives it: a sidecar such as a Consul client agent, which stays up and
// keeps answering its cluster's failure detector while the application
// beside it is crashed or paused. It shares the node's network endpoint,
// so every link fault of the node (cut, loss, latency) is its fault too,
// while a crash or pause of the node is not.
//
// A node (or a wrapper exposing it through Inner() Node) that implements
// HostAgent gets the messages of host kinds (RegisterHostKind) here, with
// no regard to its process's state. The agent has no timers, clock, disk
// or state the engine keeps: it answers what it is sent.
type HostAgent interface {
	// OnHostMessage handles one delivered message of a host kind; h sends
	// from the host.
	OnHostMessage(h Host, m Message)
}

// Host is what a HostAgent may do: name its node and send from it. Env
// satisfies it, so a node can answer a host kind from its process alike.
type Host interface {
	// ID is the node the agent shares a host with.
	ID() NodeID
	// Send transmits m from the host over the node's links at once: it
	// never waits behind the process's disk writes or pause.
	Send(m Message)
}

// hostOf is the engine's Host for one node.
type hostOf struct{ n *nodeState }

// ID implements Host.
func (h hostOf) ID() NodeID { return h.n.id }

// Send implements Host.
func (h hostOf) Send(m Message) {
	s := h.n.s
	if m.To < 0 || int(m.To) >= len(s.nodes) {
		contract("%s's host agent sent %v to unknown node %d", h.n.name, m.Kind, m.To)
	}
	if int(m.Kind) >= MaxKinds || s.kindHash[m.Kind] == 0 {
		contract("%s's host agent sent unregistered message kind %d", h.n.name, uint16(m.Kind))
	}
	m.From = h.n.id
	s.stats.Sent[m.Kind]++
	s.transmit(&m)
}

// inner is the wrapper convention (cron's Scheduler, Colocated, …): a node
// that runs another node's protocol inside it names that node.
type inner interface{ Inner() Node }

// hostAgent finds the HostAgent of node, looking through wrappers.
func hostAgent(node Node) HostAgent {
	for node != nil {
		if a, ok := node.(HostAgent); ok {
			return a
		}
		w, ok := node.(inner)
		if !ok {
			return nil
		}
		node = w.Inner()
	}
	return nil
}
