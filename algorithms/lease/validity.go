package lease

import "time"

// ValidityCheck is when the application holding a ttl or redlock lock
// compares its clock with the lock's validity. go-redsync (v4.17.0,
// mutex.go) computes the validity in lockContext and ExtendContext and
// exposes it as Mutex.Until; it starts no timer and stops nothing, so
// whether the holder stops acting when the validity runs out is the
// application's code.
type ValidityCheck string

// The validity checks.
const (
	// CheckNever: the application never looks at Until (the go-redsync
	// README's usage: Lock, do the work, Unlock). It stops acting only when
	// an extension fails (Extend returns false or ErrExtendFailed) or it
	// resigns.
	CheckNever ValidityCheck = "never"
	// CheckBeforeEachAction: the application compares its own clock with
	// Until() right before each action; a pause between the check and
	// the action (Kleppmann's GC story) still acts late. The holder
	// stops at the validity deadline, when it next runs.
	CheckBeforeEachAction ValidityCheck = "before_each_action"
	// CheckEvery: the application checks every Config.ValidityCheckInterval
	// from the start of its tenure and stops at the first check past
	// the validity deadline.
	CheckEvery ValidityCheck = "every"
)

// armValidity arms the holder's stop for validity until (its monotonic
// clock) as its application's check finds it: at until, at the first
// periodic check at or after until, or never.
func (n *Node) armValidity(until time.Duration) {
	now := n.env.Now()
	switch n.cfg.ValidityCheck {
	case CheckBeforeEachAction:
		n.arm(&n.validity, until-now, tagValidity)
	case CheckEvery:
		d := n.cfg.ValidityCheckInterval
		k := (until - n.leadAt + d - 1) / d // the first check at or after until
		n.arm(&n.validity, max(n.leadAt+k*d-now, 0), tagValidity)
	default:
		n.disarm(&n.validity)
	}
}
