package contracts

// Level is a contract strength: each rule belongs to one, and checking at a
// level applies every rule at or below it.
type Level int

// The strength levels, weakest first.
const (
	LevelSchema    Level = iota + 1 // required fields, types, formats, enums, ranges
	LevelOwnership                  // schema + one named owner, idempotency key, escalation enum
	LevelSemantic                   // ownership + cross-field CEL rules
)

// AllLevels lists the levels weakest first.
var AllLevels = []Level{LevelSchema, LevelOwnership, LevelSemantic}

func (l Level) String() string {
	switch l {
	case LevelSchema:
		return "schema"
	case LevelOwnership:
		return "ownership"
	case LevelSemantic:
		return "semantic"
	}
	return "unknown"
}

// Violation is one broken rule: which edge, rule and level, the field, what
// was expected and what was got, and where the message is in the trace
// (Seq, the event's sequence number, 0 when checked outside a trace; from
// [Set.CheckSequence], the message's 1-based position in the sequence).
type Violation struct {
	Edge     string `json:"edge"`
	Rule     string `json:"rule"`
	Level    string `json:"level"`
	Field    string `json:"field"`
	Expected string `json:"expected"`
	Got      string `json:"got"`
	Message  string `json:"message"`
	Seq      int    `json:"seq,omitempty"`
}
