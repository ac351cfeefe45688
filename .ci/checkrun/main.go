// Command checkrun checks that a baton run folder holds every output and
// that each parses: CI's smoke test, in Go so that CI needs nothing else.
package main

import (
	"database/sql"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	_ "modernc.org/sqlite"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: checkrun RUN_DIR")
		os.Exit(2)
	}
	if err := check(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "checkrun:", err)
		os.Exit(1)
	}
}

func check(dir string) error {
	for _, name := range []string{"manifest.json", "results.json"} {
		var v map[string]any
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		if err := json.Unmarshal(data, &v); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if name == "results.json" {
			if v["schema"] != "baton.results/v3" {
				return fmt.Errorf("results.json: schema %v, want baton.results/v3", v["schema"])
			}
			for _, k := range []string{"protocol", "validity", "detection", "localisation", "false_alarms", "pass_k", "cost", "paired", "paired_by_mutant", "methods", "hypotheses", "mutants", "detection_harmful", "provenance"} {
				if _, ok := v[k]; !ok {
					return fmt.Errorf("results.json: no key %q", k)
				}
			}
			if d, _ := v["detection"].([]any); len(d) == 0 {
				return fmt.Errorf("results.json: empty detection table")
			}
		}
	}
	for _, name := range []string{"report.md", "report.html"} {
		st, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		if st.Size() == 0 {
			return fmt.Errorf("%s is empty", name)
		}
	}
	csvs, _ := filepath.Glob(filepath.Join(dir, "*.csv"))
	if len(csvs) == 0 {
		return fmt.Errorf("no CSV tables")
	}
	for _, p := range csvs {
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		rows, err := csv.NewReader(f).ReadAll()
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", filepath.Base(p), err)
		}
		if len(rows) < 1 {
			return fmt.Errorf("%s: no header", filepath.Base(p))
		}
	}
	db, err := sql.Open("sqlite", filepath.Join(dir, "runs.db"))
	if err != nil {
		return err
	}
	defer db.Close()
	var n int
	if err := db.QueryRow("SELECT count(*) FROM items").Scan(&n); err != nil {
		return fmt.Errorf("runs.db: %w", err)
	}
	if n == 0 {
		return fmt.Errorf("runs.db: no items")
	}
	fmt.Printf("run folder ok: %s (%d items in runs.db, %d CSV tables)\n", dir, n, len(csvs))
	return nil
}
