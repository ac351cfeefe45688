// Package version names the baton binary: its module version and the
// version-control commit it was built from, with "+dirty" when the work
// tree had uncommitted changes.
//
// go build stamps the commit itself (-buildvcs), except in a git worktree
// and under go run; the Makefile stamps it in every case with
//
//	-ldflags "-X github.com/baton-lab/baton/internal/version.revision=<commit> -X github.com/baton-lab/baton/internal/version.modified=<true|false>"
package version

import "runtime/debug"

// revision and modified are set by the linker (-X), never at run time.
var (
	revision string
	modified string
)

// String returns the module version ("(devel)" when built from a work
// tree) and, when known, the commit: "(devel) 1a2b3c…+dirty".
func String() string {
	bi, ok := debug.ReadBuildInfo()
	return format(bi, ok, revision, modified)
}

func format(bi *debug.BuildInfo, ok bool, rev, mod string) string {
	v := "(devel)"
	if ok && bi.Main.Version != "" {
		v = bi.Main.Version
	}
	if rev == "" && ok {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				mod = s.Value
			}
		}
	}
	if rev == "" {
		return v
	}
	v += " " + rev
	if mod == "true" {
		v += "+dirty"
	}
	return v
}
