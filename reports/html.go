package reports

import (
	"bytes"
	_ "embed" // the report's template and style sheet
	"encoding/base64"
	"fmt"
	"html/template"
	"image/png"
	"os"
	"path/filepath"
)

// Link is a labelled hyperlink; Href may be relative to the report.
type Link struct {
	Label string
	Href  string
}

// ShrinkInfo describes the minimal reproducing scenario found for a failing
// run.
type ShrinkInfo struct {
	// FaultsBefore and FaultsAfter count the faults of the failing run and
	// of the minimal one.
	FaultsBefore, FaultsAfter int
	// DurationBefore and DurationAfter are the runs' durations, e.g. "60s".
	DurationBefore, DurationAfter string
	// ReproFile is the written minimal scenario.
	ReproFile string
	// Explanation is what the minimal run shows (a checker explanation).
	Explanation string
}

// HTMLExtras is what the report shows beyond the summary.
type HTMLExtras struct {
	// Title heads the report; empty means "electsim — <scenario>".
	Title string
	// Command is the simrun command line that produced the sweep.
	Command string
	// Porcupine links to the porcupine linearizability visualizations.
	Porcupine []Link
	// Shrink is the shrinker's result, if one ran.
	Shrink *ShrinkInfo
	// Matrix is an optional pre-rendered HTML table. It is inserted verbatim,
	// so it must be trusted HTML (render it with html/template).
	Matrix string
	// SpaceTime is the featured run's space-time diagram (nil: none).
	SpaceTime *SpaceTime
}

// Report limits: beyond these the report says how many it left out (all
// are in the JSON summary).
const (
	maxViolationsPerKind = 50
	maxFailingRuns       = 200
)

//go:embed report.tmpl
var reportTmpl string

//go:embed report.css
var reportCSS string

//go:embed spacetime.js
var spaceTimeScript string

var reportTemplate = template.Must(template.New("report").Funcs(template.FuncMap{"storyLines": storyLines, "verdict": isVerdict}).Parse(reportTmpl))

// WriteHTML writes a self-contained HTML report of s to path: the summary
// table per algorithm, plots (the PNGs WritePlots wrote into dir, embedded
// as data URIs, with links to the files), every violation grouped by check
// with its explanation and replay command, the failing runs, the shrink
// result and links to the porcupine visualizations. The file is written
// through a temporary file and a rename.
func WriteHTML(path string, s *Summary, plots []Plot, dir string, x HTMLExtras) error {
	if s == nil {
		return fmt.Errorf("reports: WriteHTML: nil summary")
	}
	v, err := buildView(path, s, plots, dir, x)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := reportTemplate.Execute(&buf, v); err != nil {
		return fmt.Errorf("reports: rendering %s: %w", path, err)
	}
	return writeFileAtomic(path, buf.Bytes())
}

// plotView is one embedded plot.
type plotView struct {
	Title   string
	Src     template.URL // data:image/png;base64,…
	WidthPx int          // CSS pixels: the PNG is rendered at pngDPI, shown at 96
	PNG     string       // link to the file, relative to the report; "" if none
	SVG     string
}

// embedPlots reads the plots' PNGs from dir.
func embedPlots(reportPath string, plots []Plot, dir string) ([]plotView, error) {
	var out []plotView
	for _, p := range plots {
		data, err := os.ReadFile(filepath.Join(dir, p.PNG))
		if err != nil {
			return nil, fmt.Errorf("reports: %w", err)
		}
		cfg, err := png.DecodeConfig(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("reports: %s: %w", p.PNG, err)
		}
		out = append(out, plotView{
			Title:   p.Title,
			Src:     template.URL("data:image/png;base64," + base64.StdEncoding.EncodeToString(data)),
			WidthPx: cfg.Width * 96 / pngDPI,
			PNG:     relLink(reportPath, filepath.Join(dir, p.PNG)),
			SVG:     relLink(reportPath, filepath.Join(dir, p.SVG)),
		})
	}
	return out, nil
}

// relLink is target relative to the directory of the report at from, as a
// URL path; "" if there is no such relative path.
func relLink(from, target string) string {
	base, err := filepath.Abs(filepath.Dir(from))
	if err != nil {
		return ""
	}
	abs, err := filepath.Abs(target)
	if err != nil {
		return ""
	}
	rel, err := filepath.Rel(base, abs)
	if err != nil {
		return ""
	}
	return filepath.ToSlash(rel)
}
