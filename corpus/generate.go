package corpus

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// pcgStream is the second PCG word: fixed, so output depends on seed alone.
const pcgStream = 0x65766964656e6365 // "evidence"

// Markdown returns a deterministic Markdown document of about size bytes
// (at least size, overshooting by at most one block, typically under 1 KB).
// The same seed and size always give the same bytes.
//
// The document reads like a policy, finance or legal text: ATX headings and
// some Setext headings nested one to four levels deep, paragraphs (some
// wrapped at about 80 columns), bullet and numbered lists, and now and then a
// fenced code block holding a '#' comment line, which is not a heading.
// Sentences carry figures ("14 calendar days", "3.25x", "$250,000", "12.5%",
// "2025-03-31", "RAG-41") and a few non-ASCII words (café, Zürich, 東京).
func Markdown(seed uint64, size int) []byte {
	g := &gen{r: rand.New(rand.NewPCG(seed, pcgStream))}
	g.b.Grow(size + 2048)
	g.heading(1, g.title())
	level := 1
	for g.b.Len() < size {
		// Headings nest at most one level deeper than the current one, so
		// section paths look like a real outline.
		if g.r.IntN(3) == 0 {
			level = 1 + g.r.IntN(min(level+1, 4))
			if level == 1 {
				level = 2 // one title per document
			}
			g.heading(level, g.title())
		}
		switch n := g.r.IntN(20); {
		case n < 12:
			g.paragraph()
		case n < 17:
			g.list()
		case n < 19:
			g.table()
		default:
			g.code()
		}
	}
	return []byte(g.b.String())
}

// WriteMarkdown writes count generated documents of about size bytes each
// into dir (created if missing) as doc-0001.md, doc-0002.md, …; file i,
// counting from 1, holds Markdown(seed+i-1, size). It returns the paths in
// order.
func WriteMarkdown(dir string, count, size int, seed uint64) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("corpus: %w", err)
	}
	paths := make([]string, 0, count)
	for i := range count {
		p := filepath.Join(dir, fmt.Sprintf("doc-%04d.md", i+1))
		if err := os.WriteFile(p, Markdown(seed+uint64(i), size), 0o644); err != nil {
			return paths, fmt.Errorf("corpus: %w", err)
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// WriteMarkdownCorpus writes generated documents into dir (created if
// missing) until they hold at least total bytes, as doc-0001.md, … like
// WriteMarkdown, but of varied sizes: log-uniform from 4 KiB to 64 KiB
// (about 22 KB on average, so 30 MB makes some 1,350 files), as a folder of
// real documents varies. The same seed and total always give the same
// files. It returns the paths in order.
func WriteMarkdownCorpus(dir string, total int, seed uint64) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("corpus: %w", err)
	}
	r := rand.New(rand.NewPCG(seed, pcgStream))
	var paths []string
	for written := 0; written < total; {
		size := int(4096 * math.Pow(16, r.Float64()))
		doc := Markdown(seed+uint64(len(paths)), size)
		p := filepath.Join(dir, fmt.Sprintf("doc-%04d.md", len(paths)+1))
		if err := os.WriteFile(p, doc, 0o644); err != nil {
			return paths, fmt.Errorf("corpus: %w", err)
		}
		paths = append(paths, p)
		written += len(doc)
	}
	return paths, nil
}

type gen struct {
	r *rand.Rand
	b strings.Builder
}

func (g *gen) pick(words []string) string { return words[g.r.IntN(len(words))] }

func (g *gen) heading(level int, text string) {
	// Setext only exists for levels 1 and 2; use it now and then, as older
	// documents do.
	if level <= 2 && g.r.IntN(4) == 0 {
		under := "="
		if level == 2 {
			under = "-"
		}
		g.b.WriteString(text)
		g.b.WriteByte('\n')
		g.b.WriteString(strings.Repeat(under, len([]rune(text))))
		g.b.WriteString("\n\n")
		return
	}
	g.b.WriteString(strings.Repeat("#", level))
	g.b.WriteByte(' ')
	g.b.WriteString(text)
	g.b.WriteString("\n\n")
}

func (g *gen) title() string {
	t := g.pick(topics)
	switch g.r.IntN(4) {
	case 0:
		return fmt.Sprintf("%d.%d %s", 1+g.r.IntN(9), 1+g.r.IntN(9), t)
	case 1:
		return t + " " + g.pick(titleTails)
	}
	return t
}

