package bugzoo

import (
	"time"

	"github.com/electsim/electsim/registry"
	"github.com/electsim/electsim/sim"
)

// leaseBugs are the variants of the lease algorithm (client-go's
// LeaderElector).
func leaseBugs() []Bug {
	return []Bug{
		{
			Name: "zoo-k8s-late-stop", Base: "lease", Catches: "split_brain",
			Summary:  "a k8s lease holder's application stops acting one retry period after client-go's OnStoppedLeading (it polls IsLeader every RetryPeriod)",
			Citation: "kubernetes/kubernetes#44887 (\"not exit at once after renew failed\": the old leader acted past RenewDeadline while a new one acquired after LeaseDuration, two leaders); client-go tools/leaderelection renew(): OnStoppedLeading is the application's only safe stop signal",
			Scenario: "k8s-late-stop.yaml",
			wrap: onBase(func(f registry.Factory, v registry.Values) registry.Factory {
				delay := 2 * time.Second // client-go's RetryPeriod default
				if v.Has("retry_period") {
					delay = v.Duration("retry_period")
				}
				return wrapFactory(f, func(env sim.Env) layer { return &lateStop{Env: env, delay: delay} }, nil)
			}),
		},
		{
			Name: "zoo-redlock-half-quorum", Base: "lease", Catches: "split_brain",
			Summary:  "a Redlock client takes the lock on half the masters (2 of 5), the quorum computed from the masters it is connected to",
			Citation: "SPSCommerce/redlock-py#6 (quorum = len(connection_list)/2 + 1: a client connected to 3 of 5 servers locks 2 while another locks the other 3, both hold the lock); the Redlock spec, \"Distributed Locks with Redis\": lock the majority of N instances (at least N/2+1)",
			Scenario: "redlock-half-quorum.yaml",
			wrap: onBase(func(f registry.Factory, v registry.Values) registry.Factory {
				return hooked(f, func(nd sim.Node) {
					hook[interface{ ZooRedlockHalfQuorum() }](nd, "ZooRedlockHalfQuorum hook").ZooRedlockHalfQuorum()
				})
			}),
		},
	}
}

// lateStop passes the algorithm's step-down on delay later: the
// application keeps acting until then. A new tenure before the delay is
// up ends the old one first (the application cannot lead twice).
type lateStop struct {
	sim.Env
	delay   time.Duration
	timer   sim.TimerID
	pending bool
	why     string
}

func (l *lateStop) StopLeading(why string) {
	if l.pending {
		return
	}
	l.pending, l.why = true, why
	l.timer = l.Env.SetTimer(l.delay, zooTimerTag)
}

func (l *lateStop) ActAsLeader(epoch, token int64) {
	if l.pending {
		l.Env.CancelTimer(l.timer)
		l.pending = false
		l.Env.StopLeading(l.why)
	}
	l.Env.ActAsLeader(epoch, token)
}

func (l *lateStop) ownTimer(id sim.TimerID) bool {
	if !l.pending || id != l.timer {
		return false
	}
	l.pending = false
	l.Env.StopLeading(l.why)
	return true
}
