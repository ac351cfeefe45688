package main

import (
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/baton-lab/baton/experiment"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"baton":    func() { os.Exit(runMain()) },
		"sql":      func() { os.Exit(sqlCmd(os.Args[1:])) },
		"holdlock": func() { os.Exit(holdLock(os.Args[1:])) },
		"stall":    stallWorker,
	})
}

// TestScripts runs the command-line end-to-end tests in testdata/script:
// every subcommand, its output and its error paths.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			// No judge endpoint leaks in from the machine running the tests.
			env.Setenv("BATON_JUDGE_BASE_URL", "")
			env.Setenv("BATON_JUDGE_MODEL", "")
			env.Setenv("BATON_JUDGE_API_KEY", "")
			return nil
		},
		Condition: func(cond string) (bool, error) {
			if cond == "rofs" {
				return readOnlyMounts(), nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
	})
}

// readOnlyMounts reports whether this machine lets a test mount a folder
// read-only in a private namespace (unshare -rm): the only read-only
// folder root cannot write to.
var readOnlyMounts = sync.OnceValue(func() bool {
	dir, err := os.MkdirTemp("", "rofs")
	if err != nil {
		return false
	}
	defer os.RemoveAll(dir)
	script := fmt.Sprintf("mount --bind %[1]s %[1]s && mount -o remount,bind,ro %[1]s && ! touch %[1]s/x 2>/dev/null", dir)
	return exec.Command("unshare", "-rm", "sh", "-c", script).Run() == nil
})

// sqlCmd runs one SQL statement on a database, as an auditor's sqlite3
// session would, and prints the rows it returns, tab-separated:
// sql DB STATEMENT.
func sqlCmd(args []string) int {
	if len(args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: sql DB STATEMENT")
		return 2
	}
	db, err := sql.Open("sqlite", "file:"+args[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer db.Close()
	rows, err := db.Query(args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	for rows.Next() {
		v := make([]any, len(cols))
		p := make([]any, len(cols))
		for i := range v {
			p[i] = &v[i]
		}
		if err := rows.Scan(p...); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		parts := make([]string, len(v))
		for i, x := range v {
			if b, ok := x.([]byte); ok {
				x = string(b)
			}
			parts[i] = fmt.Sprint(x)
		}
		fmt.Println(strings.Join(parts, "\t"))
	}
	if err := rows.Err(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// holdLock takes a run folder's lock as a run would, writes DIR/.held,
// and keeps the lock until the file RELEASE exists: holdlock DIR RELEASE.
func holdLock(args []string) int {
	if len(args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: holdlock DIR RELEASE")
		return 2
	}
	release, err := experiment.LockRun(args[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer release()
	if err := os.WriteFile(filepath.Join(args[0], ".held"), nil, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(args[1]); err == nil {
			os.Remove(filepath.Join(args[0], ".held"))
			return 0
		}
	}
	fmt.Fprintln(os.Stderr, "holdlock: never released")
	return 1
}
