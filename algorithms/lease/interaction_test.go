package lease

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/electsim/electsim/sim"
	"github.com/electsim/electsim/sim/simtest"
)

// TestInteraction runs the step-level scripts of testdata/*.txt: one k8s
// lease candidate driven by hand through sim/simtest, its store requests
// answered by the script. Each script names the client-go rule it checks
// (tools/leaderelection/leaderelection.go: tryAcquireOrRenew, renew,
// release). Rewrite after a deliberate change with
//
//	go test ./algorithms/lease -run TestInteraction -rewrite
func TestInteraction(t *testing.T) {
	simtest.RunScripts(t, "testdata", func() func(*datadriven.TestData) (string, error) { return (&leaseHarness{}).run })
}

// leaseHarness is candidate n1 of three (IDs 0..2) with the store at ID 3.
type leaseHarness struct {
	env  *simtest.Env
	node *Node
}

var harnessNames = []string{"n1", "n2", "n3", "store"}

func (h *leaseHarness) run(d *datadriven.TestData) (string, error) {
	if d.Cmd == "boot" {
		cfg := DefaultConfig()
		cfg.JitterFactor = 0 // fixed retry periods keep the scripts readable
		for _, a := range d.CmdArgs {
			if len(a.Vals) != 1 {
				return "", fmt.Errorf("boot: %s needs a value", a.Key)
			}
			dur, err := time.ParseDuration(a.Vals[0])
			if err != nil {
				return "", err
			}
			switch a.Key {
			case "lease-duration":
				cfg.LeaseDuration = dur
			case "renew-deadline":
				cfg.RenewDeadline = dur
			case "retry-period":
				cfg.RetryPeriod = dur
			default:
				return "", fmt.Errorf("boot: unknown argument %q", a.Key)
			}
		}
		h.env = simtest.New(0, harnessNames, 1)
		h.node = MustNew(cfg, []sim.NodeID{0, 1, 2}, 3)
		h.env.Boot(h.node)
		return h.env.Output() + h.state(), nil
	}
	if h.node == nil {
		return "", fmt.Errorf("boot first")
	}
	if d.Cmd == "reply" {
		r, err := h.reply(d)
		if err != nil {
			return "", err
		}
		h.env.Deliver(sim.Message{Kind: KindReply, From: 3, Body: r})
		return h.env.Output() + h.state(), nil
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

// reply answers the candidate's last request: reply [ok] [holder=n2]
// [transitions=1] [rev=5] [duration=15s] [renewed=10s] (the record's renew
// time, as a wall-clock offset from the run's start).
func (h *leaseHarness) reply(d *datadriven.TestData) (*Reply, error) {
	m, ok := h.env.LastSent()
	req, isReq := m.Body.(*Request)
	if !ok || !isReq {
		return nil, fmt.Errorf("no request to answer")
	}
	r := &Reply{ID: req.ID, Op: req.Op}
	rec := Record{Key: req.Key, Holder: sim.None, LeaseDurationNs: int64(15 * time.Second)}
	for _, a := range d.CmdArgs {
		val := ""
		if len(a.Vals) > 0 {
			val = a.Vals[0]
		}
		var err error
		switch a.Key {
		case "ok":
			r.OK, r.Found = true, true
		case "holder":
			rec.HolderIdentity = val
			var k int
			k, err = strconv.Atoi(strings.TrimPrefix(val, "n"))
			rec.Holder = sim.NodeID(k - 1)
		case "transitions":
			rec.Transitions, err = strconv.ParseInt(val, 10, 64)
			rec.Token = rec.Transitions
		case "rev":
			rec.Revision, err = strconv.ParseInt(val, 10, 64)
		case "duration":
			var dd time.Duration
			dd, err = time.ParseDuration(val)
			rec.LeaseDurationNs = int64(dd)
		case "renewed":
			var dd time.Duration
			dd, err = time.ParseDuration(val)
			rec.RenewTimeWallNs = sim.DefaultWallStart.Add(dd).UnixNano()
		default:
			return nil, fmt.Errorf("reply: unknown argument %q", a.Key)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %v", a.Key, err)
		}
	}
	switch {
	case r.OK && (req.Op == OpCreate || req.Op == OpUpdate):
		rec = req.Rec // the store wrote what was asked, at the next revision
		rec.Revision = req.Revision + 1
	case r.OK && rec.HolderIdentity == "":
		return nil, fmt.Errorf("reply ok to a Get needs holder=")
	}
	r.Rec = rec
	return r, nil
}

// state prints what the candidate believes after a step.
func (h *leaseHarness) state() string {
	leading := "no"
	if h.node.Leading() {
		leading = "yes"
	}
	return fmt.Sprintf("> leading=%s t=%v\n", leading, h.env.Now())
}
