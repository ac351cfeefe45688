package e2e

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// missionWords are words only one mission has any business saying: the
// invoice mission's, then the triage mission's ("ticket", "supervisor" and
// "specialist" are kernel vocabulary too: an escalation ticket, the
// supervisor pattern).
var missionWords = regexp.MustCompile(`(?i)invoice|supplier|purchase[ _-]?order|payment|ledger|billing|refund`)

// missionWord returns the first mission word of text that starts a word:
// at the start, after a non-letter, or at a camel-case hump
// ("newInvoice"), so that "Knowledge" is not a ledger; plurals and
// suffixes still match ("invoices", "PaymentID").
func missionWord(text string) string {
	for _, m := range missionWords.FindAllStringIndex(text, -1) {
		if i := m[0]; i == 0 || !isLetter(text[i-1]) || isLower(text[i-1]) && !isLower(text[i]) {
			return text[m[0]:m[1]]
		}
	}
	return ""
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isLower(c byte) bool  { return c >= 'a' && c <= 'z' }

// The kernel is mission-free: outside mission/<name>/, no non-test Go file
// mentions a mission-only word in an identifier, a comment or a string.
// The one exemption is naming a mission package: cmd/baton imports
// mission/invoice and calls invoice.New() to register it, and the import
// path and the package name are the mission's name, not domain knowledge.
func TestKernelIsMissionFree(t *testing.T) {
	root := moduleRoot(t)
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") && rel != "." || isMissionDir(rel) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		files++
		for _, m := range mentions(t, path) {
			t.Errorf("%s: %s", rel, m)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 50 {
		t.Fatalf("checked %d files; the walk missed the module", files)
	}
}

// isMissionDir reports whether rel is mission/<name> or below it.
func isMissionDir(rel string) bool {
	parts := strings.Split(filepath.ToSlash(rel), "/")
	return len(parts) >= 2 && parts[0] == "mission"
}

// mentions returns the mission-only words of one file, each with its line.
func mentions(tb testing.TB, path string) []string {
	tb.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
	if err != nil {
		tb.Fatal(err)
	}
	// Names under which mission packages are imported.
	missionPkgs := map[string]bool{}
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		if rest, ok := strings.CutPrefix(p, "github.com/baton-lab/baton/mission/"); ok && !strings.Contains(rest, "/") {
			name := rest
			if imp.Name != nil {
				name = imp.Name.Name
			}
			missionPkgs[name] = true
		}
	}
	var out []string
	report := func(pos token.Pos, text string) {
		if w := missionWord(text); w != "" {
			out = append(out, fset.Position(pos).String()+": "+strconv.Quote(w)+" in "+strconv.Quote(clip(text)))
		}
	}
	for _, cg := range f.Comments {
		for _, c := range cg.List {
			report(c.Pos(), c.Text)
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.ImportSpec:
			return false // the import path names the mission package
		case *ast.SelectorExpr:
			if id, ok := x.X.(*ast.Ident); ok && missionPkgs[id.Name] {
				report(x.Sel.Pos(), x.Sel.Name)
				return false
			}
		case *ast.Ident:
			report(x.Pos(), x.Name)
		case *ast.BasicLit:
			if x.Kind == token.STRING {
				report(x.Pos(), x.Value)
			}
		}
		return true
	})
	return out
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

func moduleRoot(tb testing.TB) string {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Fatal("no go.mod above the test")
		}
		dir = parent
	}
}

// The check has teeth: it finds a word wherever it hides.
func TestMentionsFinds(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.go")
	src := `package x

import inv "github.com/baton-lab/baton/mission/invoice"

// Pays the Supplier.
var PurchaseOrder = "ledger"

// Knowledge, acknowledged, prepayment-free: no word starts here.
var KnowledgeResult, unsupplied = 1, 2

var _ = inv.New
var _ = inv.SchedulePayment
`
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	got := mentions(t, path)
	// The comment, the identifier, the string and the mission package's
	// payment tool; not the import, nor inv.New, nor a word inside
	// another (Knowledge is no ledger).
	if len(got) != 4 {
		t.Errorf("found %d mentions, want 4:\n%s", len(got), strings.Join(got, "\n"))
	}
}
