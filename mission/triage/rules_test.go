package triage

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-lab/baton/mission"
)

// TestHardRules: each agent's hard trajectory rules, as data in its spec,
// flag exactly the call sequences they forbid.
func TestHardRules(t *testing.T) {
	c := func(name string) mission.ToolCall { return mission.ToolCall{Name: name, Attempts: 1} }
	failed := mission.ToolCall{Name: GetInvoice, Attempts: 4, Error: "SYS-503"}
	tests := []struct {
		name  string
		agent mission.Agent
		calls []mission.ToolCall
		want  []string
	}{
		{"billing looks up, then refunds", Billing, []mission.ToolCall{c(GetInvoice), c(IssueRefund)}, nil},
		{"billing refunds without a look-up", Billing, []mission.ToolCall{c(IssueRefund)}, []string{"hard.refund_without_lookup"}},
		{"billing refunds after a failed look-up", Billing, []mission.ToolCall{failed, c(IssueRefund)}, []string{"hard.refund_without_lookup"}},
		{"billing refunds, then looks up", Billing, []mission.ToolCall{c(IssueRefund), c(GetInvoice)}, []string{"hard.refund_without_lookup"}},
		{"tech searches and files a bug", Tech, []mission.ToolCall{c(SearchKB), c(OpenBug)}, nil},
		{"tech refunds", Tech, []mission.ToolCall{c(SearchKB), c(IssueRefund)}, []string{"hard.forbidden_tool", "hard.tech_refunds"}},
		{"tech reads an invoice", Tech, []mission.ToolCall{c(GetInvoice)}, []string{"hard.forbidden_tool", "hard.tech_reads_invoices"}},
		{"supervisor reads the log, then answers", Supervisor, []mission.ToolCall{c(RouteTicket), c(GetTicket), c(ReplyToUser)}, nil},
		{"supervisor answers itself", Supervisor, []mission.ToolCall{c(ReplyToUser)}, []string{"hard.supervisor_answers_itself"}},
		{"supervisor refunds", Supervisor, []mission.ToolCall{c(IssueRefund)}, []string{"hard.forbidden_tool"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, b := range Spec().Breaches(tt.agent, tt.calls) {
				got = append(got, b.Rule)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Breaches (-want +got):\n%s", diff)
			}
		})
	}
}
