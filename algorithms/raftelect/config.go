package raftelect

import (
	"fmt"
	"time"

	"github.com/electsim/electsim/registry"
)

// Config holds the parameters of one Raft election node. Every node of a
// cluster may have its own Config (tests give nodes different timeouts or
// logs), but the timeouts are normally shared. Start from DefaultConfig: a
// Config literal that omits Persist disables persistence.
type Config struct {
	// ElectionTimeoutMin is the lower bound of the randomized election timeout
	// (Raft §5.2). It is also the CheckQuorum period and the leader lease a
	// follower honours before granting a PreVote (thesis §9.6, §6.2).
	// Default 150ms, the paper's recommendation (§9.3).
	ElectionTimeoutMin time.Duration
	// ElectionTimeoutMax is the upper bound of the randomized election timeout;
	// each wait draws uniformly from [ElectionTimeoutMin, ElectionTimeoutMax].
	// Default 300ms (§9.3). Equal bounds disable randomization (the §9.3
	// "150–150ms" case).
	ElectionTimeoutMax time.Duration
	// HeartbeatInterval is how often a leader sends empty AppendEntries.
	// It must be below ElectionTimeoutMin. Default 50ms.
	HeartbeatInterval time.Duration
	// Persist writes currentTerm and votedFor to stable storage before the node
	// answers or sends anything that depends on them (Figure 2, "Persistent
	// state on all servers"). Turning it off is a deliberate bug: a node that
	// crashes and restarts can vote twice in one term. Default true.
	Persist bool
	// PreVote enables the Pre-Vote phase (Ongaro's thesis §9.6): a node asks
	// for pre-votes at currentTerm+1 and only increments its term once a
	// majority would grant its vote. Default false (the paper's basic Raft).
	PreVote bool
	// CheckQuorum makes a leader step down when it has not heard from a
	// majority within ElectionTimeoutMin (thesis §6.2), and makes a node that
	// heard from a leader within ElectionTimeoutMin ignore RequestVote for a
	// higher term (thesis §4.2.3; etcd raft's inLease). Default false.
	CheckQuorum bool
	// TimerReset says when a node restarts its election timer: TimerFigure2
	// (the default) or TimerEtcd. The two differ when a node adopts a
	// higher term without hearing from a leader or granting a vote, and
	// when a (pre-)candidate loses its election.
	TimerReset TimerReset
	// LastLogTerm and LastLogIndex describe each node's (static) log by its
	// last entry, indexed by the node's position in the peers slice given to
	// New. They drive the election restriction (§5.4.1): a node votes only for
	// candidates whose log is at least as up-to-date as its own, so a node with
	// a shorter log can be made ineligible, as in the §9.3 experiment. nil
	// means every log is empty (term 0, index 0). A node starts at
	// currentTerm = its LastLogTerm. Default nil.
	LastLogTerm []int64
	// LastLogIndex is the index of each node's last log entry, indexed like
	// LastLogTerm. Default nil.
	LastLogIndex []int64

	// zooLeaderTwice is internal/bugzoo's planted CheckQuorum bug
	// (zoohook.go); always false outside its tests.
	zooLeaderTwice bool
	// zooPreVoteNoLease is internal/bugzoo's planted PreVote bug
	// (zoohook.go); always false outside its tests.
	zooPreVoteNoLease bool
}

// TimerReset is a rule for restarting the election timer (Config.TimerReset).
type TimerReset string

// The timer-reset rules.
const (
	// TimerFigure2 follows the paper's Figure 2 literally ("If election
	// timeout elapses without receiving AppendEntries RPC from current
	// leader or granting vote to candidate: convert to candidate"): only a
	// heartbeat from the current leader or a granted vote restarts the
	// timer. A node that adopts a higher term from a rejected vote request
	// keeps its running timer, and a candidate that loses keeps waiting.
	TimerFigure2 TimerReset = "figure2"
	// TimerEtcd is etcd raft's rule (raft.go): every becomeFollower calls
	// reset(term), which zeroes electionElapsed and draws a new randomized
	// timeout, so adopting a higher term from any message (a vote request
	// this node rejects included) restarts the timer, and so does losing a
	// pre-vote or vote (stepCandidate: quorum lost → becomeFollower).
	TimerEtcd TimerReset = "etcd"
)

