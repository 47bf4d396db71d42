package reports

import (
	"path/filepath"
	"testing"
)

// BenchmarkReports1000Seeds is the budget: plots and the HTML report
// for a 1,000-seed sweep (2 algorithms, ~2 failovers per run) in ≤ 1 s.
func BenchmarkReports1000Seeds(b *testing.B) {
	s := synthSummary(1, 1000, "raft", "bully")
	tl := synthTimeline()
	b.ResetTimer()
	for b.Loop() {
		dir := b.TempDir()
		plots, err := WritePlots(dir, s, tl)
		if err != nil {
			b.Fatal(err)
		}
		if err := WriteHTML(filepath.Join(dir, "report.html"), s, plots, dir, HTMLExtras{}); err != nil {
			b.Fatal(err)
		}
	}
}
