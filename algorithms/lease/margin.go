package lease

import (
	"fmt"
	"time"

	"github.com/electsim/electsim/registry"
)

// k8sDriftMargin is client-go's worst case under follower clock drift
// (registry.Algorithm.DriftMargin), for the k8s flavour. The leader's clock
// is exact; it is cut off the store right after a successful renewal,
// applied at the store at W and answered at S ≤ W + ℓmax.
//
//   - The leader keeps acting until its renew loop gives up:
//     leaderelection.go renew() runs wait.Until(…, RetryPeriod) — the next
//     round starts RetryPeriod after the last success returned — and each
//     round is bounded by context.WithTimeout(RenewDeadline). With
//     ReleaseOnCancel, release() then runs under another RenewDeadline
//     while the leader still acts. Last act: S + RetryPeriod + RenewDeadline
//     (+ RenewDeadline).
//   - A follower whose clock runs at rate r saw that record change no
//     earlier than W + ℓmin (observedTime, setObservedRecord) and
//     tryAcquireOrRenew refuses while observedTime + LeaseDuration is in
//     the future by its own clock: LeaseDuration / r of true time. Its
//     Update then needs a round trip: it acts at W + ℓmin +
//     LeaseDuration/r + 2ℓmin at the earliest. LeaseDuration is what the
//     record carries: whole seconds (LeaseDurationSeconds).
//
// Overlap ≤ RetryPeriod + RenewDeadline (+ RenewDeadline) − LeaseDuration/r
// + ℓmax − 3ℓmin, and none is possible while r ≤ LeaseDuration /
// (RetryPeriod + RenewDeadline (+ RenewDeadline) + ℓmax − 3ℓmin).
func k8sDriftMargin(v registry.Values, rate float64, latMin, latMax time.Duration) (registry.Margin, bool) {
	c := configOf(v)
	if c.Flavor != FlavorK8s || rate <= 0 {
		return registry.Margin{}, false
	}
	ld := c.LeaseDuration / time.Second * time.Second
	hold := c.RetryPeriod + c.RenewDeadline
	terms := []string{
		"RetryPeriod: leaderelection.go renew, wait.Until(…, RetryPeriod): the next round starts RetryPeriod after the last success",
		"RenewDeadline: leaderelection.go renew, context.WithTimeout(ctx, RenewDeadline) per round: the leader stops when it expires",
		"LeaseDuration/r: leaderelection.go tryAcquireOrRenew refuses while observedTime + LeaseDuration is after now, by the follower's own clock (LeaseDurationSeconds: whole seconds)",
		"ℓmax − 3ℓmin: the last renewal's answer reaches the leader up to ℓmax after the store applied it; the follower sees it, and its Update is answered, at least 3ℓmin later",
	}
	formula := fmt.Sprintf("overlap ≤ RetryPeriod %v + RenewDeadline %v", c.RetryPeriod, c.RenewDeadline)
	if c.ReleaseOnCancel {
		hold += c.RenewDeadline
		formula += fmt.Sprintf(" + release %v", c.RenewDeadline)
		terms = append(terms, "release: with ReleaseOnCancel, release() runs under another RenewDeadline before Run returns and the leader's context is cancelled")
	}
	slack := latMax - 3*latMin
	formula += fmt.Sprintf(" − LeaseDuration %v / r + (ℓmax − 3ℓmin) %v", ld, slack)
	overlap := hold + slack - time.Duration(float64(ld)/rate)
	safe := float64(ld) / float64(hold+slack)
	return registry.Margin{Overlap: max(overlap, 0), SafeRate: safe, Formula: formula, Terms: terms}, true
}
