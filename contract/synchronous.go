package contract

import "time"

// Synchronous is the contract of a classic election in the synchronous,
// crash-stop, reliable-network model (Garcia-Molina's bully, Chang &
// Roberts' and LeLann's rings): no two leaders at once and no epoch led
// twice, while every message arrives within half the algorithm's reply
// timeout T (one-way latency at most ⌊(T−1)/2⌋, so a round trip fits in
// T; a network that may be slower gets no promise: LatencyTerms.Assume).
// Every class outside the model is an exception: partition and loss
// anywhere; restart (crash-recovery; a crash alone is crash-stop, the
// model), disk_loss, pause, clock_rate (T shrinks below a round trip) and
// disk (a slow write holds a reply past T) on a node of the finding. Wall
// clocks are not read, so clock_step is none, nor is a link fault within
// the latency assumption. source names the model's papers.
func Synchronous(replyTimeout time.Duration, source string) Contract {
	outside := []FaultClass{Partition, Loss, Restart, DiskLoss, Pause, ClockRate, Disk}
	sync := LatencyTerms{Assume: (replyTimeout - 1) / 2}
	// A restarted node is outside the crash-stop model for as long as it
	// acts on what it remembered (an epoch behind the cluster's): its
	// restart excuses findings on it however long after (Lasting).
	lasting := []FaultClass{Restart, DiskLoss}
	return Contract{Guarantees: []Guarantee{
		{Check: "election_safety", Unless: outside, Lasting: lasting, Latency: sync, Source: source},
		{Check: "split_brain", Unless: outside, Lasting: lasting, Latency: sync, Source: source},
	}}
}
