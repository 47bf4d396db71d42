package simrun

import "math"

// checkSeedRange refuses a sweep of n seeds from first that would pass the
// last seed, 2^64−1, and wrap to 0: the seeds would then repeat ones a
// sweep that starts at 0 runs, silently. from names where first came from
// (a flag, or the scenario or matrix file's seed).
func checkSeedRange(first uint64, n int, from string) error {
	if n > 1 && first > math.MaxUint64-uint64(n-1) {
		return usagef("%s %d with %d seeds runs past the last seed (2^64-1): start at most at %d", from, first, n, uint64(math.MaxUint64)-uint64(n-1))
	}
	return nil
}
