package reports

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"
)

// drawnText is a string a figure drew: where it sits on the canvas
// (unrotated text only) and what it says.
type drawnText struct {
	text string
	box  vg.Rectangle
	// rotated: drawn under a rotation (an axis label), box unknown.
	rotated bool
}

// drawnTexts renders f onto a recorder and returns every string it drew,
// for tests of a figure's structure rather than its pixels.
func drawnTexts(t *testing.T, f *figure) []drawnText {
	t.Helper()
	rec := &recorder.Canvas{}
	f.draw(draw.Canvas{Canvas: rec, Rectangle: vg.Rectangle{Max: vg.Point{X: f.width, Y: f.height}}})
	var out []drawnText
	// gonum wraps rotated text in Push, Translate, Rotate … Pop.
	var rotated []bool
	rot := false
	for _, a := range rec.Actions {
		switch a := a.(type) {
		case *recorder.Push:
			rotated = append(rotated, rot)
		case *recorder.Pop:
			require.NotEmpty(t, rotated)
			rot, rotated = rotated[len(rotated)-1], rotated[:len(rotated)-1]
		case *recorder.Rotate, *recorder.Translate:
			rot = true
		case *recorder.FillString:
			// The ink of a line: from the baseline less the descent to
			// the tallest letters, about 0.75 em above it (the font's
			// ascent includes line spacing gonum's layout leaves out).
			face := font.DefaultCache.Lookup(a.Font, a.Size)
			box := vg.Rectangle{Min: vg.Point{X: a.Point.X, Y: a.Point.Y - face.Extents().Descent},
				Max: vg.Point{X: a.Point.X + face.Width(a.String), Y: a.Point.Y + 0.75*a.Size}}
			out = append(out, drawnText{text: a.String, box: box, rotated: rot})
		}
	}
	return out
}

// countText counts the drawn strings equal to s.
func countText(texts []drawnText, s string) int {
	n := 0
	for _, d := range texts {
		if d.text == s {
			n++
		}
	}
	return n
}

// requireTextInside requires every unrotated string of texts to lie on a
// canvas of f's size.
func requireTextInside(t *testing.T, f *figure, texts []drawnText) {
	t.Helper()
	const slack = 0.5 // points: rounding in the font metrics
	for _, d := range texts {
		if d.rotated {
			continue
		}
		require.True(t, d.box.Min.X >= -slack && d.box.Max.X <= f.width+slack && d.box.Min.Y >= -slack && d.box.Max.Y <= f.height+slack,
			"%q at %v…%v leaves the %v×%v canvas", d.text, d.box.Min, d.box.Max, f.width, f.height)
	}
}

// synthGrid is a synthetic sweep of a -vary grid: every combination of
// the dimensions' values, under each algorithm, count runs each, grouped
// as simrun groups them ("election_timeout=…, latency=…", after the
// algorithm when there are several).
func synthGrid(count int, algos []string, dims ...GridDim) *Summary {
	type cell struct {
		vary  []string
		label string
	}
	cells := []cell{{}}
	for _, d := range dims {
		var next []cell
		for _, c := range cells {
			for _, v := range d.Values {
				l := dimLabel(d.Path, v)
				if c.label != "" {
					l = c.label + ", " + l
				}
				next = append(next, cell{append(append([]string(nil), c.vary...), v), l})
			}
		}
		cells = next
	}
	s := synthAll(1, 0)
	s.Seeds.Count = count
	s.Grid = &Grid{Dims: dims, Heat: "failed"}
	gi := 0
	for _, a := range algos {
		for _, c := range cells {
			label := c.label
			if len(algos) > 1 {
				label = a + " · " + label
			}
			for k := range count {
				r := synthRun(uint64(1+k), a, gi)
				r.Vary, r.Group = c.vary, label
				s.Runs = append(s.Runs, r)
			}
			gi++
		}
	}
	s.Aggregate()
	return s
}

// values is n grid values "prefix1", "prefix2", ….
func values(prefix string, n int) []string {
	var out []string
	for i := range n {
		out = append(out, fmt.Sprintf("%s%d", prefix, i+1))
	}
	return out
}
