package cron

import (
	"fmt"
	"time"

	"github.com/electsim/electsim/algorithms/lease"
	"github.com/electsim/electsim/sim"
)

// ShedLock time sources.
const (
	// ShedLockAppTime is ShedLock's default: lock_until and "now" come from
	// each node's own wall clock.
	ShedLockAppTime = "app"
	// ShedLockStoreTime is ShedLock's usingDbTime(): the store's clock decides.
	ShedLockStoreTime = "store"
)

// ShedLockConfig configures ShedLock mode (see NewShedLockNode).
type ShedLockConfig struct {
	// Store is the lease store node holding the lock rows.
	Store sim.NodeID
	// LockAtMostFor bounds how long a lock is held if its holder dies.
	// Default 10m.
	LockAtMostFor time.Duration
	// LockAtLeastFor keeps the lock held at least this long after the run
	// started, even if the run finished earlier. Default 0.
	LockAtLeastFor time.Duration
	// Time is ShedLockAppTime (default) or ShedLockStoreTime.
	Time string
}

func (c *ShedLockConfig) validate() error {
	switch c.Time {
	case "":
		c.Time = ShedLockAppTime
	case ShedLockAppTime, ShedLockStoreTime:
	default:
		return fmt.Errorf("shedlock time %q: want %s or %s", c.Time, ShedLockAppTime, ShedLockStoreTime)
	}
	if c.LockAtMostFor == 0 {
		c.LockAtMostFor = 10 * time.Minute
	}
	if c.LockAtMostFor < 0 || c.LockAtLeastFor < 0 {
		return fmt.Errorf("shedlock lock_at_most_for and lock_at_least_for must not be negative")
	}
	if c.LockAtLeastFor > c.LockAtMostFor {
		return fmt.Errorf("shedlock lock_at_least_for (%v) exceeds lock_at_most_for (%v)", c.LockAtLeastFor, c.LockAtMostFor)
	}
	return nil
}

// ShedLockNode runs the job table with no election at all, as ShedLock does:
// on every due slot the node tries to take the job's lock row at the store
// and runs the job only if it got it. The lock's "now" and lock_until are read
// from the node's wall clock (or the store's, with ShedLockStoreTime), so
// clock differences between nodes decide who may run.
type ShedLockNode struct {
	cfg     *Config
	env     sim.Env
	ex      executor
	pending []lockAttempt
	locks   []heldLock
	reqSeq  int64
}

type lockAttempt struct {
	id   int64
	job  int
	slot int64
	late time.Duration
	now  int64 // wall ns the lock was requested at
}

type heldLock struct {
	run      int64
	job      int
	lockedAt int64
}

// NewShedLockNode returns a ShedLock-mode node. cfg must have been validated.
func NewShedLockNode(cfg *Config) *ShedLockNode { return &ShedLockNode{cfg: cfg} }

// LockKey is the store key of a job's lock row.
func LockKey(job string) string { return "shedlock/" + job }

// Start implements sim.Node.
func (n *ShedLockNode) Start(env sim.Env, _ []byte) {
	*n = ShedLockNode{cfg: n.cfg, env: env}
	n.ex.onDue = n.due
	n.ex.onFinish = n.finished
	n.ex.start(n.cfg, env)
}

// OnTimer implements sim.Node.
func (n *ShedLockNode) OnTimer(id sim.TimerID, tag int) {
	if tag >= n.cfg.TagBase {
		n.ex.onTimer(id, tag)
	}
}

// OnMessage implements sim.Node.
func (n *ShedLockNode) OnMessage(m sim.Message) {
	if IsKind(m.Kind) {
		n.ex.onMessage(m)
		return
	}
	if rep := lease.ReplyOf(m); rep != nil && rep.Op == lease.OpLock {
		n.locked(rep)
	}
}

func (n *ShedLockNode) nextID() int64 {
	id := int64(n.env.Now())
	if id <= n.reqSeq {
		id = n.reqSeq + 1
	}
	n.reqSeq = id
	return id
}

// due tries to lock the job for this slot.
func (n *ShedLockNode) due(j int, slot int64, late time.Duration, last bool) {
	if !last || n.ex.hasStarted(j, slot) {
		return // a burst of slots after a clock jump: try only the latest
	}
	c := &n.cfg.ShedLock
	now := n.env.WallNanos()
	req := &lease.Request{ID: n.nextID(), Op: lease.OpLock, Key: LockKey(n.cfg.Jobs[j].Name),
		Holder: n.env.ID(), Identity: n.env.Name(),
		NowWallNs: now, UntilWallNs: now + int64(c.LockAtMostFor)}
	if c.Time == ShedLockStoreTime {
		req.StoreTime = true
		req.AtMostFor = c.LockAtMostFor
	}
	n.pending = append(n.pending, lockAttempt{id: req.ID, job: j, slot: slot, late: late, now: now})
	n.env.Send(lease.RequestMessage(c.Store, req))
}

func (n *ShedLockNode) locked(rep *lease.Reply) {
	for i, a := range n.pending {
		if a.id != rep.ID {
			continue
		}
		n.pending = append(n.pending[:i], n.pending[i+1:]...)
		name := n.cfg.Jobs[a.job].Name
		if !rep.OK {
			n.env.Effect(sim.Effect{Name: "cron.lock_skipped",
				Detail: fmt.Sprintf("%s: lock held by %s until %s", SlotName(name, a.slot), rep.Rec.HolderIdentity,
					time.Unix(0, rep.Rec.LockUntilWallNs).UTC().Format(time.RFC3339Nano)),
				B: a.slot, C: int64(a.job)})
			return
		}
		n.ex.startRun(a.job, a.slot, rep.Rec.Token, a.late)
		lockedAt := a.now
		if n.cfg.ShedLock.Time == ShedLockStoreTime {
			lockedAt = rep.Rec.LockedAtWallNs
		}
		n.locks = append(n.locks, heldLock{run: n.ex.lastRun, job: a.job, lockedAt: lockedAt})
		return
	}
}

// finished unlocks after a run: lock_until = max(now, locked_at + lockAtLeastFor),
// as ShedLock's LockConfiguration.getUnlockTime does.
func (n *ShedLockNode) finished(r *run) {
	for i, h := range n.locks {
		if h.run != r.id {
			continue
		}
		n.locks = append(n.locks[:i], n.locks[i+1:]...)
		c := &n.cfg.ShedLock
		now := n.env.WallNanos()
		until := h.lockedAt + int64(c.LockAtLeastFor)
		if until < now {
			until = now
		}
		req := &lease.Request{ID: n.nextID(), Op: lease.OpUnlock, Key: LockKey(n.cfg.Jobs[h.job].Name),
			Holder: n.env.ID(), Identity: n.env.Name(), NowWallNs: now, UntilWallNs: until}
		if c.Time == ShedLockStoreTime {
			req.StoreTime = true
			req.AtLeastFor = c.LockAtLeastFor
		}
		n.env.Send(lease.RequestMessage(c.Store, req))
		return
	}
}
