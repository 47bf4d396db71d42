package scenario

import (
	"slices"
	"strings"
)

// Running algorithms: a sweep may run a file under algorithms other than
// its own (simrun -algo). Each running algorithm gets its own algorithm
// section, read from the file's: the file's parameters the algorithm has
// are kept, those it has not are dropped (Scenario.Dropped says which),
// and the -set overrides are applied to the algorithms that run
// (docs/scenarios.md, "Overrides"):
//
//   - algorithm.KEY=VALUE applies to every running algorithm that has KEY,
//     and is refused when none has it;
//   - NAME.KEY=VALUE (NAME a registered algorithm, e.g. bully.answer_timeout)
//     applies to NAME only, and is refused when NAME does not run.

// LoadRunning reads a scenario file like LoadWith, for a sweep that runs it
// under the algorithms running (nil: the file's own).
func LoadRunning(path string, sets, running []string) (*Scenario, error) {
	src, err := ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseRunning(path, src, sets, running)
}

// ParseRunning reads scenario source like ParseWith, for a sweep that runs
// it under the algorithms running (nil: the file's own).
func ParseRunning(name string, src []byte, sets, running []string) (*Scenario, error) {
	return parse(name, src, sets, nil, ParseOptions{Running: slices.Clone(running)})
}

// algoSet is one -set override that names an algorithm's parameter.
type algoSet struct {
	no   int      // the override's number (1-based)
	algo string   // NAME of NAME.KEY; "" for algorithm.KEY
	key  string   // KEY
	segs []setSeg // the path within the algorithm section (NAME.KEY only)
	val  *ynode
	arg  string
}

// classifySet tells whether override arg names an algorithm's parameter,
// as algorithm.KEY (not algorithm.name) or NAME.KEY.
func classifySet(arg string, no int) (algoSet, bool, *Error) {
	segs, val, e := parseSet(arg, no)
	if e != nil || len(segs) < 2 || segs[1].key == "" {
		return algoSet{}, false, nil
	}
	first := segs[0].key
	switch {
	case first == "algorithm" && segs[1].key != "name":
		return algoSet{no: no, key: segs[1].key, arg: arg}, true, nil
	case first != "algorithm" && findAlgo(first) != nil:
		return algoSet{no: no, algo: first, key: segs[1].key, segs: segs[1:], val: val, arg: arg}, true, nil
	}
	return algoSet{}, false, nil
}

// fileAlgorithm is the algorithm name the tree's algorithm section gives
// (after the overrides), "" if none.
func fileAlgorithm(root *ynode) string {
	a := mapGet(root, "algorithm")
	if n := mapGet(a, "name"); n != nil && n.kind == yScalar {
		return strings.TrimSpace(n.text)
	}
	return ""
}

// mapGet is key k of mapping n, nil if absent.
func mapGet(n *ynode, k string) *ynode {
	if n == nil || n.kind != yMap {
		return nil
	}
	for _, kv := range n.keys {
		if kv.name == k {
			return kv.val
		}
	}
	return nil
}

// fromSet reports whether a key or its value was written by an override.
func fromSet(k ykey) bool { return k.set > 0 || (k.val != nil && k.val.set > 0) }

// checkAlgoSets refuses NAME.KEY overrides of an algorithm that does not
// run. (algorithm.KEY overrides no running algorithm has are refused by
// each running algorithm's reading of its section.)
func (l *loader) checkAlgoSets() {
	for _, s := range l.algoSets {
		if s.algo == "" || slices.Contains(l.running, s.algo) {
			continue
		}
		runs := "no election algorithm runs here"
		if len(l.running) > 0 {
			runs = "it runs " + strings.Join(l.running, ", ")
		}
		l.errs = append(l.errs, setFail(s.no)(1, s.algo+"."+s.key, "%s does not run here (%s): add -algo %s, or set algorithm.%s", s.algo, runs, s.algo, s.key))
	}
}