func (g *gen) paragraph() {
	n := 2 + g.r.IntN(5)
	var p strings.Builder
	for i := range n {
		if i > 0 {
			p.WriteByte(' ')
		}
		p.WriteString(g.sentence())
	}
	if g.r.IntN(2) == 0 {
		g.b.WriteString(wrap(p.String(), 78+g.r.IntN(20)))
	} else {
		g.b.WriteString(p.String())
	}
	g.b.WriteString("\n\n")
}

func (g *gen) list() {
	n := 2 + g.r.IntN(5)
	numbered := g.r.IntN(3) == 0
	marker := g.pick([]string{"-", "*", "-"})
	for i := range n {
		if numbered {
			g.b.WriteString(strconv.Itoa(i+1) + ". ")
		} else {
			g.b.WriteString(marker + " ")
		}
		g.b.WriteString(g.sentence())
		g.b.WriteByte('\n')
		if !numbered && g.r.IntN(5) == 0 {
			g.b.WriteString("  " + marker + " " + capitalize(g.clause()) + ".\n")
		}
	}
	g.b.WriteByte('\n')
}

func (g *gen) table() {
	g.b.WriteString("| Item | Limit | Deadline | Reference |\n|---|---|---|---|\n")
	for range 2 + g.r.IntN(4) {
		fmt.Fprintf(&g.b, "| %s | %s | %s | %s |\n",
			capitalize(g.pick(objects)), g.figure(), g.date(), g.ident())
	}
	g.b.WriteByte('\n')
}

func (g *gen) code() {
	b := codeBlocks[g.r.IntN(len(codeBlocks))]
	fmt.Fprintf(&g.b, "```%s\n%s\n```\n\n", b.lang, b.body)
}

// sentence returns one sentence ending in a period (or, rarely, ? or !).
func (g *gen) sentence() string {
	var s string
	switch g.r.IntN(7) {
	case 0:
		s = fmt.Sprintf("%s %s", g.pick(openers), g.clause())
	case 1:
		s = fmt.Sprintf("Under %s, %s", g.ident(), g.clause())
	case 2:
		s = fmt.Sprintf("In %s, %s", g.pick(places), g.clause())
	case 3:
		s = g.pick(fillers)
		return s
	default:
		s = g.clause()
	}
	s = capitalize(s)
	switch g.r.IntN(25) {
	case 0:
		return s + "?"
	case 1:
		return s + "!"
	}
	return s + "."
}

// clause returns a lower-case clause without final punctuation.
func (g *gen) clause() string {
	subj := g.pick(subjects)
	subj = strings.ToLower(subj[:1]) + subj[1:] // capitalize restores it at a sentence start
	return fmt.Sprintf("%s %s %s %s %s",
		subj, g.pick(modals), g.pick(verbs), g.pick(objects), g.qualifier())
}

func (g *gen) qualifier() string {
	switch g.r.IntN(9) {
	case 0:
		return fmt.Sprintf("within %d calendar days", g.pick2(days))
	case 1:
		return "no later than " + g.date()
	case 2:
		return "up to " + g.amount()
	case 3:
		return fmt.Sprintf("when spending exceeds %s of the approved budget", g.percent())
	case 4:
		return fmt.Sprintf("while the Net Leverage Ratio stays below %s", g.multiple())
	case 5:
		return "as described in " + g.ident()
	case 6:
		return fmt.Sprintf("for a period of %d years", 1+g.r.IntN(10))
	case 7:
		return "unless approved in writing by " + g.pick(roles)
	}
	return g.pick(tails)
}

func (g *gen) pick2(xs []int) int { return xs[g.r.IntN(len(xs))] }

func (g *gen) figure() string {
	switch g.r.IntN(4) {
	case 0:
		return g.amount()
	case 1:
		return g.percent()
	case 2:
		return g.multiple()
	}
	return fmt.Sprintf("%d calendar days", g.pick2(days))
}

func (g *gen) date() string {
	return fmt.Sprintf("%d-%02d-%02d", 2023+g.r.IntN(4), 1+g.r.IntN(12), 1+g.r.IntN(28))
}

func (g *gen) amount() string {
	n := (1 + g.r.IntN(999)) * []int{1, 10, 100, 1000}[g.r.IntN(4)]
	switch g.r.IntN(3) {
	case 0:
		return "EUR " + thousands(n)
	case 1:
		return fmt.Sprintf("EUR %d per day", 25+5*g.r.IntN(20))
	}
	return "$" + thousands(n)
}

