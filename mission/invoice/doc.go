// Package invoice is baton's reference mission (seed 002): a day of
// supplier invoices in a finance system, run by the kernel (package
// mission) over a system of record on the sandbox engine.
//
// [New] returns the mission and [Spec] its description. Each email of a
// scenario is processed in order, each through all agents before the next
// starts:
//
//	intake -(invoice.extracted)-> action -(match.prepared)-> boundary -(decision.made)-> monitor
//	intake, action -(exception.raised)-> monitor
//
// The monitor collects the day's messages and publishes one exception
// report at the end of the day. The package holds the mission's records
// ([Records]: suppliers, purchase orders, goods receipts, the invoice
// register, matches, the ledger, approvals, payments, escalations,
// rejections, closures and reports), its tools and their handlers, the
// policy cores with their seeded slips, the payload fields and silent
// defaults of its hand-offs, the end-state check ([Check]), the scenarios
// (scenarios/*.yaml) with their reviewed goldens (scenarios/golden), the
// hand-off contracts (contracts/*.yaml), the default mutant catalogue
// (catalogue.yaml) and the default protocol (protocol.yaml), all embedded.
//
// # Outcomes and reasons
//
// The clean mission writes exactly these strings (scenarios author expected
// end states with them). Boundary takes the first rule that applies:
//
//  1. escalate [ReasonSuspicious]: prompt-injection text or a <script> element.
//  2. reject [ReasonDuplicateInvoice]: the (supplier, invoice number) is
//     already registered (earlier email, or paid before the day) or
//     register_invoice answered BR-409.
//  3. close: [ReasonCreditNote] (credit notes), [ReasonStatement] (supplier
//     statements), [ReasonOutOfScope] (no attachment: newsletters, etc.).
//  4. escalate [ReasonUnknownSupplier]: the sender is not a supplier on file.
//  5. escalate [ReasonBankAccountChanged]: the document's bank account differs
//     from the supplier record's, or the body announces new bank details.
//  6. escalate [ReasonPOSupplierMismatch]: the PO belongs to another supplier.
//  7. escalate [ReasonSystemUnavailable]: a tool call's retries ran out,
//     upstream or in boundary itself; [ReasonToolRefused] when a call was
//     refused (authorisation, validation or business rule) instead.
//  8. escalate [ReasonVarianceUnexplained]: match outside tolerance that
//     cannot be explained.
//  9. escalate [ReasonNoPO]: no PO number, or the PO is not on file.
//  10. escalate [ReasonUnknownCurrency]: a currency outside the rate table.
//  11. escalate [ReasonAboveThreshold]: gross in EUR above 10000.00.
//  12. escalate [ReasonReviewRequested]: escalation requested upstream for a
//     reason none of the above names.
//  13. otherwise approve ([ReasonApproved]) and schedule payment of the gross,
//     in the invoice currency, to the supplier record's bank account.
//
// Matching (action): the PO value of received goods is the sum over PO lines
// of received quantity times the PO unit price; variance = invoice net minus
// that value. |variance| <= max(1%, 5.00) is matched; beyond that, if every
// invoice line's quantity equals the receipts, some unit price differs from
// the PO and |variance| <= 5%, it is variance_explained (paid); otherwise
// variance_unexplained.
//
// The exception report has one entry per escalated email (kind escalation),
// rejected email (kind rejection) and tool call that failed for good (kind
// tool_failure or refusal, reason = the error code), sorted by item, kind and
// reason. Closures and payments are not reported.
//
// # Decisions, seams and slips
//
// Model calls (one per decision step) and the Decide kinds: intake
// "classify" (doc type) and "escalate" (none|requested), plus an "extract"
// step; action "match" step, "proposal" (post|hold|close|reject) and
// "escalate"; boundary "decision" (approved|escalated|rejected|closed);
// every emitter "route" (the next owner); monitor a "report" step. The
// cores decide in their turn ([mission.Policy]). Slips: intake
// [Misclassify], [Misread] and misroute; action misroute; boundary
// [SkipLookup] and misroute.
//
// # Core runs alone
//
// A core run alone starts from a fixture: the scenario's initial state
// plus what the clean mission wrote before the agent's turn on the item,
// so that the invoice a boundary approves exists and a same-day duplicate
// is found, as in the integrated run. The monitor's item is the
// scenario's day.
//
// # Golden expectations
//
// The default scenarios' goldens are a stored, reviewed artifact:
// scenarios/golden/<scenario-id>.json, one mission.GoldenFile per
// scenario, attached by [DefaultScenarios] as Scenario.Golden.
// `go test ./mission/invoice -run TestGoldenFiles -update` re-records them;
// without -update that test fails when the clean build no longer records
// exactly the stored files, and checks that each file agrees with its
// scenario's authored end state. Scenarios loaded with [LoadScenarios], or
// changed since their file was recorded, carry no goldens, and designs
// record them on the fly.
package invoice
