package invoice

import (
	"errors"
	"testing"

	"github.com/baton-lab/baton/mission"
)

// TestKernelSeesThroughTheWrapper checks that the mission New returns,
// which wraps the kernel's to add coordination facts, can still be played
// outside a run (the scripted model server decodes its views), and that a
// wrapper without Unwrap cannot.
func TestKernelSeesThroughTheWrapper(t *testing.T) {
	view := []byte(`{"agent":"intake","item":"E1","day":"2026-01-05"}`)
	v, err := mission.DecodeView(New(), view)
	if err != nil {
		t.Fatalf("DecodeView(New()) = %v", err)
	}
	if v.Agent != "intake" || v.Item != "E1" {
		t.Errorf("view = %+v, want agent intake, item E1", v)
	}
	type opaque struct{ mission.Mission }
	if _, err := mission.DecodeView(opaque{New()}, view); !errors.Is(err, mission.ErrNotKernel) {
		t.Errorf("DecodeView(a wrapper without Unwrap) = %v, want ErrNotKernel", err)
	}
}
