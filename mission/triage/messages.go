package triage

import "github.com/baton-lab/baton/mission"

// messages are the hand-off kinds, their payload fields in the order the
// emitters write them, and how the consumers' parsers read each one: a
// missing language reads as English, a missing currency as EUR and a
// missing status as "resolved".
func messages() []mission.MessageSpec {
	s := func(name string) mission.Field { return mission.Field{Name: name, Type: mission.FieldString} }
	sd := func(name, def string) mission.Field {
		return mission.Field{Name: name, Type: mission.FieldString, Default: def}
	}
	return []mission.MessageSpec{
		{Kind: KindAssigned, Doc: "a ticket the supervisor hands a specialist", Fields: []mission.Field{
			s("ticket_id"), s("customer"), s("subject"), s("body"), sd("language", LangEnglish),
			{Name: "needs", Type: mission.FieldStrings, Doc: "the specialists the supervisor asked"},
		}},
		{Kind: KindAnswered, Doc: "what a specialist did about the ticket", Fields: []mission.Field{
			s("ticket_id"), sd("status", StatusResolved), s("reason"), s("invoice_id"), s("refund_id"),
			{Name: "amount", Type: mission.FieldNumber}, sd("currency", "EUR"), s("article"), s("bug_id"),
			sd("language", LangEnglish),
		}},
	}
}
