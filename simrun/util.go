package simrun

import (
	"runtime/debug"
	"strconv"
)

func itoa(v int64) string   { return strconv.FormatInt(v, 10) }
func uitoa(v uint64) string { return strconv.FormatUint(v, 10) }

// simrunVersion is simrun's module version and, when the build recorded
// it, its VCS revision ("(devel) 1a2b3c4d5e6f+dirty").
func simrunVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := bi.Main.Version
	rev, dirty := "", false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if rev != "" {
		v += " " + rev
		if dirty {
			v += "+dirty"
		}
	}
	return v
}
