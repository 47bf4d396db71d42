package scenario

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/electsim/electsim/registry"
)

// loader collects errors while reading a file's tree.
type loader struct {
	file string
	errs Errors
	// faultHasAfter and inTrigger tell target reading whether event_node
	// can mean something.
	faultHasAfter bool
	inTrigger     bool
	// onAsked, if set, hears every key the loader knows at every mapping
	// it reads, and whether the mapping has it (the writer test's census).
	onAsked func(path, key string, present bool)
	// fencingAt is cron.policy's "fencing" entry, if any, for the check
	// that the algorithm hands its leaders a token (checkFencingToken).
	fencingAt *ynode
	// deferUser: call no code of an algorithm not built into electsim
	// (ParseOptions.DeferUserCode; userCode).
	deferUser bool
	// stores is the lease store count a worker reported for the file's
	// algorithm (ParseOptions.LeaseStores; setStoreCount).
	stores int
	// running are the algorithms the scenario is loaded to run under
	// (ParseRunning; by default the file's own), algoSets the overrides
	// of algorithm parameters (running.go).
	running  []string
	algoSets []algoSet
}

// userCode reports whether the loader may call def's own code now: always
// for electsim's algorithms, and for others unless the caller defers it
// to a worker process (ParseOptions.DeferUserCode).
func (l *loader) userCode(def *registry.Algorithm) bool {
	return def != nil && (def.InProcess || !l.deferUser)
}

