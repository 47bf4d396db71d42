package contracttest

import (
	"fmt"
	"os"
	"regexp"

	"github.com/electsim/electsim/scenario"
)

// algorithmLine is swarm.yaml's one-line algorithm block.
var algorithmLine = regexp.MustCompile(`(?m)^algorithm: .*$`)

// WithAlgorithm loads the scenario at path with its one-line algorithm
// block replaced by algorithm (a flow mapping such as
// "{name: lease, flavor: ttl}") and the -set style overrides applied: a
// shipped scenario written for one algorithm run under another's
// parameters, without editing the file.
func WithAlgorithm(path, algorithm string, sets []string) (*scenario.Scenario, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if !algorithmLine.Match(src) {
		return nil, fmt.Errorf("%s: no one-line algorithm block", path)
	}
	src = algorithmLine.ReplaceAll(src, []byte("algorithm: "+algorithm))
	return scenario.ParseWith(path, src, sets)
}

// cutOffLeader is the planted bug's stage: the leader isolated for a
// minute at 30 s, nothing else going wrong.
const cutOffLeader = `name: cut-off-leader
seed: 1
duration: 150s
cluster: {nodes: 3}
algorithm: %s
faults:
  - {at: 30s, partition: {shape: isolate, target: leader}, for: 60s}
settle: {for: 60s, leader_within: 60s}
expect:
  allow: [split_brain, leader_linearizability, liveness, election_safety]
`

// CutOffLeader is a three-node run of algorithm (a flow mapping) whose
// leader is isolated from every node and service from 30 s to 90 s.
func CutOffLeader(algorithm string) (*scenario.Scenario, error) {
	return scenario.Parse("cut-off-leader", []byte(fmt.Sprintf(cutOffLeader, algorithm)))
}