func (g *gen) percent() string {
	return fmt.Sprintf("%d.%d%%", g.r.IntN(40), g.r.IntN(10))
}

func (g *gen) multiple() string {
	return fmt.Sprintf("%d.%02dx", 1+g.r.IntN(5), 5*g.r.IntN(20))
}

func (g *gen) ident() string {
	return fmt.Sprintf("%s-%d", g.pick(idPrefixes), 1+g.r.IntN(199))
}

// thousands formats n with comma thousands separators: 250000 -> "250,000".
func thousands(n int) string {
	s := strconv.Itoa(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

func capitalize(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

// wrap breaks s into lines of at most width bytes at spaces, as editors do
// with long Markdown paragraphs (a soft break, not a new paragraph).
func wrap(s string, width int) string {
	var b strings.Builder
	line := 0
	for i, w := range strings.Fields(s) {
		if i > 0 {
			if line+1+len(w) > width {
				b.WriteByte('\n')
				line = 0
			} else {
				b.WriteByte(' ')
				line++
			}
		}
		b.WriteString(w)
		line += len(w)
	}
	return b.String()
}

var (
	topics = []string{
		"Scope", "Definitions", "Expense Reimbursement", "Travel Approval", "Meals and Per Diem",
		"Corporate Cards", "Financial Covenants", "Reporting Obligations", "Events of Default",
		"Data Retention", "Records Management", "Incident Response", "Access Control",
		"Audit Rights", "Payment Terms", "Exceptions", "Vendor Onboarding", "Conflicts of Interest",
		"Confidentiality", "Governing Law", "Amendments", "Key Rotation", "Backups",
	}
	titleTails = []string{"Overview", "Requirements", "Procedure", "Limits", "Responsibilities", "in Practice"}
	subjects   = []string{
		"The Borrower", "Each employee", "The Company", "The Administrative Agent", "Any cardholder",
		"The data owner", "The review committee", "A department head", "The Lender", "Each contractor",
		"The finance team", "The approving manager", "Every business unit", "The security officer",
	}
	modals = []string{"shall", "must", "may", "should", "will", "must not", "shall promptly"}
	verbs  = []string{
		"submit", "retain", "report", "approve", "maintain", "disclose", "reimburse", "review",
		"deliver", "certify", "archive", "reconcile", "escalate", "document", "encrypt",
	}
	objects = []string{
		"all expense reports", "the quarterly compliance certificate", "receipts for every claim",
		"the audited financial statements", "personal data", "a written notice", "the travel request",
		"records of each transaction", "the incident report", "any change of control",
		"hotel invoices", "mileage claims", "the annual budget", "backup media", "access logs",
		"the naïve baseline forecast", "invoices from the café vendor",
	}
	tails = []string{
		"before the end of each fiscal quarter", "in accordance with this policy",
		"after consulting the finance team", "on a best-efforts basis", "without undue delay",
		"at the request of the Administrative Agent", "in the currency of the expense",
	}
	roles      = []string{"the Chief Financial Officer", "the Administrative Agent", "the data protection officer", "a department head", "the Required Lenders"}
	places     = []string{"Zürich", "東京", "Berlin", "Malmö", "São Paulo", "New York", "the Lisbon office", "Montréal"}
	openers    = []string{"In addition,", "For the avoidance of doubt,", "As a rule,", "Where practical,", "Notwithstanding the above,", "Except as noted,"}
	idPrefixes = []string{"RAG", "POL", "FIN", "SEC", "DR", "CA"}
	days       = []int{5, 7, 10, 14, 30, 45, 60, 90}
	fillers    = []string{
		"Exceptions are rare and must be documented.",
		"Late submissions delay reimbursement.",
		"The policy applies worldwide.",
		"Questions go to the finance helpdesk.",
		"See the appendix for worked examples.",
		"Nothing in this section limits the rights of the Lender.",
		"These figures are reviewed every year.",
		"Approvals are recorded in the expense system.",
	}
	codeBlocks = []struct{ lang, body string }{
		{"yaml", "# retention settings (not a heading)\nretention_days: 90\nlegal_hold: false\nowner: finance"},
		{"sh", "# rotate the signing key every 90 days\nkeyctl rotate --key signing --days 90\nkeyctl list"},
		{"python", "# compute the net leverage ratio\ndef net_leverage(debt, cash, ebitda):\n    return (debt - cash) / ebitda"},
		{"", "# Expense export, one line per claim\nclaim_id,amount,currency\nRAG-41,250000,USD"},
	}
)
