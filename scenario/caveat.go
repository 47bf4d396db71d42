package scenario

// Caveat says what the runs of sc under algo (its own algorithm when algo
// is "" or its own name) are not promised about two nodes acting as leader
// at once (contract.Contract.Caveat: "promises no exclusion under
// partition, loss"), from the parameters alone: no node is built, so a
// user algorithm's code does not run. Ranges are read at their minimum, as
// a run's contract reads them. Empty when the contract excuses overlaps
// only by faults of the nodes involved.
func (sc *Scenario) Caveat(algo string) string {
	if sc.noElection() {
		return "promises no exclusion at all: no election, each node takes the cron layer's lock itself"
	}
	spec := sc.Algorithm
	if algo != "" && algo != spec.Name {
		spec = AlgorithmSpec{Name: algo}
	}
	d := findAlgo(spec.Name)
	if d == nil {
		return ""
	}
	return d.ContractOf(spec.draw(nil, -1)).Resolve(networkLatency(sc)).Caveat()
}
