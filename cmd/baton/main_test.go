package main

import (
	"context"
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"baton": func() { os.Exit(Run(context.Background(), os.Args[1:], os.Stdout, os.Stderr)) },
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
	})
}
