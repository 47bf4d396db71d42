package scenario

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
)

// Reparser reads a sequence of scenario files that differ mostly in their
// faults section, as Parse does, reading the rest of the file once: a
// hunt's worker process gets each run as a whole file (hunt.RunJob), and
// the runs of one configuration share everything but their faults.
// Reading YAML is most of reading a file (a quarter of a hunt worker's
// CPU, measured on raft's built-in base), so the rest's tree is kept and
// only the faults section is read anew. The zero value is ready; one
// goroutine at a time.
//
// What it returns equals Parse's, except that an error's line in the part
// after the faults section is counted as if the section were not there
// (and a file it cannot split this way is read by Parse).
type Reparser struct {
	// trees are the trees of the files' rests (a file without its
	// faults section), by rest: never changed (the loader only reads
	// trees); at most maxReparserTrees (a hunt interleaves its
	// configurations: cluster sizes, parameter edges).
	trees map[string]*ynode
}

// maxReparserTrees bounds a Reparser's trees (each a few KiB).
const maxReparserTrees = 256

// Parse reads src as Parse(name, src) does.
func (p *Reparser) Parse(name string, src []byte) (*Scenario, error) {
	rest, section, before, ok := splitFaults(src)
	if !ok || len(src) > MaxFileBytes {
		return Parse(name, src)
	}
	root := p.trees[string(rest)]
	if root == nil {
		var perr *Error
		if root, perr = parseYAML(name, rest, MaxFileBytes); perr != nil || root.kind != yMap {
			return Parse(name, src)
		}
		if p.trees == nil || len(p.trees) >= maxReparserTrees {
			p.trees = map[string]*ynode{}
		}
		p.trees[string(rest)] = root
	}
	froot, perr := parseYAML(name, section, MaxFileBytes)
	if perr != nil || froot.kind != yMap || len(froot.keys) != 1 || froot.keys[0].name != "faults" {
		return Parse(name, src)
	}
	shiftLines(froot, before)
	keys := append(append(make([]ykey, 0, len(root.keys)+1), root.keys...), froot.keys[0])
	l := &loader{file: name}
	sc := l.readScenario(&ynode{kind: yMap, line: root.line, col: root.col, keys: keys})
	if len(l.errs) > 0 {
		return nil, l.errs.sorted()
	}
	sc.File = name
	sum := sha256.Sum256(src)
	sc.SourceSHA256 = hex.EncodeToString(sum[:])
	return sc, nil
}

// splitFaults cuts src's top-level faults section (a line "faults:" at
// the start of a line, and the indented or list lines after it) out of
// it: rest is src without it, section the section alone, before the
// number of lines before it. ok is false when src has no such section.
func splitFaults(src []byte) (rest, section []byte, before int, ok bool) {
	start := -1
	for i := 0; i < len(src); {
		end := bytes.IndexByte(src[i:], '\n')
		if end < 0 {
			end = len(src) - i
		}
		line := src[i : i+end]
		if bytes.Equal(bytes.TrimRight(line, " \r"), []byte("faults:")) {
			start = i
			break
		}
		before++
		i += end + 1
	}
	if start < 0 {
		return nil, nil, 0, false
	}
	stop := len(src)
	i := start + len("faults:")
	for i < len(src) {
		nl := bytes.IndexByte(src[i:], '\n')
		if nl < 0 {
			break
		}
		i += nl + 1
		if i < len(src) && src[i] != ' ' && src[i] != '-' && src[i] != '\n' && src[i] != '#' {
			stop = i
			break
		}
	}
	rest = append(append(make([]byte, 0, len(src)-(stop-start)), src[:start]...), src[stop:]...)
	return rest, src[start:stop], before, true
}

// shiftLines moves every line of n's tree down by k.
func shiftLines(n *ynode, k int) {
	if n == nil {
		return
	}
	n.line += k
	for i := range n.keys {
		n.keys[i].line += k
		shiftLines(n.keys[i].val, k)
	}
	for _, it := range n.items {
		shiftLines(it, k)
	}
}
