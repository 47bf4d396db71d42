package scenario

import (
	"fmt"
	"strings"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
)

// yKind is the shape of a YAML node.
type yKind uint8

const (
	yNull yKind = iota
	yScalar
	yMap
	ySeq
)

func (k yKind) String() string {
	return [...]string{"null", "a scalar", "a mapping", "a list"}[k]
}

// ynode is a YAML node with its position: the loader reads scenarios from
// this small tree so every error can name file, line and column.
type ynode struct {
	kind   yKind
	line   int
	col    int
	text   string // scalar text (unquoted)
	quoted bool
	keys   []ykey   // yMap, in file order
	items  []*ynode // ySeq
	set    int      // 0: from the file; i+1: from the i-th -set override
}

type ykey struct {
	name      string
	line, col int
	set       int
	val       *ynode
}

// at returns a node positioned at the key, for errors about the key itself.
func (k ykey) at() *ynode { return &ynode{line: k.line, col: k.col, set: k.set} }

// maxNodes bounds the tree a document may expand to (aliases can multiply
// it exponentially).
const maxNodes = 100_000

// parseYAML parses one YAML document of at most limit bytes into a tree,
// after preScan has checked it is text of bounded size and nesting.
func parseYAML(file string, src []byte, limit int) (root *ynode, perr *Error) {
	src, perr = preScan(file, src, limit)
	if perr != nil {
		return nil, perr
	}
	defer func() {
		// The YAML library is third-party code fed arbitrary input; a
		// panic in it is a syntax error we cannot place, not a crash.
		if r := recover(); r != nil {
			root, perr = nil, &Error{File: file, Line: 1, Col: 1, Msg: fmt.Sprintf("YAML syntax: the parser failed (%v)", r)}
		}
	}()
	f, err := parser.ParseBytes(src, 0)
	if err != nil {
		return nil, yamlError(file, err)
	}
	if len(f.Docs) == 0 || f.Docs[0].Body == nil {
		return &ynode{kind: yNull, line: 1, col: 1}, nil
	}
	if len(f.Docs) > 1 {
		pos := f.Docs[1].GetToken()
		line := 1
		if pos != nil {
			line = pos.Position.Line
		}
		return nil, &Error{File: file, Line: line, Col: 1, Msg: "a scenario file holds one YAML document; found a second one"}
	}
	c := converter{file: file, anchors: map[string]ast.Node{}}
	n := c.convert(f.Docs[0].Body, 0)
	if c.err != nil {
		return nil, c.err
	}
	return n, nil
}

// yamlError turns the YAML library's syntax error into an Error with position.
func yamlError(file string, err error) *Error {
	msg := err.Error()
	e := &Error{File: file, Line: 1, Col: 1, Msg: "YAML syntax: " + firstLine(msg)}
	var line, col int
	if _, scanErr := fmt.Sscanf(msg, "[%d:%d]", &line, &col); scanErr == nil {
		e.Line, e.Col = max(line, 1), max(col, 1)
		if i := strings.Index(msg, "] "); i >= 0 {
			e.Msg = "YAML syntax: " + firstLine(msg[i+2:])
		}
	}
	// Say the library's two commonest complaints in the loader's words.
	var key string
	var l2, c2 int
	if _, scanErr := fmt.Sscanf(strings.TrimPrefix(e.Msg, "YAML syntax: "), "mapping key %q already defined at [%d:%d]", &key, &l2, &c2); scanErr == nil {
		e.Msg = fmt.Sprintf("duplicate key %q (first at line %d)", key, l2)
	}
	if strings.Contains(e.Msg, "'\t'") {
		e.Msg = "YAML syntax: a tab character; YAML indents with spaces"
	}
	return e
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return strings.TrimSpace(s[:i])
	}
	return strings.TrimSpace(s)
}

type converter struct {
	file    string
	anchors map[string]ast.Node
	err     *Error
	nodes   int
	index   map[*ynode]map[string]int // big mappings: key → index in keys (lookups only)
}

// seen finds name among m's keys: a scan while the mapping is small, an
// index once it is not, so duplicate detection stays linear in the keys.
func (c *converter) seen(m *ynode, name string) (ykey, bool) {
	const small = 16
	if len(m.keys) < small {
		for _, k := range m.keys {
			if k.name == name {
				return k, true
			}
		}
		if len(m.keys) == small-1 { // the next key makes it big: index it
			if c.index == nil {
				c.index = map[*ynode]map[string]int{}
			}
			idx := make(map[string]int, 2*small)
			for i, k := range m.keys {
				idx[k.name] = i
			}
			idx[name] = len(m.keys)
			c.index[m] = idx
		}
		return ykey{}, false
	}
	idx := c.index[m]
	if i, ok := idx[name]; ok {
		return m.keys[i], true
	}
	idx[name] = len(m.keys)
	return ykey{}, false
}

