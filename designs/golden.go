package designs

import (
	"fmt"

	"github.com/baton-lab/baton/mission"
)

// goldenFor returns the per-agent golden expectations for in's scenario: the
// ones the caller prepared (Input.Golden), else the ones the scenario ships,
// else recorded now from the clean build with zero slips and faults and
// checked against the authored end state. Recording is preparation, the way
// a team records a reviewed baseline, so it is not charged to the design.
// Callers that evaluate a scenario many times should prepare once with
// [PrepareGolden].
func goldenFor(in Input) ([]mission.Golden, error) {
	if len(in.Golden) > 0 {
		return in.Golden, nil
	}
	if len(in.Scenario.Golden) > 0 {
		return in.Scenario.Golden, nil
	}
	return PrepareGolden(in.Mission, in.Scenario)
}

// PrepareGolden records a scenario's golden expectations from the clean
// build, or returns the ones it ships.
func PrepareGolden(m mission.Mission, sc *mission.Scenario) ([]mission.Golden, error) {
	if len(sc.Golden) > 0 {
		return sc.Golden, nil
	}
	g, err := m.RecordGolden(sc)
	if err != nil {
		return nil, fmt.Errorf("golden expectations of scenario %s: %w", sc.ID, err)
	}
	return g, nil
}
