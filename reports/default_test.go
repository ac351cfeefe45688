package reports_test

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/rs/zerolog"

	"github.com/baton-lab/baton/experiment"
	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/mission/invoice"
	"github.com/baton-lab/baton/reports"
)

var reportTrials = flag.Int("report.trials", 20, "trials of the default run BenchmarkReport renders")

// missions are the missions the tests run: the reference mission.
func missions(tb testing.TB) *mission.Registry {
	tb.Helper()
	reg, err := mission.NewRegistry(invoice.New())
	if err != nil {
		tb.Fatal(err)
	}
	return reg
}

// defaultRun runs the default protocol with trials into a temporary
// folder and returns the folder and its results.
func defaultRun(tb testing.TB, trials int) (string, *reports.Results) {
	tb.Helper()
	dir := filepath.Join(tb.TempDir(), "run")
	sum, err := experiment.Run(context.Background(), experiment.Options{RunDir: dir, Trials: trials, Logger: zerolog.Nop(), Missions: missions(tb)})
	if err != nil {
		tb.Fatalf("default run: %v", err)
	}
	return dir, sum.Results
}

// TestDefaultReportHTMLCoversMarkdown: on the default protocol's report,
// every heading and table of report.md is in report.html.
func TestDefaultReportHTMLCoversMarkdown(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the default protocol")
	}
	dir, _ := defaultRun(t, 2)
	md, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	html, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, miss := range reports.MissingFromHTML(string(md), string(html)) {
		t.Error(miss)
	}
	if n := bytes.Count(md, []byte("\n## ")); n < 12 {
		t.Errorf("report.md has %d sections", n)
	}
}

// BenchmarkReport renders report.html (with the kept traces embedded and
// their findings) and report.md of the default run; html-bytes is
// report.html's size.
func BenchmarkReport(b *testing.B) {
	dir, r := benchRun(b)
	if err := experiment.ReportFindings(missions(b), dir, r); err != nil {
		b.Fatal(err)
	}
	b.Run("html", func(b *testing.B) {
		var buf bytes.Buffer
		for b.Loop() {
			buf.Reset()
			if err := reports.WriteHTMLIn(&buf, r, dir); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(buf.Len()), "html-bytes")
	})
	b.Run("markdown", func(b *testing.B) {
		var buf bytes.Buffer
		for b.Loop() {
			buf.Reset()
			if err := reports.WriteMarkdown(&buf, r); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(buf.Len()), "md-bytes")
	})
}

// benchRun runs the default protocol once per test binary, into a folder
// TestMain removes (a benchmark's own temporary folder would go with its
// first round).
var benchRun = func() func(b *testing.B) (string, *reports.Results) {
	var (
		once sync.Once
		dir  string
		r    *reports.Results
		err  error
	)
	return func(b *testing.B) (string, *reports.Results) {
		once.Do(func() {
			dir = filepath.Join(benchDir, "run")
			var sum *experiment.Summary
			sum, err = experiment.Run(context.Background(), experiment.Options{RunDir: dir, Trials: *reportTrials, Logger: zerolog.Nop()})
			if err == nil {
				r = sum.Results
			}
		})
		if err != nil {
			b.Fatal(err)
		}
		return dir, r
	}
}()

// benchDir holds BenchmarkReport's run.
var benchDir string

func TestMain(m *testing.M) {
	var err error
	if benchDir, err = os.MkdirTemp("", "baton-report-bench-"); err != nil {
		panic(err)
	}
	code := m.Run()
	os.RemoveAll(benchDir)
	os.Exit(code)
}