func (l *loader) errAt(n *ynode, path, format string, args ...any) {
	e := &Error{File: l.file, Line: 1, Col: 1, Field: path, Msg: fmt.Sprintf(format, args...)}
	if n != nil {
		e.Line, e.Col = max(n.line, 1), max(n.col, 1)
		if n.set > 0 {
			e.File, e.arg = SetFile, n.set
		}
	}
	l.errs = append(l.errs, e)
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func index(path string, i int) string { return fmt.Sprintf("%s[%d]", path, i) }

// mapReader reads one mapping. Every key asked for is known; finish reports
// the keys present but never asked for, with a suggestion among the known.
type mapReader struct {
	l     *loader
	n     *ynode
	path  string
	asked []string
	ok    bool
}

// mapOf starts reading n as a mapping. A null node reads as an empty mapping.
func (l *loader) mapOf(n *ynode, path string) *mapReader {
	m := &mapReader{l: l, n: n, path: path, ok: true}
	if n == nil || n.kind == yNull {
		m.n = &ynode{kind: yMap, line: 1, col: 1}
		if n != nil {
			m.n.line, m.n.col, m.n.set = n.line, n.col, n.set
		}
		return m
	}
	if n.kind != yMap {
		l.errAt(n, path, "want a mapping, got %s", describe(n))
		m.ok = false
		m.n = &ynode{kind: yMap, line: n.line, col: n.col, set: n.set}
	}
	return m
}

func describe(n *ynode) string {
	if n.kind == yScalar {
		return fmt.Sprintf("%q", n.text)
	}
	return n.kind.String()
}

// get returns the value of key (nil if absent) and marks key known.
func (m *mapReader) get(key string) *ynode {
	m.asked = append(m.asked, key)
	for _, k := range m.n.keys {
		if k.name == key {
			return k.val
		}
	}
	return nil
}

// present reports whether key is in the mapping, without marking it known.
func (m *mapReader) present(key string) bool {
	for _, k := range m.n.keys {
		if k.name == key {
			return true
		}
	}
	return false
}

// has reports whether key is present (and marks it known).
func (m *mapReader) has(key string) bool { return m.get(key) != nil }

// keyNode returns a node positioned at the key itself, for errors about it.
func (m *mapReader) keyNode(key string) *ynode {
	for _, k := range m.n.keys {
		if k.name == key {
			return k.at()
		}
	}
	return m.n
}

// misspelt reports whether some key of the mapping looks like a
// misspelling of key (and will be reported as unknown with a suggestion),
// so a "missing" error about key would only repeat it.
func (m *mapReader) misspelt(key string) bool {
	for _, k := range m.n.keys {
		if k.name != key && suggest(k.name, []string{key}) != "" {
			return true
		}
	}
	return false
}

// finish reports unknown keys.
func (m *mapReader) finish() {
	if !m.ok {
		return
	}
	if m.l.onAsked != nil {
		for _, a := range m.asked {
			m.l.onAsked(m.path, a, m.present(a))
		}
	}
	for _, k := range m.n.keys {
		known := false
		for _, a := range m.asked {
			if a == k.name {
				known = true
				break
			}
		}
		if !known {
			cands := append([]string(nil), m.asked...)
			sort.Strings(cands)
			m.l.errAt(k.at(), join(m.path, k.name), "unknown field%s", suggest(k.name, cands))
		}
	}
}

func (m *mapReader) scalar(key string) (*ynode, string, bool) {
	n := m.get(key)
	if n == nil || n.kind == yNull {
		return n, "", false
	}
	if n.kind != yScalar {
		m.l.errAt(n, join(m.path, key), "want a single value, got %s", describe(n))
		return n, "", false
	}
	return n, strings.TrimSpace(n.text), true
}

// str reads a string.
func (m *mapReader) str(key string, out *string) bool {
	_, s, ok := m.scalar(key)
	if ok {
		*out = s
	}
	return ok
}

// oneOf reads a string that must be one of options.
func (m *mapReader) oneOf(key string, out *string, options ...string) bool {
	n, s, ok := m.scalar(key)
	if !ok {
		return false
	}
	for _, o := range options {
		if s == o {
			*out = s
			return true
		}
	}
	m.l.errAt(n, join(m.path, key), "%q is not one of %s%s", s, strings.Join(options, ", "), suggest(s, options))
	return false
}

// integer reads an int in [lo, hi].
func (m *mapReader) integer(key string, out *int, lo, hi int) bool {
	n, s, ok := m.scalar(key)
	if !ok {
		return false
	}
	v, err := strconv.Atoi(s)
	if err != nil {
		m.l.errAt(n, join(m.path, key), "want a whole number, got %q", s)
		return false
	}
	if v < lo || v > hi {
		m.l.errAt(n, join(m.path, key), "%d is out of range [%d, %d]", v, lo, hi)
		return false
	}
	*out = v
	return true
}

// uint64v reads a non-negative integer (seeds).
func (m *mapReader) uint64v(key string, out *uint64) bool {
	n, s, ok := m.scalar(key)
	if !ok {
		return false
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		m.l.errAt(n, join(m.path, key), "want a non-negative whole number, got %q", s)
		return false
	}
	*out = v
	return true
}

// boolean reads true or false.
func (m *mapReader) boolean(key string, out *bool) bool {
	n, s, ok := m.scalar(key)
	if !ok {
		return false
	}
	switch s {
	case "true":
		*out = true
	case "false":
		*out = false
	default:
		m.l.errAt(n, join(m.path, key), "want true or false, got %q", s)
		return false
	}
	return true
}

// parseDur parses a Go duration; "0" is allowed without a unit.
func parseDur(s string) (time.Duration, error) {
	d, why := parseDurWhy(s)
	if why != "" {
		return 0, fmt.Errorf("%q %s", s, why)
	}
	return d, nil
}

// parseDurWhy parses a Go duration, or says what is wrong with s (a
// predicate for a sentence whose subject is s).
func parseDurWhy(s string) (time.Duration, string) {
	if s == "0" {
		return 0, ""
	}
	d, err := time.ParseDuration(s)
	if err == nil {
		return d, ""
	}
	if _, ferr := strconv.ParseFloat(s, 64); ferr == nil {
		return 0, fmt.Sprintf("is not a duration: it has no unit (e.g. %ss or %sms)", s, s)
	}
	if t := strings.Join(strings.Fields(s), ""); t != s {
		if _, err := time.ParseDuration(t); err == nil {
			return 0, "is not a duration: write it without spaces, " + t
		}
	}
	return 0, "is not a duration (use Go syntax such as 150ms, 2s, 1m30s)"
}

// parseDurRange parses a duration or a range "a..b" (not checked for
// order or sign).
func parseDurRange(s string) (lo, hi time.Duration, err error) {
	a, b, isRange := splitRange(s)
	if !isRange {
		lo, err = parseDur(s)
		return lo, lo, err
	}
	lo, whyA := parseDurWhy(a)
	hi, whyB := parseDurWhy(b)
	switch {
	case whyA != "":
		return 0, 0, fmt.Errorf("%q is not a duration range: its min %q %s", s, a, whyA)
	case whyB != "":
		return 0, 0, fmt.Errorf("%q is not a duration range: its max %q %s", s, b, whyB)
	}
	return lo, hi, nil
}

// splitRange splits "a..b" into its ends; a single value is both ends.
func splitRange(s string) (lo, hi string, isRange bool) {
	if i := strings.Index(s, ".."); i >= 0 {
		return strings.TrimSpace(s[:i]), strings.TrimSpace(s[i+2:]), true
	}
	return s, s, false
}

// durRange reads a duration or a range "a..b" (min <= max). signed allows
// negative values (clock offsets).
func (m *mapReader) durRange(key string, lo, hi *time.Duration, signed bool) bool {
	n, s, ok := m.scalar(key)
	if !ok {
		return false
	}
	da, db, err := parseDurRange(s)
	if err != nil {
		m.l.errAt(n, join(m.path, key), "%v", err)
		return false
	}
	if !signed && (da < 0 || db < 0) {
		m.l.errAt(n, join(m.path, key), "%q must not be negative", s)
		return false
	}
	if db < da {
		m.l.errAt(n, join(m.path, key), "range %q has min > max", s)
		return false
	}
	if signed && (da < -MaxClockShift || db > MaxClockShift) {
		m.l.errAt(n, join(m.path, key), "%q is out of range: a clock is shifted by at most ±%s (10 years)", s, fmtDur(MaxClockShift))
		return false
	}
	*lo, *hi = da, db
	return true
}

// MaxClockShift bounds clock offsets and steps, MaxRunTime a run's
// duration plus settle phase, and MinStartYear/MaxStartYear the start
// time: together with clock rates of at most 1000 they keep every wall
// clock inside Unix-nanosecond time (1678–2262).
const (
	MaxClockShift = 10 * 8760 * time.Hour
	MaxRunTime    = 1000 * time.Hour
	MinStartYear  = 1970
	MaxStartYear  = 2100
)

// dur reads a single non-negative duration (no range).
func (m *mapReader) dur(key string, out *time.Duration) bool {
	n, s, ok := m.scalar(key)
	if !ok {
		return false
	}
	if _, _, isRange := splitRange(s); isRange {
		m.l.errAt(n, join(m.path, key), "want a single duration here, not a range")
		return false
	}
	d, err := parseDur(s)
	if err != nil {
		m.l.errAt(n, join(m.path, key), "%v", err)
		return false
	}
	if d < 0 {
		m.l.errAt(n, join(m.path, key), "%q must not be negative", s)
		return false
	}
	*out = d
	return true
}

// floatRange reads a number or range "a..b" within [lo, hi].
func (m *mapReader) floatRange(key string, outLo, outHi *float64, lo, hi float64) bool {
	n, s, ok := m.scalar(key)
	if !ok {
		return false
	}
	a, b, _ := splitRange(s)
	fa, errA := strconv.ParseFloat(a, 64)
	fb, errB := strconv.ParseFloat(b, 64)
	if errA != nil || errB != nil || math.IsNaN(fa) || math.IsNaN(fb) {
		m.l.errAt(n, join(m.path, key), "want a number or a range a..b, got %q", s)
		return false
	}
	if fa < lo || fb > hi || fa > hi || fb < lo {
		m.l.errAt(n, join(m.path, key), "%q is out of range [%g, %g]", s, lo, hi)
		return false
	}
	if fb < fa {
		m.l.errAt(n, join(m.path, key), "range %q has min > max", s)
		return false
	}
	*outLo, *outHi = fa, fb
	return true
}

// probability reads a single number in [0, 1] (nil if absent or bad).
func (m *mapReader) probability(key string) *float64 {
	var lo, hi float64
	if !m.floatRange(key, &lo, &hi, 0, 1) {
		return nil
	}
	if lo != hi {
		m.l.errAt(m.get(key), join(m.path, key), "want a single probability here, not a range")
		return nil
	}
	return &lo
}

// list returns the items of a list value (nil if absent). A scalar where a
// list is wanted is an error.
func (m *mapReader) list(key string) []*ynode {
	n := m.get(key)
	if n == nil || n.kind == yNull {
		return nil
	}
	if n.kind != ySeq {
		m.l.errAt(n, join(m.path, key), "want a list, got %s", describe(n))
		return nil
	}
	return n.items
}

// strings reads a list of strings; a single string is a one-item list.
func (m *mapReader) strList(key string) ([]string, []*ynode) {
	n := m.get(key)
	if n == nil || n.kind == yNull {
		return nil, nil
	}
	if n.kind == yScalar {
		return []string{strings.TrimSpace(n.text)}, []*ynode{n}
	}
	if n.kind != ySeq {
		m.l.errAt(n, join(m.path, key), "want a list of names, got %s", describe(n))
		return nil, nil
	}
	var out []string
	for i, it := range n.items {
		if it.kind != yScalar {
			m.l.errAt(it, index(join(m.path, key), i), "want a name, got %s", describe(it))
			continue
		}
		out = append(out, strings.TrimSpace(it.text))
	}
	return out, n.items
}

// fmtDur formats a duration without trailing zero units (2000h, 1m, 1m30s).
func fmtDur(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = s[:len(s)-2]
	}
	if strings.HasSuffix(s, "h0m") {
		s = s[:len(s)-2]
	}
	return s
}
