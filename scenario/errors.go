package scenario

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

// Error is one problem in a scenario file, with its position and the dotted
// path of the field it concerns ("faults[2].pause").
type Error struct {
	File  string
	Line  int
	Col   int
	Field string
	Msg   string
	arg   int // 0: the file; i+1: the i-th -set override (for ordering)
}

// SetFile is the File of errors found in -set overrides; their Line is 1
// and Col the column within the override argument.
const SetFile = "-set"

// Error formats as "file:line:col: field: message".
func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s:%d:%d: ", e.File, e.Line, e.Col)
	if e.Field != "" {
		// A field path comes from input (a -set key may hold a newline):
		// quoted when it holds a control character, so the error stays
		// on one line.
		if strings.ContainsFunc(e.Field, unicode.IsControl) {
			b.WriteString(strconv.Quote(e.Field))
		} else {
			b.WriteString(e.Field)
		}
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Errors is every problem found in a file, in file order. Loading reports
// them all at once, and nothing runs.
type Errors []*Error

// Error lists the problems, one per line, at most MaxErrors of them and
// then how many more there are.
func (es Errors) Error() string {
	n := min(len(es), MaxErrors)
	parts := make([]string, n, n+1)
	for i, e := range es[:n] {
		parts[i] = e.Error()
	}
	if len(es) > n {
		parts = append(parts, fmt.Sprintf("and %d more", len(es)-n))
	}
	return strings.Join(parts, "\n")
}

// sorted orders the errors by position: the file's first, then each -set
// override's in argument order.
func (es Errors) sorted() Errors {
	sort.SliceStable(es, func(i, j int) bool {
		if es[i].arg != es[j].arg {
			return es[i].arg < es[j].arg
		}
		if es[i].Line != es[j].Line {
			return es[i].Line < es[j].Line
		}
		return es[i].Col < es[j].Col
	})
	return es
}

// suggest returns ` (did you mean "x"?)` for the closest candidate within a
// small edit distance, or else the one candidate that the word begins or is
// a whole "_"-separated part of ("failover" → "failover_under", "safety" →
// "election_safety"); "" if there is none.
func suggest(word string, candidates []string) string {
	best, bestD := "", 1<<30
	lw := strings.ToLower(word)
	for _, c := range candidates {
		d := EditDistance(lw, strings.ToLower(c))
		if d < bestD || (d == bestD && c < best) {
			best, bestD = c, d
		}
	}
	limit := 2
	if len(word) > 8 {
		limit = 3
	}
	if best != "" && best != word && (bestD <= limit || bestD <= 3 && commonPrefix(lw, strings.ToLower(best)) >= 4) {
		return fmt.Sprintf(" (did you mean %q?)", best)
	}
	if len(lw) < 4 {
		return ""
	}
	var part []string
	for _, c := range candidates {
		lc := strings.ToLower(c)
		if c == word {
			continue
		}
		if strings.HasPrefix(lc, lw) || strings.HasSuffix(lc, "_"+lw) || strings.Contains(lc, "_"+lw+"_") {
			part = append(part, c)
		}
	}
	if len(part) == 1 {
		return fmt.Sprintf(" (did you mean %q?)", part[0])
	}
	return ""
}

// EditDistance is the Levenshtein distance between a and b, counted in
// runes, with a transposition of two neighbours costing 1: what the
// loader's and the CLI's "did you mean" suggestions rank by.
func EditDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}
