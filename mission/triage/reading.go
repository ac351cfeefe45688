package triage

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode"
)

// desk is one mission value's policy cores and what they share: the
// readings of the texts they have read. A sweep plays each ticket's
// cores thousands of times on the same few texts, and reading one (its
// keywords, languages and amounts) cost a tenth of the sweep.
type desk struct {
	mu       sync.Mutex
	readings map[readKey]reading
}

type readKey struct{ subject, body string }

// maxReadings bounds the readings a desk remembers: texts past it (a
// model core's, a mutant's) are read afresh each time.
const maxReadings = 4096

func newDesk() *desk { return &desk{readings: make(map[readKey]reading, 64)} }

// read is [read] of subject and body, remembered.
func (d *desk) read(subject, body string) reading {
	k := readKey{subject, body}
	d.mu.Lock()
	r, ok := d.readings[k]
	d.mu.Unlock()
	if ok {
		return r
	}
	r = read(subject, body)
	d.mu.Lock()
	if len(d.readings) < maxReadings {
		d.readings[k] = r
	}
	d.mu.Unlock()
	return r
}

// reading is what a policy core reads in a ticket's text: the stand-in for
// a model's reading, by keywords in the four languages the desk serves.
type reading struct {
	invoiceID string // the first invoice id as written, upper-cased ("" when none)
	validID   bool   // it reads as INV- and digits
	duplicate bool   // the customer says they were charged twice
	billing   bool   // it is about money: a charge, a refund, an invoice
	tech      bool   // it is about a product problem
	security  bool   // a possible account compromise
	dataLoss  bool   // the customer lost data
	amount    float64
	currency  string // of amount; "" when the ticket states no amount
	language  string
}

var (
	invoiceToken = regexp.MustCompile(`(?i)\binv(?:[-–_][0-9a-z]*|[0-9]+)`)
	validInvoice = regexp.MustCompile(`^INV-[0-9]{1,6}$`)
	amountAfter  = regexp.MustCompile(`(?i)(\d+(?:[.,]\d{1,2})?)\s*(eur\b|euros?\b|€|usd\b|dollars?\b|\$|gbp\b|pounds?\b|£)`)
	amountBefore = regexp.MustCompile(`(€|\$|£)\s*(\d+(?:[.,]\d{1,2})?)`)
)

// Keywords, lower case, matched as substrings of the lower-cased text.
var (
	duplicateWords = []string{"twice", "double", "two times", "duplicate", "zweimal", "doppelt", "deux fois", "en double", "dos veces", "duplicado"}
	billingWords   = []string{"charge", "refund", "invoice", "billing", "payment", "money back", "rechnung", "belastet", "erstatt", "abgebucht",
		"facture", "rembours", "débité", "factura", "reembolso", "cobrado", "cobro"}
	techWords = []string{"crash", "offline", "printer", "error", "bug", "login", "log in", "password", "freez", "frozen", "not working",
		"stürzt", "absturz", "drucker", "fehler", "passwort", "imprimante", "plante", "hors ligne", "erreur", "mot de passe",
		"impresora", "se cierra", "no funciona", "contraseña"}
	securityWords = []string{"hacked", "someone else logged", "unauthorised login", "unauthorized login", "gehackt", "piraté", "hackeado"}
	dataLossWords = []string{"lost all", "data loss", "deleted all", "datenverlust", "alle daten", "perdu toutes", "perdí todos", "perdido todos"}
)

// languageWords are common words of each language besides English; a
// ticket with at least two of one language's is read as written in it.
var languageWords = map[string][]string{
	LangGerman:  {"ich", "wurde", "meine", "mein", "rechnung", "zweimal", "bitte", "nicht", "und", "ist", "der", "die", "das", "mir", "für", "wieder", "stürzt", "drucker", "wenn"},
	LangFrench:  {"je", "j'ai", "ma", "mon", "facture", "fois", "est", "pas", "merci", "les", "deux", "été", "hors", "ligne", "imprimante", "quand", "débité"},
	LangSpanish: {"mi", "factura", "veces", "se", "el", "por", "favor", "gracias", "han", "cobrado", "dos", "una", "impresora", "cuando"},
}

// read reads a ticket's subject and body.
func read(subject, body string) reading {
	text := subject + "\n" + body
	low := strings.ToLower(text)
	r := reading{
		duplicate: containsAny(low, duplicateWords),
		billing:   containsAny(low, billingWords),
		tech:      containsAny(low, techWords),
		security:  containsAny(low, securityWords),
		dataLoss:  containsAny(low, dataLossWords),
		language:  language(low),
	}
	if m := invoiceToken.FindString(text); m != "" {
		r.invoiceID = strings.ToUpper(m)
		r.validID = validInvoice.MatchString(r.invoiceID)
		r.billing = true
	}
	r.tech = r.tech || r.security || r.dataLoss
	r.amount, r.currency = statedAmount(text)
	return r
}

func containsAny(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// language returns the language most of whose common words the text uses
// (at least two), English otherwise; ties go to the earlier of German,
// French and Spanish.
func language(low string) string {
	words := strings.FieldsFunc(low, func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' })
	best, bestN := LangEnglish, 1
	for _, lang := range []string{LangGerman, LangFrench, LangSpanish} {
		n := 0
		for _, w := range words {
			for _, k := range languageWords[lang] {
				if w == k {
					n++
				}
			}
		}
		if n > bestN {
			best, bestN = lang, n
		}
	}
	return best
}

// statedAmount returns the largest amount the text states with a
// currency, and its ISO code.
func statedAmount(text string) (float64, string) {
	best, cur := 0.0, ""
	consider := func(num, sym string) {
		v, err := strconv.ParseFloat(strings.Replace(num, ",", ".", 1), 64)
		if err == nil && v > best {
			best, cur = v, currencyCode(sym)
		}
	}
	for _, m := range amountAfter.FindAllStringSubmatch(text, -1) {
		consider(m[1], m[2])
	}
	for _, m := range amountBefore.FindAllStringSubmatch(text, -1) {
		consider(m[2], m[1])
	}
	return best, cur
}

func currencyCode(sym string) string {
	switch s := strings.ToLower(sym); {
	case s == "$" || strings.HasPrefix(s, "usd") || strings.HasPrefix(s, "dollar"):
		return "USD"
	case s == "£" || strings.HasPrefix(s, "gbp") || strings.HasPrefix(s, "pound"):
		return "GBP"
	}
	return "EUR"
}

// misread returns id with one of its digits read as another, chosen by
// pick (the slip's keyed numbers).
func misread(id string, pick func(n int) int) string {
	var digits []int
	for i, c := range id {
		if c >= '0' && c <= '9' {
			digits = append(digits, i)
		}
	}
	if len(digits) == 0 {
		return id
	}
	i := digits[pick(len(digits))]
	d := int(id[i] - '0')
	nd := (d + 1 + pick(9)) % 10
	return id[:i] + strconv.Itoa(nd) + id[i+1:]
}
