package scenario

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
)

// LoadWith reads a scenario file like Load, with -set overrides applied.
// Each override is "path=value": path is dotted with list indices
// (cluster.nodes, algorithm.election_timeout, faults[0].for, faults[+] to
// append), value is a YAML flow value (7, 150ms..300ms, [fencing],
// {dist: constant, min: 5ms}). The values are spliced into the file's tree
// before it is read, so they are validated exactly like the file; errors in
// them carry File "-set", Line 1 and the column within the argument.
func LoadWith(path string, sets []string) (*Scenario, error) {
	src, err := ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseWith(path, src, sets)
}

// ParseWith reads scenario source like Parse, with -set overrides applied
// (see LoadWith).
func ParseWith(name string, src []byte, sets []string) (*Scenario, error) {
	return parse(name, src, sets, nil, ParseOptions{})
}

// ParseOptions change what the loader does.
type ParseOptions struct {
	// DeferUserCode keeps the loader from calling the code of an
	// algorithm not built into electsim (registry.Algorithm.InProcess
	// unset): its Build, which validates the file's parameters at both
	// ends of every range, and its Token, for cron.policy [fencing]. A
	// process that runs such an algorithm only in worker processes
	// (simrun's isolation) reads the file so, and has a worker load it
	// in full (ParseWith) before it trusts it: user code that exits,
	// blocks or overflows its stack while it validates kills that
	// worker, not the process that reads the file. The scenario it
	// returns is checked in every other respect.
	DeferUserCode bool
	// Running are the algorithms a sweep runs the file under (simrun
	// -algo; nil: the file's own): -set applies to them (running.go,
	// ParseRunning).
	Running []string
	// LeaseStores is how many lease store nodes runs of the file's own
	// algorithm have, as a worker process that read the file in full
	// reported it (hunt.ClusterResult.LeaseStores; 0: not known). With
	// DeferUserCode the loader does not call a user algorithm's
	// registry.Algorithm.LeaseStores; without this count the scenario
	// it returns is Scenario.LeaseStoresPending (leasestores.go).
	LeaseStores int
}

// ParseWithOptions is ParseWith with options.
func ParseWithOptions(name string, src []byte, sets []string, o ParseOptions) (*Scenario, error) {
	return parse(name, src, sets, nil, o)
}

// LoadWithOptions is LoadWith with options.
func LoadWithOptions(path string, sets []string, o ParseOptions) (*Scenario, error) {
	src, err := ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseWithOptions(path, src, sets, o)
}

// parseWith is ParseWith with an optional hook that hears every key the
// loader knows at every mapping it reads, and whether the mapping has it.
func parseWith(name string, src []byte, sets []string, onAsked func(path, key string, present bool), o ParseOptions) (*Scenario, error) {
	return parse(name, src, sets, onAsked, o)
}

// parse is ParseWithOptions with parseWith's hook.
func parse(name string, src []byte, sets []string, onAsked func(path, key string, present bool), o ParseOptions) (*Scenario, error) {
	running := o.Running
	root, perr := parseYAML(name, src, MaxFileBytes)
	if perr != nil {
		return nil, Errors{perr}
	}
	if n := mapGet(root, "scenarios"); n != nil && mapGet(root, "algorithms") != nil {
		// A comparison matrix read as a scenario would be a dozen
		// unknown-field errors; one sentence says what it is instead.
		return nil, Errors{{File: name, Line: max(n.line, 1), Col: max(n.col, 1), Field: "scenarios",
			Msg: "this is a comparison matrix (algorithms × scenarios), not a scenario: run it with simrun -matrix " + name + ", or give -scenario one of the scenarios it lists"}}
	}
	// An override that cannot be spliced is reported and left out; the
	// file is still read with the others, so every error shows at once.
	l := &loader{file: name, onAsked: onAsked, deferUser: o.DeferUserCode, stores: o.LeaseStores}
	if len(sets) > MaxSets {
		return nil, Errors{{File: SetFile, Line: 1, Col: 1, Msg: fmt.Sprintf("%d -set overrides, at most %d (MaxSets)", len(sets), MaxSets)}}
	}
	for i, arg := range sets {
		// NAME.KEY overrides wait for NAME's own section (running.go).
		if s, ok, _ := classifySet(arg, i+1); ok {
			l.algoSets = append(l.algoSets, s)
			if s.algo != "" {
				continue
			}
		}
		if e := applySet(&root, arg, i+1); e != nil {
			l.errs = append(l.errs, e)
		}
	}
	l.running = running
	if len(running) == 0 {
		if own := fileAlgorithm(root); findAlgo(own) != nil {
			l.running = []string{own}
		}
	}
	l.checkAlgoSets()
	sc := l.readScenario(root)
	if len(l.errs) > 0 {
		return nil, l.errs.sorted()
	}
	sc.File = name
	sc.Sets = append([]string(nil), sets...)
	sum := sha256.Sum256(src)
	sc.SourceSHA256 = hex.EncodeToString(sum[:])
	return sc, nil
}