func (c *converter) fail(n ast.Node, format string, args ...any) *ynode {
	if c.err == nil {
		line, col := pos(n)
		c.err = &Error{File: c.file, Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
	}
	return &ynode{kind: yNull, line: 1, col: 1}
}

func pos(n ast.Node) (int, int) {
	if n == nil || n.GetToken() == nil {
		return 1, 1
	}
	p := n.GetToken().Position
	return max(p.Line, 1), max(p.Column, 1)
}

func (c *converter) convert(n ast.Node, depth int) *ynode {
	if depth > 64 {
		return c.fail(n, "nesting deeper than 64 levels")
	}
	if c.nodes++; c.nodes > maxNodes {
		return c.fail(n, "the document expands to more than %d nodes (aliases?)", maxNodes)
	}
	if c.err != nil {
		return &ynode{kind: yNull, line: 1, col: 1}
	}
	line, col := pos(n)
	switch v := n.(type) {
	case nil:
		return &ynode{kind: yNull, line: line, col: col}
	case *ast.NullNode:
		return &ynode{kind: yNull, line: line, col: col}
	case *ast.StringNode:
		tok := v.GetToken()
		quoted := tok != nil && (strings.HasPrefix(tok.Origin, "\"") || strings.HasPrefix(strings.TrimSpace(tok.Origin), "\"") ||
			strings.HasPrefix(strings.TrimSpace(tok.Origin), "'"))
		return &ynode{kind: yScalar, line: line, col: col, text: v.Value, quoted: quoted}
	case *ast.LiteralNode:
		return &ynode{kind: yScalar, line: line, col: col, text: v.Value.Value, quoted: true}
	case *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode, *ast.InfinityNode, *ast.NanNode:
		return &ynode{kind: yScalar, line: line, col: col, text: n.GetToken().Value}
	case *ast.AnchorNode:
		if name, ok := v.Name.(*ast.StringNode); ok {
			c.anchors[name.Value] = v.Value
		}
		return c.convert(v.Value, depth+1)
	case *ast.AliasNode:
		name := ""
		if s, ok := v.Value.(*ast.StringNode); ok {
			name = s.Value
		}
		target, ok := c.anchors[name]
		if !ok {
			return c.fail(n, "unknown alias *%s (no anchor &%s before it)", name, name)
		}
		out := c.convert(target, depth+1)
		return out
	case *ast.TagNode:
		return c.convert(v.Value, depth+1)
	case *ast.MappingValueNode:
		m := &ynode{kind: yMap, line: line, col: col}
		c.addPair(m, v, depth)
		return m
	case *ast.MappingNode:
		m := &ynode{kind: yMap, line: line, col: col}
		if len(v.Values) > 0 {
			m.line, m.col = pos(v.Values[0].Key)
		}
		for _, kv := range v.Values {
			c.addPair(m, kv, depth)
		}
		return m
	case *ast.SequenceNode:
		s := &ynode{kind: ySeq, line: line, col: col}
		for _, it := range v.Values {
			s.items = append(s.items, c.convert(it, depth+1))
		}
		return s
	case *ast.CommentNode:
		return &ynode{kind: yNull, line: line, col: col}
	}
	return c.fail(n, "unsupported YAML construct %s", n.Type())
}

func (c *converter) addPair(m *ynode, kv *ast.MappingValueNode, depth int) {
	if _, ok := kv.Key.(*ast.MergeKeyNode); ok {
		c.fail(kv.Key, "merge keys (<<) are not supported; write the fields out")
		return
	}
	line, col := pos(kv.Key)
	name := ""
	if kv.Key != nil && kv.Key.GetToken() != nil {
		name = kv.Key.GetToken().Value
	}
	if s, ok := kv.Key.(*ast.StringNode); ok {
		name = s.Value
	}
	if k, dup := c.seen(m, name); dup {
		c.fail(kv.Key, "duplicate key %q (first at line %d)", name, k.line)
		return
	}
	m.keys = append(m.keys, ykey{name: name, line: line, col: col, val: c.convert(kv.Value, depth+1)})
}