// DefaultConfig returns the paper's parameters: election timeout 150–300ms,
// heartbeats every 50ms, persistence on, PreVote and CheckQuorum off, empty
// logs.
func DefaultConfig() Config {
	return Config{
		ElectionTimeoutMin: 150 * time.Millisecond,
		ElectionTimeoutMax: 300 * time.Millisecond,
		HeartbeatInterval:  50 * time.Millisecond,
		Persist:            true,
	}
}

// Validate reports the first invalid field.
func (c Config) Validate() error { return c.validate(registry.GoName) }

// validate is Validate with fields named by n (Build passes its scenario words).
func (c Config) validate(n registry.Namer) error {
	fail := func(fields []string, format string, args ...any) error {
		return registry.Fail("raftelect", fields, format, args...)
	}
	switch {
	case c.ElectionTimeoutMin <= 0:
		return fail([]string{"ElectionTimeoutMin"}, "%s must be positive, got %v", n("ElectionTimeoutMin"), c.ElectionTimeoutMin)
	case c.ElectionTimeoutMax < c.ElectionTimeoutMin:
		return fail([]string{"ElectionTimeoutMax", "ElectionTimeoutMin"}, "%s (%v) must be >= %s (%v)", n("ElectionTimeoutMax"), c.ElectionTimeoutMax, n("ElectionTimeoutMin"), c.ElectionTimeoutMin)
	case c.HeartbeatInterval <= 0:
		return fail([]string{"HeartbeatInterval"}, "%s must be positive, got %v", n("HeartbeatInterval"), c.HeartbeatInterval)
	case c.HeartbeatInterval >= c.ElectionTimeoutMin:
		return fail([]string{"HeartbeatInterval", "ElectionTimeoutMin"}, "%s (%v) must be below %s (%v), or followers time out between heartbeats", n("HeartbeatInterval"), c.HeartbeatInterval, n("ElectionTimeoutMin"), c.ElectionTimeoutMin)
	case c.TimerReset != "" && c.TimerReset != TimerFigure2 && c.TimerReset != TimerEtcd:
		return fail([]string{"TimerReset"}, "%s must be %q or %q, got %q", n("TimerReset"), TimerFigure2, TimerEtcd, c.TimerReset)
	case c.LastLogTerm != nil && c.LastLogIndex != nil && len(c.LastLogTerm) != len(c.LastLogIndex):
		return fail([]string{"LastLogTerm", "LastLogIndex"}, "%s has %d entries but %s has %d", n("LastLogTerm"), len(c.LastLogTerm), n("LastLogIndex"), len(c.LastLogIndex))
	}
	for i, v := range c.LastLogTerm {
		if v < 0 {
			return fail([]string{"LastLogTerm"}, "%s[%d] is negative (%d)", n("LastLogTerm"), i, v)
		}
	}
	for i, v := range c.LastLogIndex {
		if v < 0 {
			return fail([]string{"LastLogIndex"}, "%s[%d] is negative (%d)", n("LastLogIndex"), i, v)
		}
	}
	return nil
}

// validateFor additionally checks the per-peer slices against the cluster size.
func (c Config) validateFor(peers int) error {
	if err := c.Validate(); err != nil {
		return err
	}
	if c.LastLogTerm != nil && len(c.LastLogTerm) != peers {
		return fmt.Errorf("raftelect: LastLogTerm has %d entries for %d peers", len(c.LastLogTerm), peers)
	}
	if c.LastLogIndex != nil && len(c.LastLogIndex) != peers {
		return fmt.Errorf("raftelect: LastLogIndex has %d entries for %d peers", len(c.LastLogIndex), peers)
	}
	return nil
}