// setSeg is one step of an override path: a mapping key, a list index, or
// an append ([+]).
type setSeg struct {
	key    string // "" for an index
	index  int
	append bool
	col    int    // 1-based column in the argument
	path   string // the path up to and including this step
}

// applySet splices one override into the tree. arg is the override's
// number (1-based), which positions its nodes. An override that fails
// leaves the tree untouched: it is first walked without changing anything
// (spliceSet with dry set), then applied, so each override costs the
// length of its path and value, not the size of the tree (copying the tree
// per override made N appends quadratic: 20,000 took over 30 s).
func applySet(root **ynode, arg string, no int) *Error {
	segs, val, e := parseSet(arg, no)
	if e != nil {
		return e
	}
	if e := spliceSet(root, segs, val, no, true); e != nil {
		return e
	}
	return spliceSet(root, segs, val, no, false)
}

// setFail makes the error of override no.
func setFail(no int) func(col int, field, format string, a ...any) *Error {
	return func(col int, field, format string, a ...any) *Error {
		return &Error{File: SetFile, Line: 1, Col: max(col, 1), Field: field, Msg: fmt.Sprintf(format, a...), arg: no}
	}
}

// parseSet parses override no, "path=value", into its path and value.
func parseSet(arg string, no int) ([]setSeg, *ynode, *Error) {
	fail := setFail(no)
	eq := strings.IndexByte(arg, '=')
	if eq < 0 {
		return nil, nil, fail(1, "", "%q: want path=value, e.g. cluster.nodes=7 or faults[0].for=5s", arg)
	}
	path := arg[:eq]
	segs, err := parseSetPath(path, no)
	if err != nil {
		return nil, nil, err
	}
	value := arg[eq+1:]
	if strings.ContainsAny(value, "\n\r") {
		return nil, nil, fail(eq+2, path, "a -set value is one line")
	}
	val, perr := parseYAML(SetFile, []byte(value), MaxSetBytes)
	if perr != nil {
		perr.Line, perr.Col, perr.Field, perr.arg = 1, perr.Col+eq+1, path, no
		return nil, nil, perr
	}
	retag(val, no, eq+1)
	return segs, val, nil
}

// spliceSet puts val where segs name. With dry it changes nothing and
// only reports the error the splice would meet: every change a real splice
// would make to an existing node is made to a detached one instead.
func spliceSet(root **ynode, segs []setSeg, val *ynode, no int, dry bool) *Error {
	fail := setFail(no)

	// An empty value removes what the path names ("empty is null, as if
	// absent"): a mapping key is dropped, a list entry taken out.
	last := segs[len(segs)-1]
	if val.kind == yNull && !last.append {
		cur, e := walkSet(root, segs[:len(segs)-1], no, dry, fail)
		if e != nil {
			return e
		}
		n := *cur
		parent := "the scenario"
		if len(segs) > 1 {
			parent = segs[len(segs)-2].path
		}
		switch {
		case n == nil || n.kind == yNull:
			return nil // already absent
		case last.key != "" && n.kind == yMap:
			if dry {
				return nil
			}
			for j := range n.keys {
				if n.keys[j].name == last.key {
					n.keys = append(n.keys[:j:j], n.keys[j+1:]...)
					break
				}
			}
			return nil
		case last.key == "" && n.kind == ySeq:
			if last.index >= len(n.items) {
				return fail(last.col, last.path, "%s has %s; index %d is out of range", parent, plural(len(n.items), "entry", "entries"), last.index)
			}
			if dry {
				return nil
			}
			n.items = append(n.items[:last.index:last.index], n.items[last.index+1:]...)
			return nil
		}
	}
	cur, e := walkSet(root, segs, no, dry, fail)
	if e != nil {
		return e
	}
	if !dry {
		*cur = val
	}
	return nil
}