// runningHas reports whether a running algorithm has parameter key.
func (l *loader) runningHas(key string) bool {
	for _, a := range l.running {
		if d := findAlgo(a); d != nil {
			if _, ok := d.Param(key); ok {
				return true
			}
		}
	}
	return false
}

// sectionFor is the algorithm section node n as algorithm name reads it:
// a copy named name, without the keys name has no parameter for (the
// file's are returned as dropped, the overrides' belong to another running
// algorithm), with the NAME.KEY overrides of name spliced in. The file's
// keys are dropped only when name is not the algorithm the file itself
// names; otherwise they stay, to be reported as the file's mistakes.
func (l *loader) sectionFor(n *ynode, name string) (*ynode, []string, bool) {
	if n == nil || n.kind != yMap {
		return n, nil, false
	}
	d := findAlgo(name)
	if d == nil {
		return n, nil, false
	}
	nameNode := mapGet(n, "name")
	retarget := nameNode == nil || nameNode.set > 0 || strings.TrimSpace(nameNode.text) != name
	cp := *n
	cp.keys = nil
	var dropped []string
	for _, k := range n.keys {
		if k.name == "name" {
			k.val = &ynode{kind: yScalar, text: name, line: k.line, col: k.col, set: max(1, k.val.set)}
			if !retarget {
				k.val = nameNode
			}
			cp.keys = append(cp.keys, k)
			continue
		}
		if _, own := d.Param(k.name); own {
			cp.keys = append(cp.keys, k)
			continue
		}
		// A key of another algorithm: an override meant for another
		// running algorithm, or for none (then name's reading refuses it).
		switch {
		case fromSet(k) && (!slices.Contains(l.running, name) || l.runningHas(k.name)):
			continue // an override for another running algorithm
		case retarget && !fromSet(k):
			dropped = append(dropped, k.name)
			continue
		}
		cp.keys = append(cp.keys, k) // the file's own mistake: readAlgorithm says so
	}
	root := &cp
	for _, s := range l.algoSets {
		if s.algo != name {
			continue
		}
		if e := spliceSet(&root, s.segs, s.val, s.no, false); e != nil {
			l.errs = append(l.errs, e)
		}
	}
	return root, dropped, retarget
}

// readSection reads the algorithm section n as algorithm name reads it
// (sectionFor). A file's parameter kept for another algorithm whose value
// that algorithm refuses (a lease file's token: fence under zookeeper; a
// heartbeat above bully's default heartbeat_timeout) is dropped too, and
// the section read again: the file's values were never meant for it.
func (l *loader) readSection(n *ynode, name string, nodes int) (AlgorithmSpec, []string) {
	sec, dropped, retarget := l.sectionFor(n, name)
	for {
		sub := &loader{file: l.file, running: l.running, onAsked: l.onAsked, deferUser: l.deferUser}
		spec := sub.readAlgorithm(sec, "algorithm", nodes)
		if len(sub.errs) == 0 {
			return spec, dropped
		}
		var bad []string
		if retarget && sec.kind == yMap {
			for _, k := range sec.keys {
				if k.name == "name" || fromSet(k) {
					continue
				}
				for _, e := range sub.errs {
					if e.Field == "algorithm."+k.name || strings.HasPrefix(e.Field, "algorithm."+k.name+"[") {
						bad = append(bad, k.name)
						break
					}
				}
			}
		}
		if len(bad) == 0 {
			l.errs = append(l.errs, sub.errs...)
			return spec, dropped
		}
		cp := *sec
		cp.keys = slices.DeleteFunc(slices.Clone(sec.keys), func(k ykey) bool { return slices.Contains(bad, k.name) })
		sec, dropped = &cp, append(dropped, bad...)
	}
}

