package simrun

// etaEstimator estimates a sweep's time left from how many runs finished
// when (elapsed seconds, runs done), robust to heavy-tailed run times: the
// first runs to finish are the fast ones (the slow ones still hold their
// workers), so the rate since the start overstates the rate to come. It
// takes the slower of the rate since the start and the rate over the
// latest half of the elapsed time, so a sweep that slows down shows it
// within that half, and a fast start does not make a short ETA. Memory is
// bounded: at most maxSamples observations, thinned evenly when full.
type etaEstimator struct {
	samples []etaSample
}

type etaSample struct {
	el float64
	n  int
}

const maxSamples = 128

// observe records that n runs were done after el seconds.
func (e *etaEstimator) observe(el float64, n int) {
	if k := len(e.samples); k > 0 && e.samples[k-1].el == el {
		e.samples[k-1].n = n
		return
	}
	if len(e.samples) == maxSamples {
		// Keep every other sample: the history stays spread over the
		// whole sweep at half the density.
		for i := 0; i < maxSamples/2; i++ {
			e.samples[i] = e.samples[2*i]
		}
		e.samples = e.samples[:maxSamples/2]
	}
	e.samples = append(e.samples, etaSample{el, n})
}

// left is the seconds left to finish total runs, or -1 when nothing says
// yet (no run done, no time elapsed).
func (e *etaEstimator) left(total int) float64 {
	if len(e.samples) == 0 {
		return -1
	}
	now := e.samples[len(e.samples)-1]
	if now.el <= 0 || now.n <= 0 {
		return -1
	}
	rate := float64(now.n) / now.el
	// The latest half: from the first sample at or after half the
	// elapsed time (there is one: the latest).
	for _, s := range e.samples {
		if s.el >= now.el/2 && s.el < now.el {
			// Nothing finished in that window: at best one is about to.
			recent := float64(max(now.n-s.n, 1)) / (now.el - s.el)
			rate = min(rate, recent)
			break
		}
	}
	return float64(total-now.n) / rate
}