// walkSet follows segs from root, creating missing mapping keys and
// appended list entries, and returns the slot they name. With dry it
// creates them detached, leaving the tree as it was.
func walkSet(root **ynode, segs []setSeg, no int, dry bool, fail func(col int, field, format string, a ...any) *Error) (**ynode, *Error) {
	cur := root
	for i, s := range segs {
		n := *cur
		parent := "the scenario"
		if i > 0 {
			parent = segs[i-1].path
		}
		if s.key != "" {
			if n == nil || n.kind == yNull {
				n = &ynode{kind: yMap, line: 1, col: s.col, set: no}
				if !dry {
					*cur = n
				}
			}
			if n.kind != yMap {
				return nil, fail(s.col, s.path, "%s is %s, not a mapping", parent, describeAt(n))
			}
			k := -1
			for j := range n.keys {
				if n.keys[j].name == s.key {
					k = j
					break
				}
			}
			if k < 0 && dry {
				cur = new(*ynode)
				continue
			}
			if k < 0 {
				n.keys = append(n.keys, ykey{name: s.key, line: 1, col: s.col, set: no})
				k = len(n.keys) - 1
			}
			cur = &n.keys[k].val
			continue
		}
		if s.append {
			if n == nil || n.kind == yNull {
				n = &ynode{kind: ySeq, line: 1, col: s.col, set: no}
				if !dry {
					*cur = n
				}
			}
			if n.kind != ySeq {
				return nil, fail(s.col, s.path, "%s is %s, not a list", parent, describeAt(n))
			}
			if dry {
				cur = new(*ynode)
				continue
			}
			n.items = append(n.items, nil)
			cur = &n.items[len(n.items)-1]
			continue
		}
		switch {
		case n == nil || n.kind == yNull:
			return nil, fail(s.col, s.path, "%s is absent, so it has no entry %d (append with %s[+])", parent, s.index, parent)
		case n.kind != ySeq:
			return nil, fail(s.col, s.path, "%s is %s, not a list", parent, describeAt(n))
		case s.index >= len(n.items):
			return nil, fail(s.col, s.path, "%s has %s; index %d is out of range (append with %s[+])", parent, plural(len(n.items), "entry", "entries"), s.index, parent)
		}
		cur = &n.items[s.index]
	}
	return cur, nil
}

// describeAt describes a node and where it was written.
func describeAt(n *ynode) string {
	if n.set > 0 {
		return describe(n)
	}
	return fmt.Sprintf("%s (line %d)", describe(n), n.line)
}

// parseSetPath parses "a.b[2].c" or "faults[+]".
func parseSetPath(path string, no int) ([]setSeg, *Error) {
	fail := func(col int, format string, a ...any) *Error {
		return &Error{File: SetFile, Line: 1, Col: max(col, 1), Field: path, Msg: fmt.Sprintf(format, a...), arg: no}
	}
	if path == "" {
		return nil, fail(1, "missing path before =, e.g. cluster.nodes=7")
	}
	var segs []setSeg
	i := 0
	for i < len(path) {
		start := i
		for i < len(path) && isKeyByte(path[i]) {
			i++
		}
		if i == start {
			return nil, fail(i+1, "bad path %q: want a field name at column %d", path, i+1)
		}
		segs = append(segs, setSeg{key: path[start:i], col: start + 1, path: path[:i]})
		for i < len(path) && path[i] == '[' {
			open := i
			end := strings.IndexByte(path[i:], ']')
			if end < 0 {
				return nil, fail(open+1, "bad path %q: unclosed [", path)
			}
			inner := path[i+1 : i+end]
			i += end + 1
			seg := setSeg{col: open + 1, path: path[:i]}
			if inner == "+" {
				seg.append = true
			} else {
				k, err := strconv.Atoi(inner)
				if err != nil || k < 0 || strings.HasPrefix(inner, "+") {
					return nil, fail(open+2, "bad index [%s]: want a list index (0, 1, …) or + to append", inner)
				}
				seg.index = k
			}
			segs = append(segs, seg)
		}
		if i == len(path) {
			break
		}
		if path[i] != '.' || i == len(path)-1 {
			return nil, fail(i+1, "bad path %q: want name.name[index]…", path)
		}
		i++
	}
	return segs, nil
}

func isKeyByte(c byte) bool {
	return c == '_' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// retag marks a parsed override value as coming from override no, and
// shifts its columns by the argument's "path=" prefix.
func retag(n *ynode, no, shift int) {
	if n == nil {
		return
	}
	n.set = no
	n.line, n.col = 1, n.col+shift
	for i := range n.keys {
		n.keys[i].set = no
		n.keys[i].line, n.keys[i].col = 1, n.keys[i].col+shift
		retag(n.keys[i].val, no, shift)
	}
	for _, it := range n.items {
		retag(it, no, shift)
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
