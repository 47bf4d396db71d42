package contract_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/electsim/electsim/contract"
	"github.com/electsim/electsim/sim"
)

// A crash is class crash; a service's crash (its RecCrash carries
// FactServiceDown) is also service_down: the service stopped answering,
// as a store outage does.
func TestClassesOfCrash(t *testing.T) {
	cls, n := contract.ClassesOf(&sim.Record{Type: sim.RecCrash})
	assert.Equal(t, []contract.FaultClass{contract.Crash}, cls[:n])
	cls, n = contract.ClassesOf(&sim.Record{Type: sim.RecCrash, Fact: sim.FactServiceDown})
	assert.Equal(t, []contract.FaultClass{contract.Crash, contract.ServiceDown}, cls[:n])
}
