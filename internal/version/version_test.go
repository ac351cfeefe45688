package version

import (
	"runtime/debug"
	"testing"
)

func TestFormat(t *testing.T) {
	stamped := &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "abc123"}, {Key: "vcs.modified", Value: "true"}}}
	for _, tc := range []struct {
		name     string
		bi       *debug.BuildInfo
		ok       bool
		rev, mod string
		want     string
	}{
		{"nothing", nil, false, "", "", "(devel)"},
		{"module only", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.0"}}, true, "", "", "v1.2.0"},
		{"buildvcs", stamped, true, "", "", "(devel) abc123+dirty"},
		{"ldflags win", stamped, true, "def456", "false", "(devel) def456"},
		{"ldflags alone", nil, false, "def456", "true", "(devel) def456+dirty"},
	} {
		if got := format(tc.bi, tc.ok, tc.rev, tc.mod); got != tc.want {
			t.Errorf("%s: format = %q, want %q", tc.name, got, tc.want)
		}
	}
}
