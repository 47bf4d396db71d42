package reports

import (
	"slices"
	"strconv"
	"strings"
)

// noFailover lists the groups of algos with no completed failover, which
// the failover plots cannot draw: the figure says so in its title rather
// than let them vanish (issue 38 point 9).
func noFailover(algos []string, lat []latSample) []string {
	var out []string
	for i, a := range algos {
		if len(lat[i].vals) == 0 {
			out = append(out, a)
		}
	}
	return out
}

// noFailoverNote is the title's second line naming the groups without a
// completed failover ("" when every group has one); more than a few are
// counted rather than named.
func noFailoverNote(groups []string) string {
	switch {
	case len(groups) == 0:
		return ""
	case len(groups) > 4:
		return "\n" + strings.Join(groups[:3], ", ") + " and " + itoa(len(groups)-3) + " more groups: no completed failover, not drawn"
	}
	return "\n" + strings.Join(groups, ", ") + ": no completed failover, not drawn"
}

// sameCurves maps each group whose failover CDF is the same curve as an
// earlier group's (the same latencies, the same count) to that earlier
// group: overlaid, the later line would hide the earlier one, so its
// legend entry says so (issue 38 point 9).
func sameCurves(algos []string, lat []latSample) map[int]int {
	out := map[int]int{}
	for i := range algos {
		if len(lat[i].vals) == 0 {
			continue
		}
		xi, ci := lat[i].dist.Steps()
		for j := 0; j < i; j++ {
			if _, dup := out[j]; dup || len(lat[j].vals) == 0 || lat[j].total != lat[i].total {
				continue
			}
			xj, cj := lat[j].dist.Steps()
			if slices.Equal(xi, xj) && slices.Equal(ci, cj) {
				out[i] = j
				break
			}
		}
	}
	return out
}

func itoa(n int) string { return strconv.Itoa(n) }
