package contracts

// BuiltinRule describes a check the package makes for every contract,
// besides the contract's own rules. A contract rule may not reuse its id.
type BuiltinRule struct {
	ID    string `json:"id"`
	Level Level  `json:"level"`
	Doc   string `json:"doc"`
}

// BuiltinRules lists the built-in checks, by level.
var BuiltinRules = []BuiltinRule{
	{"json", LevelSchema, "the message is a JSON object"},
	{"edge", LevelSchema, "the edge has a contract, and the envelope's edge is it"},
	{"kind", LevelSchema, "the envelope's kind is the contract's"},
	{"version", LevelSchema, "the envelope's schema_version is the contract's version"},
	{"required", LevelSchema, "a required envelope or payload field is present"},
	{"type", LevelSchema, "a field has its declared type"},
	{"format", LevelSchema, "a string field has its declared format (date, ...)"},
	{"enum", LevelSchema, "a field's value is one of its enum"},
	{"const", LevelSchema, "a field has its one allowed value"},
	{"range", LevelSchema, "a number is within minimum/maximum"},
	{"pattern", LevelSchema, "a string matches its pattern"},
	{"length", LevelSchema, "a string's length is within min_length/max_length"},
	{"size", LevelSchema, "a list's length is within min_items/max_items"},
	{"closed", LevelSchema, "a closed contract's payload has no undeclared field"},
	{"schema", LevelSchema, "any other JSON Schema failure"},
	{"owner", LevelOwnership, "next_owner names exactly one owner, the contract's"},
	{"idempotency", LevelOwnership, "idempotency_key is present and is the item's stable key"},
	{"escalation", LevelOwnership, "escalation is one of the contract's values"},
	{"escalation-ref", LevelOwnership, "an escalation that needs a ticket names it in escalation_ref"},
	{"sequence-item", LevelOwnership, "a sequence checked together concerns one item"},
	{"idempotency-stable", LevelOwnership, "every message for an item on a one-per-item edge carries the same key"},
	{"owner-stable", LevelOwnership, "messages for an item under one key name the same owner"},
	{"single-action", LevelOwnership, "messages under one key are the same message (a redelivery), not a second action"},
}

func isBuiltinRule(id string) bool {
	for _, r := range BuiltinRules {
		if r.ID == id {
			return true
		}
	}
	return false
}