// readAlgorithms reads the algorithm section for every running algorithm:
// the file's own into sc.Algorithm, the others into sc.specs.
func (l *loader) readAlgorithms(sc *Scenario, n *ynode) {
	own := fileAlgorithm(&ynode{kind: yMap, keys: []ykey{{name: "algorithm", val: n}}})
	if findAlgo(own) == nil || n.kind != yMap {
		sc.Algorithm = l.readAlgorithm(n, "algorithm", sc.Nodes)
		l.setStoreCount(&sc.Algorithm)
		return
	}
	sc.algoTree = n
	spec, dropped := l.readSection(n, own, sc.Nodes)
	sc.Algorithm = spec
	l.setStoreCount(&sc.Algorithm)
	l.drop(sc, own, dropped)
	for _, a := range l.running {
		if a == own || findAlgo(a) == nil {
			continue
		}
		spec, dropped := l.readSection(n, a, sc.Nodes)
		if sc.specs == nil {
			sc.specs = map[string]AlgorithmSpec{}
		}
		sc.specs[a] = spec
		l.drop(sc, a, dropped)
	}
}

// drop records the file's parameters algorithm a does not read.
func (l *loader) drop(sc *Scenario, a string, keys []string) {
	if len(keys) == 0 {
		return
	}
	if sc.dropped == nil {
		sc.dropped = map[string][]string{}
	}
	sc.dropped[a] = keys
}

// Dropped lists the file's algorithm parameters a run under algorithm a
// leaves out because a has no such parameter or refuses its value (nil
// when a keeps them all).
func (sc *Scenario) Dropped(a string) []string {
	if a == "" {
		a = sc.Algorithm.Name
	}
	if d, ok := sc.dropped[a]; ok {
		return d
	}
	if _, ok := sc.specs[a]; ok || a == sc.Algorithm.Name || sc.algoTree == nil || findAlgo(a) == nil {
		return nil
	}
	l := &loader{file: sc.File}
	_, dropped := l.readSection(sc.algoTree, a, sc.Nodes)
	return dropped
}

// specFor is the algorithm section a run under algorithm a reads: the
// file's own, one read for a running algorithm when the file was loaded
// with it (ParseRunning), else the file's section read as a (keeping the
// parameters a has).
func (sc *Scenario) specFor(a string) (AlgorithmSpec, error) {
	if a == "" || a == sc.Algorithm.Name {
		return sc.Algorithm, nil
	}
	if s, ok := sc.specs[a]; ok {
		return s, nil
	}
	if sc.algoTree == nil {
		return AlgorithmSpec{Name: a}, nil
	}
	l := &loader{file: sc.File}
	spec, _ := l.readSection(sc.algoTree, a, sc.Nodes)
	if len(l.errs) > 0 {
		return spec, l.errs.sorted()
	}
	return spec, nil
}

// SetsFor are the -set overrides that apply to a run under algorithm a
// (all of Sets but the parameters of other algorithms), for its replay
// line: replayed with -algo a, they load and apply as they did.
func (sc *Scenario) SetsFor(a string) []string {
	if a == "" {
		a = sc.Algorithm.Name
	}
	var out []string
	for i, arg := range sc.Sets {
		s, ok, _ := classifySet(arg, i+1)
		switch {
		case !ok:
		case s.algo != "" && s.algo != a:
			continue
		case s.algo == "" && findAlgo(a) != nil:
			if _, has := findAlgo(a).Param(s.key); !has {
				continue
			}
		}
		out = append(out, arg)
	}
	return out
}

// For is the scenario as it runs under algorithm a: a copy whose own
// algorithm section is a's (its YAML names a, with a's values), for a
// run's reproduction file.
func (sc *Scenario) For(a string) (*Scenario, error) {
	spec, err := sc.specFor(a)
	if err != nil {
		return nil, err
	}
	cp := *sc
	cp.Algorithm, cp.specs, cp.dropped, cp.algoTree = spec, nil, nil, spec.at
	cp.Sets = sc.SetsFor(a)
	return &cp, nil
}
