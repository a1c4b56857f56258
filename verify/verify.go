package verify

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/evidence-rag/evidence/resolve"
	"github.com/evidence-rag/evidence/resolve/match"
	"github.com/evidence-rag/evidence/store"
)

// Viewer is the part of *store.DB that Check reads through.
type Viewer interface {
	View(func(*store.Tx) error) error
}

// Check verifies a request against the store under a policy, in one read
// transaction, and returns the report. It writes nothing (see Answer).
// err is set only when the store could not be read or is damaged.
func Check(ctx context.Context, db Viewer, req *Request, pol *Policy) (*Report, error) {
	if pol == nil {
		pol = DefaultPolicy()
	}
	rep := &Report{RequestID: req.RequestID, Policy: pol.Name, Claims: make([]ClaimReport, len(req.Claims)),
		UncitedSentences: []Sentence{}, Reasons: []string{}, Sources: []Source{}, Metadata: req.Metadata}
	retrieved := make(map[string]bool, len(req.Retrieved))
	for _, id := range req.Retrieved {
		retrieved[id] = true
	}
	var todo []pending
	err := db.View(func(tx *store.Tx) error {
		rep.storeSequence = tx.Sequence()
		c := checker{tx: tx, req: req, pol: pol, retrieved: retrieved, meaning: scanners.Get().(*meaningScanner)}
		c.meaning.head = c.versionHead
		defer c.meaning.release()
		defer func() { todo = c.pending }()
		if len(req.Claims) == 0 {
			return c.ground(ctx, rep) // the cheaper contract
		}
		for i := range req.Claims {
			if err := ctx.Err(); err != nil {
				return err
			}
			cr, err := c.claim(&req.Claims[i])
			if err != nil {
				return err
			}
			rep.Claims[i] = cr
			if cr.Status == Supported && len(cr.Evidence) > 0 && (cr.Disposition == Accept || cr.Disposition == Clarify) {
				c.pending = append(c.pending, pending{claim: i, spans: c.spans})
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	// The judge runs outside the read transaction: a slow model must not
	// hold the store's pages.
	judgeClaims(ctx, req, pol, rep, todo)
	if len(req.Claims) > 0 { // an answer without claims is not split (docs/verify.md)
		rep.UncitedSentences = withoutClaims(UncitedSentences(req.Answer), req.Claims)
	}
	decide(rep, req, pol)
	return rep, nil
}

type checker struct {
	tx         *store.Tx
	req        *Request
	pol        *Policy
	retrieved  map[string]bool
	figures    [2][]Figure        // reused buffers: a claim's figures and its evidence's
	resolution resolve.Resolution // reused for each citation
	pending    []pending          // claims a judge is to be asked about
	spans      []string           // the last claim's accepted evidence, as a judge sees it
	meaning    *meaningScanner    // from scanners: its buffers outlive the request
	meaningEvs []meaningEvidence
	heads      map[string]string // versionHead's, per request
}

// accepted is one citation that resolved and whose quote matched: the
// evidence span its figures and qualifiers are checked against.
type accepted struct {
	report  int    // index in the claim's evidence reports
	text    string // the evidence span
	before  string // the cited chunk's text before the span, where a unit scale may be stated
	meaning meaningEvidence
	// figures is the span widened to whole numbers where an edge cuts one,
	// and figuresBefore the chunk before it: a quote "1,250" cut from
	// "1,250,000" states no figure 1,250.
	figures, figuresBefore string
}

// acceptSpan is the accepted citation of chunk bytes [bs, be).
func acceptSpan(chunk string, bs, be int, er *EvidenceReport) accepted {
	fs, fe := wholeNumbers(chunk, bs, be)
	return accepted{text: chunk[bs:be], before: chunk[:bs], meaning: meaningContext(chunk, bs, be, er),
		figures: chunk[fs:fe], figuresBefore: chunk[:fs]}
}

// wholeNumbers widens bytes [bs, be) of s so that neither edge cuts a
// number: digits on both sides of an edge, or a digit, a separator and a
// digit ("1,250|,000", "3.2|5").
func wholeNumbers(s string, bs, be int) (int, int) {
	digit := func(i int) bool { return i >= 0 && i < len(s) && '0' <= s[i] && s[i] <= '9' }
	sep := func(i int) bool { return i >= 0 && i < len(s) && (s[i] == ',' || s[i] == '.') }
	if be > bs && digit(be-1) {
		for digit(be) || sep(be) && digit(be+1) {
			be++
		}
	}
	if bs < be && digit(bs) {
		for digit(bs-1) || sep(bs-1) && digit(bs-2) {
			bs--
		}
	}
	return bs, be
}

func (c *checker) claim(cl *Claim) (ClaimReport, error) {
	cr := ClaimReport{ClaimID: cl.ClaimID, Reasons: []string{}, MissingFigures: []Figure{}, Evidence: make([]EvidenceReport, len(cl.Evidence)),
		Checks: make([]string, 0, maxChecks), Entailment: EntailmentNotChecked}
	c.spans = nil
	disposition := Accept
	good := make([]accepted, 0, 4) // on the stack for the few citations a claim has
	for i := range cl.Evidence {
		er, span, d, err := c.evidence(&cl.Evidence[i], cl.Text)
		if err != nil {
			return cr, err
		}
		cr.Evidence[i] = er
		disposition = stronger(disposition, d)
		if er.Status == EvidenceOK {
			span.report = i
			good = append(good, span)
		}
	}
	switch {
	case len(cl.Evidence) == 0 && cl.requiresEvidence():
		cr.Status, cr.Disposition = Uncited, RemoveClaim
		cr.Reasons = append(cr.Reasons, "no_citation")
		return cr, nil
	case len(cl.Evidence) == 0:
		cr.Status, cr.Disposition = Supported, Accept
		return cr, nil
	case len(good) == 0:
		cr.Status, cr.Disposition = statusOf(cr.Evidence), disposition
		return cr, nil
	}

	// Figures and qualifiers are judged on the union of accepted evidence.
	evidence := good[0].text
	if len(good) > 1 {
		var union strings.Builder
		for _, g := range good {
			union.WriteString(g.text)
			union.WriteString("\n")
		}
		evidence = union.String()
	}
	var missing []Figure
	contradicted := false
	if c.figures[0] = appendFigures(c.figures[0][:0], cl.Text); len(c.figures[0]) > 0 {
		markClaimFigures(c.figures[0], cl.Text)
		c.figures[1] = c.figures[1][:0]
		for _, g := range good {
			if g.figures == cl.Text {
				// The claim is the span, widened to whole numbers, to the
				// byte: its figures are the span's, read once.
				c.figures[1] = appendEvidenceFiguresOf(c.figures[1], c.figures[0], g.figures, g.figuresBefore, c.figures[0])
			} else {
				c.figures[1] = appendEvidenceFigures(c.figures[1], g.figures, g.figuresBefore, c.figures[0])
			}
		}
		c.figures[1] = appendOnes(c.figures[1], c.figures[0], evidence)
		missing, contradicted = checkFigures(c.figures[0], c.figures[1])
		if len(missing) > 0 {
			missing = withoutOwnSections(missing, good, cr.Evidence, cl.Text)
		}
		if contradicted && outsideQuote(missing, good) {
			// The quote's other figures of the kind are other facts: the
			// cited chunk states each figure the claim misses, exactly,
			// outside the quote ("Restructuring charges | 1,500 | 3,200"
			// quoted for a claim of the whole reconciliation). The quote
			// is narrower than the claim: insufficient, not contradicted.
			contradicted = false
		}
	}
	qMissing, qUnsupported, qContradicted := c.checkQualifiers(cl.Text, evidence)
	var meaning meaningResult
	if c.pol.meaningChecks() {
		evs := c.meaningEvs[:0]
		for _, g := range good {
			evs = append(evs, g.meaning)
		}
		c.meaningEvs = evs
		c.meaning.claimFigs, c.meaning.claimFigsOf = c.figures[0], cl.Text
		meaning = c.meaning.check(cl.Text, evs)
		c.meaning.claimFigs, c.meaning.claimFigsOf = nil, ""
		cr.Entailment = EntailmentMeaning
		cr.Findings = meaning.findings
	}
	cr.MissingFigures = append(cr.MissingFigures, missing...)
	cr.MissingQualifiers = append(qMissing, meaning.clarify...)
	status, d := Supported, Accept
	switch {
	case contradicted || len(qContradicted) > 0 || meaning.contradicted:
		status, d = Contradicted, BlockAnswer
		if contradicted {
			cr.Reasons = append(cr.Reasons, "figure_contradicted")
		}
		for _, q := range qContradicted {
			cr.Reasons = append(cr.Reasons, "qualifier_contradicted:"+q)
		}
	case meaning.review:
		status, d = Unsupported, Review
	case len(missing) > 0 || len(qUnsupported) > 0 || meaning.unsupported:
		status, d = Unsupported, RemoveClaim
		if len(missing) > 0 {
			cr.Reasons = append(cr.Reasons, "figure_missing")
			if outsideQuote(missing, good) {
				cr.Reasons = append(cr.Reasons, ReasonFigureOutsideQuote)
			}
		}
		for _, q := range qUnsupported {
			cr.Reasons = append(cr.Reasons, "qualifier_unsupported:"+q)
		}
	case len(cr.MissingQualifiers) > 0:
		d = Clarify
		for _, q := range qMissing {
			cr.Reasons = append(cr.Reasons, "qualifier_missing:"+q)
		}
	}
	// Every meaning finding is a reason, whichever decided the status.
	for _, f := range meaning.findings {
		if !slices.Contains(cr.Reasons, f.Reason) {
			cr.Reasons = append(cr.Reasons, f.Reason)
		}
	}
	if len(cr.MissingQualifiers) == 0 {
		cr.MissingQualifiers = nil
	}
	cr.Checks = claimChecks(cr.Checks, cr.Evidence)
	citationChecks := len(cr.Checks)
	if !contradicted && len(missing) == 0 {
		cr.Checks = append(cr.Checks, CheckFigures)
	}
	if len(c.pol.compiled) > 0 && len(qMissing)+len(qUnsupported)+len(qContradicted) == 0 {
		cr.Checks = append(cr.Checks, CheckQualifiers)
	}
	if c.pol.meaningChecks() && len(meaning.findings) == 0 {
		cr.Checks = append(cr.Checks, CheckMeaning)
	}
	c.spans = make([]string, 0, len(good))
	for _, g := range good {
		c.spans = append(c.spans, g.meaning.context)
	}
	if status != Supported {
		evStatus := EvidenceInsufficient
		if status == Contradicted {
			evStatus = EvidenceContradicts
		}
		for _, g := range good {
			er := &cr.Evidence[g.report]
			er.Status = evStatus
			er.MissingFigures = append(er.MissingFigures, missing...) // [] when only a meaning check failed
			er.Reasons = append(er.Reasons, cr.Reasons...)
		}
	}
	// A failed citation beside accepted ones still counts: the strongest
	// finding decides, so a bogus citation is never shown beside a good one.
	cr.Disposition = stronger(disposition, d)
	cr.Status = status
	// A citation that contradicts the claim (an altered quote whose span
	// holds another figure) names the status even beside a missing figure.
	if cr.Disposition != d && (status == Supported || cr.Disposition == BlockAnswer) {
		cr.Status = statusOf(cr.Evidence)
	}
	for _, g := range good {
		if er := &cr.Evidence[g.report]; er.Status == EvidenceOK {
			er.Checks = append(er.Checks, cr.Checks[citationChecks:]...)
		}
	}
	return cr, nil
}

// maxChecks is how many checks a claim or citation can list (resolution,
// quote, figures, qualifiers, meaning, judge): their slices are made once.
const maxChecks = 6

// claimChecks appends the citation checks every citation of a claim
// passed: resolution, then quote when any citation quoted.
func claimChecks(checks []string, evs []EvidenceReport) []string {
	resolved, quoted, matched := true, false, true
	for i := range evs {
		e := &evs[i]
		resolved = resolved && slices.Contains(e.Checks, CheckResolution)
		if e.Match != "" {
			quoted = true
			matched = matched && slices.Contains(e.Checks, CheckQuote)
		}
	}
	if len(evs) > 0 && resolved {
		checks = append(checks, CheckResolution)
		if quoted && matched {
			checks = append(checks, CheckQuote)
		}
	}
	return checks
}

// SupersededIfTextUnchanged is the policy's default superseded rule: a
// citation of a superseded version whose canonical text is the current
// version's (resolve.Resolution.TextUnchanged) is checked as a current one.
const SupersededIfTextUnchanged = "accept_if_text_unchanged"

// acceptsSuperseded reports whether the policy lets a citation of the
// superseded version r resolved to stand: under "accept" always, under
// accept_if_text_unchanged when its text is the current text.
func (p *Policy) acceptsSuperseded(r *resolve.Resolution) bool {
	switch p.Superseded {
	case "accept":
		return true
	case SupersededIfTextUnchanged:
		return r.TextUnchanged
	}
	return false
}

// statusOf names a claim's status from its strongest failed citation.
func statusOf(evs []EvidenceReport) string {
	worst := EvidenceOK
	for _, e := range evs {
		if evidenceRank[e.Status] > evidenceRank[worst] {
			worst = e.Status
		}
	}
	return claimStatusOf[worst]
}

// evidenceRank orders evidence statuses, worst last; claimStatusOf names
// the claim status a worst citation gives.
var (
	evidenceRank = map[string]int{EvidenceOK: 0, EvidenceInsufficient: 1, EvidenceStale: 2, EvidenceUnresolved: 3,
		EvidenceForbidden: 4, EvidenceContradicts: 5}
	claimStatusOf = map[string]string{EvidenceOK: Supported, EvidenceInsufficient: Unsupported, EvidenceStale: Stale,
		EvidenceUnresolved: Unresolved, EvidenceForbidden: Forbidden, EvidenceContradicts: Contradicted}
)

// evidence checks one citation of claim in the order of docs/contract.md#dispositions and
// returns its report, the evidence span when accepted, and its disposition.
func (c *checker) evidence(e *Evidence, claim string) (EvidenceReport, accepted, string, error) {
	er := EvidenceReport{ChunkID: e.ChunkID, Reasons: []string{}, MissingFigures: []Figure{}, Checks: make([]string, 0, maxChecks)}
	unresolved := func(reason string) (EvidenceReport, accepted, string, error) {
		er.Status = EvidenceUnresolved
		er.Reasons = append(er.Reasons, reason)
		return er, accepted{}, BlockClaim, nil
	}
	if !c.retrieved[e.ChunkID] {
		// Checked before the store is read: a citation outside the
		// retrieved set is never looked up, so it cannot leak anything.
		if _, _, err := store.ParseChunkID(e.ChunkID); err != nil {
			return unresolved("unknown_chunk")
		}
		return unresolved("not_retrieved")
	}
	r := &c.resolution
	if err := resolve.ChunkInto(c.tx, r, e.ChunkID, c.req.Principal); err != nil {
		return er, accepted{}, "", err
	}
	switch r.Status {
	case resolve.StatusNotFound:
		return unresolved("unknown_chunk")
	case resolve.StatusForbidden:
		er.Status = EvidenceForbidden
		er.Reasons = append(er.Reasons, "forbidden")
		return er, accepted{}, BlockClaim, nil
	case resolve.StatusQuarantined:
		return unresolved("quarantined:" + r.Reason)
	case resolve.StatusDeleted:
		er.DocumentID, er.DocumentVersion, er.VersionStatus = r.DocumentID, r.DocumentVersion, string(r.VersionStatus)
		return unresolved("deleted")
	}
	er.DocumentID, er.DocumentVersion, er.VersionStatus = r.DocumentID, r.DocumentVersion, string(r.VersionStatus)
	er.CurrentVersion, er.TextUnchanged = r.CurrentVersion, r.TextUnchanged
	if r.Status == resolve.StatusSuperseded && !c.pol.acceptsSuperseded(r) {
		er.Status = EvidenceStale
		er.Reasons = append(er.Reasons, "superseded_by:"+r.CurrentVersion)
		if c.pol.Superseded == "review" {
			return er, accepted{}, Review, nil
		}
		return er, accepted{}, BlockClaim, nil
	}

	// The cited span: the offsets when given (inside the chunk), else the chunk.
	er.Checks = append(er.Checks, CheckResolution)
	chunkText := r.Text
	lo, hi := 0, r.End-r.Start // code points within the chunk
	if e.SourceStart != nil {
		if *e.SourceStart < r.Start || *e.SourceEnd > r.End {
			return unresolved("offsets_outside_chunk")
		}
		lo, hi = *e.SourceStart-r.Start, *e.SourceEnd-r.Start
	}
	if e.Quote == "" {
		bs, be := match.ByteRange(chunkText, lo, hi)
		span := chunkText[bs:be]
		if err := c.fill(&er, r, r.Start+lo, r.Start+hi); err != nil {
			return er, accepted{}, "", err
		}
		er.Status, er.Match, er.Text = EvidenceOK, "", span
		a := acceptSpan(chunkText, bs, be, &er)
		a.meaning.whole = e.SourceStart == nil
		return er, a, Accept, nil
	}
	m, bs, be := match.Locate(chunkText, e.Quote, match.Options{Hint: lo, MaxDistance: c.pol.FuzzyMaxDistance})
	er.Match, er.Distance, er.Elided = string(m.Level), m.Distance, m.Elided
	if !m.Found() {
		er.Match = string(match.LevelNone)
		er.Status = EvidenceInsufficient
		er.Reasons = append(er.Reasons, "quote_not_found")
		if loc := c.locate(r, e.Quote); loc != nil {
			er.FoundIn = loc
			er.Reasons[len(er.Reasons)-1] = "quote_in_other_chunk"
		}
		return er, accepted{}, RemoveClaim, nil
	}
	if m.Level == match.LevelFuzzy && !c.pol.allowFuzzy() {
		er.Status = EvidenceInsufficient
		er.Reasons = append(er.Reasons, "fuzzy_not_allowed")
		return er, accepted{}, RemoveClaim, nil
	}
	if e.SourceStart != nil && (m.End <= lo || m.Start >= hi) {
		er.Status = EvidenceInsufficient
		er.Reasons = append(er.Reasons, "quote_outside_offsets")
		return er, accepted{}, RemoveClaim, nil
	}
	span := chunkText[bs:be]
	// A quote that matched only loosely must still carry the span's figures
	// exactly: OCR noise is excused, a changed digit is not. The span is
	// what the citation points at: when it contradicts a figure that claim
	// and quote state alike, the model altered both, and that blocks.
	if m.Level != match.LevelExact {
		quoted := Figures(e.Quote)
		if miss := changedValues(quoted, Figures(span)); len(miss) > 0 {
			er.Status = EvidenceInsufficient
			er.MissingFigures = miss
			er.Reasons = append(er.Reasons, "quote_figures_differ")
			d := RemoveClaim
			if claimMissing, contradicted := spanContradicts(claim, quoted, span, chunkText[:bs]); contradicted {
				er.Status, d = EvidenceContradicts, BlockAnswer
				er.MissingFigures = appendNewFigures(er.MissingFigures, claimMissing)
				er.Reasons = append(er.Reasons, "figure_contradicted")
			}
			if err := c.fill(&er, r, r.Start+m.Start, r.Start+m.End); err != nil {
				return er, accepted{}, "", err
			}
			return er, accepted{}, d, nil
		}
	}
	// Nor may it change what the span says: an elision (…) or OCR noise
	// never stands in for a dropped "not", bound or exception.
	if (m.Level == match.LevelFuzzy || m.Elided) && c.pol.meaningChecks() {
		var gaps [][2]int
		if m.Elided {
			gaps = match.ElidedGaps(span, e.Quote, match.Options{Hint: match.NoHint})
		}
		if qw, sw := c.quoteMeaningDiffers(e.Quote, span, m.Level == match.LevelFuzzy, gaps); qw != "" || sw != "" {
			er.Status = EvidenceInsufficient
			er.Reasons = append(er.Reasons, "quote_meaning_differs")
			er.Findings = append(er.Findings, Finding{Check: "quote", Reason: "quote_meaning_differs", Claim: qw, Evidence: sw,
				Message: "quote_meaning_differs: quote " + quoteWords(qw) + " / evidence " + quoteWords(sw)})
			if err := c.fill(&er, r, r.Start+m.Start, r.Start+m.End); err != nil {
				return er, accepted{}, "", err
			}
			return er, accepted{}, RemoveClaim, nil
		}
	}
	if err := c.fill(&er, r, r.Start+m.Start, r.Start+m.End); err != nil {
		return er, accepted{}, "", err
	}
	er.Status, er.Text = EvidenceOK, span
	er.Checks = append(er.Checks, CheckQuote)
	return er, acceptSpan(chunkText, bs, be, &er), Accept, nil
}

// headCodePoints is how much of a version's opening the names check reads.
const headCodePoints = 400

// versionHead returns the first code points of a version's text, where a
// document names itself and its parties, once per request and version.
func (c *checker) versionHead(id string) string {
	if h, ok := c.heads[id]; ok {
		return h
	}
	h := ""
	if v, err := c.tx.Version(id); err == nil {
		if txt, err := c.tx.Text(v); err == nil {
			if b, err := store.VerifySlice(v, txt, 0, min(headCodePoints, v.TextLen)); err == nil {
				h = string(b)
			}
		}
	}
	if c.heads == nil {
		c.heads = map[string]string{}
	}
	c.heads[id] = h
	return h
}

// fill sets the coordinates of an evidence span from ingestion metadata:
// the page, label and section that contain the span's start, which may
// differ from the chunk's when the quote sits after a page break or a
// heading inside it.
func (c *checker) fill(er *EvidenceReport, r *resolve.Resolution, start, end int) error {
	er.SourceStart, er.SourceEnd = start, end
	l, err := c.tx.Layout(r.StoredVersion())
	if err != nil {
		return err
	}
	p := l.Place(start, end)
	er.PageNumber, er.PageEnd, er.PageLabel, er.SectionPath = p.Page, p.PageEnd, p.PageLabel, p.SectionPath
	return nil
}

// locate looks for a quote elsewhere in the cited version and names the
// chunk and page where it really is. Only on the failure path.
func (c *checker) locate(r *resolve.Resolution, quote string) *Location {
	v, err := c.tx.Version(r.DocumentVersion)
	if err != nil {
		return nil
	}
	txt, err := c.tx.Text(v)
	if err != nil || store.VerifyText(v, txt) != nil { // the whole text is searched: it is checked whole
		return nil
	}
	m := match.Find(string(txt.Bytes()), quote, match.Options{Hint: r.Start, MaxDistance: c.pol.FuzzyMaxDistance})
	if !m.Found() || m.Count > 1 {
		return nil
	}
	var loc *Location
	_ = c.tx.ForEachChunk(v, func(ch *store.Chunk) error {
		if ch.Quarantine == nil && ch.Start <= m.Start && m.End <= ch.End {
			loc = &Location{ChunkID: ch.ID(), PageNumber: ch.Page, PageLabel: ch.PageLabel, SectionPath: ch.SectionPath,
				SourceStart: m.Start, SourceEnd: m.End}
			return errStop
		}
		return nil
	})
	if loc != nil && loc.ChunkID == r.ChunkID {
		return nil
	}
	return loc
}

type stopErr struct{}

func (stopErr) Error() string { return "stop" }

var errStop error = stopErr{}

// checkFigures returns the claim figures absent from the evidence, and
// whether one of them is contradicted: the evidence holds a figure of the
// same kind that equals no figure of the claim (docs/contract.md#figures).
func checkFigures(claim, evidence []Figure) (missing []Figure, contradicted bool) {
	inEvidence, inClaim := figureSet(evidence), figureSet(claim)
	for i, f := range claim {
		// An earlier equal figure of the claim has been judged already.
		if inEvidence(f) || earlierFigure(claim, i) || countedAs(f, evidence) || yearAsNumber(f, evidence) || monthInDate(f, evidence) || f.Condition && inRange(f, evidence) || f.Fall && fallenIn(f, evidence) || convertedIn(f, evidence) || roundedIn(f, evidence) || perTimeHeld(f, evidence) ||
			f.Spelled && !spelledJudged(f, evidence) {
			continue
		}
		missing = append(missing, f)
		if f.Kind == "number" || inRange(f, evidence) {
			continue // a value inside a range the evidence states is not stated, nor contradicted
		}
		for _, e := range evidence {
			if sameKind(e, f) && !inClaim(e) {
				contradicted = true
				break
			}
		}
	}
	return missing, contradicted
}

// fallenIn reports whether the evidence writes the claim's fall signed:
// "slipped 1.0%" in a change column's "-1.0%".
func fallenIn(f Figure, evidence []Figure) bool {
	for _, e := range evidence {
		if e.Kind == f.Kind && e.Value == "-"+f.Value {
			return true
		}
	}
	return false
}

// inRange reports whether the claim's value lies within a range of its
// kind that the evidence states, ends included ("seven years" in "5 to less
// than 10 years"). Held only for a condition of the claim (the rule applied
// to a case the band covers); otherwise the range does not state the value.
func inRange(f Figure, evidence []Figure) bool {
	v, err := strconv.ParseFloat(f.Value, 64)
	if err != nil {
		return false
	}
	for _, e := range evidence {
		if e.RangeEnd == "" || e.Kind != f.Kind {
			continue
		}
		a, err1 := strconv.ParseFloat(e.Value, 64)
		b, err2 := strconv.ParseFloat(e.RangeEnd, 64)
		if err1 == nil && err2 == nil && min(a, b) <= v && v <= max(a, b) {
			return true
		}
	}
	return false
}

// monthInDate reports whether the claim's month ("May 2021") is the month
// of a date the evidence gives in full ("4 May 2021").
func monthInDate(f Figure, evidence []Figure) bool {
	if f.Kind != "date" || len(f.Value) != len("2021-05") {
		return false
	}
	for _, e := range evidence {
		if e.Kind == "date" && len(e.Value) > len(f.Value) && strings.HasPrefix(e.Value, f.Value+"-") {
			return true
		}
	}
	return false
}

// yearAsNumber reports whether the claim's year is a bare number or a
// count of the evidence, or its bare number a year there: the words after
// it decide which the scanner reads ("came out in 1994, and" is a year,
// "was released in 1994 and added" a number, "in 1973 classified by" a
// count), not what it is.
func yearAsNumber(f Figure, evidence []Figure) bool {
	if f.Kind != "year" && f.Kind != "number" && !(strings.HasPrefix(f.Kind, "count:") && yearLike(f.Value)) {
		return false
	}
	for _, e := range evidence {
		// "the first nine months of 2025" in "the nine months ended
		// September 30, 2025", "fiscal year 2026" in "the fiscal year ending
		// December 31, 2026": a year the evidence dates within; and "the
		// 2025 outlook" (a count of outlook, as the scanner reads it) is
		// the year 2025 the evidence writes.
		if yearLike(f.Value) && (e.Kind == "date" && strings.HasPrefix(e.Value, f.Value+"-") ||
			strings.HasPrefix(f.Kind, "count:") && e.Value == f.Value && (e.Kind == "year" || e.Kind == "number")) {
			return true
		}
		if e.Value == f.Value && e.Kind != f.Kind && (e.Kind == "year" || e.Kind == "number" ||
			f.Kind == "year" && strings.HasPrefix(e.Kind, "count:")) { // "in 1973 classified by": no count of classified
			return true
		}
	}
	return false
}

// ReasonFigureOutsideQuote comes with figure_missing when every missing
// figure is in a cited chunk outside the span its quote matched: the
// citation points at less than the claim states (the evidence is the span,
// DESIGN), and quoting the whole sentence the claim rests on would show it.
// The disposition stays remove_claim.
const ReasonFigureOutsideQuote = "figure_outside_quote"

// outsideQuote reports whether each missing figure is found in the whole
// chunk of a quoted citation. Only on the failure path: the chunks'
// figures are read here, not before.
func outsideQuote(missing []Figure, good []accepted) bool {
	var chunkFigs []Figure
	quoted := false
	for _, g := range good {
		if g.meaning.whole || len(g.text) == len(g.meaning.chunk) {
			continue // the whole chunk is the span already
		}
		quoted = true
		chunkFigs = appendEvidenceFigures(chunkFigs, g.meaning.chunk, "", missing) // a table's scale too
	}
	if !quoted {
		return false
	}
	still, _ := checkFigures(missing, chunkFigs)
	return len(still) == 0
}

// yearLike reports whether v is a year of the last two centuries.
func yearLike(v string) bool {
	return len(v) == 4 && (v[:2] == "19" || v[:2] == "20") && isDigit(rune(v[2])) && isDigit(rune(v[3]))
}

// appendRangeMembers adds to the evidence figures the numbers a claim
// lists between two of its own that the evidence writes as a range:
// "runlevels 2, 3 and 4" in "runlevel 2 to 4" (also "2-4", "2–4", "2
// through 4"). Only whole numbers, only a claim that states both ends,
// and only ranges of 31 or fewer: a claim's "3%" alone is no member of
// "between 2% and 4%", which states no 3%.
func appendRangeMembers(ev, claim []Figure, evidence string) []Figure {
	for _, f := range claim {
		v, err := strconv.Atoi(f.Value)
		if f.Kind != "number" || err != nil || slices.ContainsFunc(ev, func(e Figure) bool { return e.Value == f.Value }) {
			continue
		}
		for _, a := range claim {
			lo, err := strconv.Atoi(a.Value)
			if !countLike(a.Kind) || err != nil || lo >= v {
				continue
			}
			for _, b := range claim {
				hi, err := strconv.Atoi(b.Value)
				if !countLike(b.Kind) || err != nil || hi <= v || hi-lo > 31 {
					continue
				}
				for _, sep := range [...]string{" to ", "-", "–", " through "} {
					if r := a.Value + sep + b.Value; containsNumberPhrase(evidence, r) {
						ev = append(ev, Figure{Kind: "number", Value: f.Value, Text: r})
						goto next
					}
				}
			}
		}
	next:
	}
	return ev
}

// containsNumberPhrase reports whether s holds p with no digit on either
// side ("2 to 4" is not in "12 to 45").
func containsNumberPhrase(s, p string) bool {
	for from := 0; ; {
		i := strings.Index(s[from:], p)
		if i < 0 {
			return false
		}
		i += from
		if (i == 0 || !isDigit(rune(s[i-1]))) && (i+len(p) == len(s) || !isDigit(rune(s[i+len(p)]))) {
			return true
		}
		from = i + 1
	}
}

// countedAs reports whether the evidence states the claim's bare number or
// count as a number or count of something else: "Debian 10 (buster)"
// against "the Debian 10 release", "panicnil=1 restores" against "using
// `panicnil=1` restores". The word after a number names what it counts
// only sometimes, and writers put other words there, so a count of the
// same value stands for it, unless the evidence counts the claim's own
// thing with another value: then the claim's count is wrong ("3 banks"
// against "5 banks and 3 lenders"), as checkFigures says.
func countedAs(f Figure, evidence []Figure) bool {
	if !countLike(f.Kind) {
		return false
	}
	found := false
	for _, e := range evidence {
		switch {
		case f.Kind != "number" && e.Kind == f.Kind && e.Value != f.Value:
			return false
		case e.Value == f.Value && (countLike(e.Kind) || isMeasure(e.Kind) || f.Kind == "number" && strings.HasPrefix(e.Kind, "duration:") ||
			f.Kind == "count:point" && e.Kind == "percentage_point" && !e.BasisPoints):
			// ("0.6 points" for "0.6 percentage points", as analysts write.)
			// A bare number or a count is found in a measure of its value
			// ("18" in "18pt": the word after a number names what it counts
			// only sometimes, "20 along y" for "20 points"), and a bare
			// number in a duration ("(3 on Windows)" for "3 secs").
			found = true
		}
	}
	return found
}

// appendOnes adds to the evidence figures a 1 the evidence writes as a
// word: a claim's "1 year" or "1 business day" is found in "one year", "a
// year", "an hour". Number words are not figures of their own ("one" is a
// pronoun as often as a number), so only a claim figure of 1 with a unit
// or counted noun, written after it, is looked for.
//
// A count is also found where the evidence joins its number to the noun
// with a hyphen: "3 passes" in "a three-pass process" or "a 3-pass
// process" (the scanner reads no count in "three-pass", as "two-factor"
// counts no factors).
func appendOnes(ev, claim []Figure, evidence string) []Figure {
	ev = appendRangeMembers(ev, claim, evidence)
	for _, f := range claim {
		if noun, ok := strings.CutPrefix(f.Kind, "count:"); ok && f.Value != "" && f.Value[0] != '-' {
			if v, err := strconv.Atoi(f.Value); err == nil && v > 0 && v < 100 {
				for _, n := range [...]string{f.Value, spelledOf(v)} {
					if n != "" && containsPhraseFold(evidence, n+"-"+noun) {
						ev = append(ev, Figure{Kind: f.Kind, Value: f.Value, Text: n + "-" + noun})
						break
					}
				}
			}
		}
		// "defaults to 0" is found in "by default, it is zero" (the
		// scanner reads no figure in "zero", too often a word).
		if f.Kind == "number" && f.Value == "0" && containsPhraseFold(evidence, "zero") {
			ev = append(ev, Figure{Kind: "number", Value: "0", Text: "zero"})
			continue
		}
		if f.Value != "1" || !(strings.HasPrefix(f.Kind, "duration:") || strings.HasPrefix(f.Kind, "count:")) {
			continue
		}
		words := strings.TrimLeft(f.Text, "0123456789 ")
		if words == "" || words == f.Text {
			continue
		}
		for _, one := range [...]string{"one ", "a ", "an "} {
			if containsPhraseFold(evidence, one+words) {
				ev = append(ev, Figure{Kind: f.Kind, Value: "1", Text: one + words})
				break
			}
		}
	}
	return ev
}

// containsPhraseFold reports whether s holds phrase, ignoring ASCII case,
// as whole words.
func containsPhraseFold(s, phrase string) bool {
	for i := 0; i+len(phrase) <= len(s); i++ {
		if strings.EqualFold(s[i:i+len(phrase)], phrase) &&
			(i == 0 || !isWordByte(s[i-1])) && (i+len(phrase) == len(s) || !isWordByte(s[i+len(phrase)])) {
			return true
		}
	}
	return false
}

// countLike reports whether a figure kind is a bare number or a count.
func countLike(kind string) bool { return kind == "number" || strings.HasPrefix(kind, "count:") }

// earlierFigure reports whether claim[i] equals an earlier figure; past
// the first few it checks only the ones just before, which keeps a hostile
// claim of thousands of figures linear at the cost of a repeated entry in
// missing_figures.
func earlierFigure(claim []Figure, i int) bool {
	return hasFigure(claim[max(0, i-smallFigures):i], claim[i])
}

// smallFigures is how many figures a linear scan handles; a claim holds a
// few, and only a hostile request brings thousands.
const smallFigures = 32

// figureSet returns a membership test by kind and value, allocating only
// for sets too large to scan.
func figureSet(figs []Figure) func(Figure) bool {
	if len(figs) <= smallFigures {
		return func(f Figure) bool { return hasFigure(figs, f) }
	}
	type key struct{ kind, value string }
	set := make(map[key]bool, len(figs))
	for _, g := range figs {
		set[key{g.Kind, g.Value}] = true
		if g.BasisPoints {
			set[key{"percent", g.Value}] = true
		}
	}
	return func(f Figure) bool {
		return set[key{f.Kind, f.Value}] || f.BasisPoints && set[key{"percent", f.Value}]
	}
}

func hasFigure(figs []Figure, f Figure) bool {
	for _, g := range figs {
		if g.Value == f.Value && sameKind(g, f) {
			return true
		}
	}
	return false
}

// changedValues returns the quote's figures whose value is not among the
// span's: noise may garble the words around a figure, never its digits.
// A number word is words: noise may garble it ("tw0 years"), so it is
// left to the claim's own check.
func changedValues(quote, span []Figure) []Figure {
	var out []Figure
	for _, q := range quote {
		if !q.Spelled && !slices.ContainsFunc(span, func(s Figure) bool { return s.Value == q.Value }) {
			out = append(out, q)
		}
	}
	return out
}

// checkQualifiers compares the policy's qualifiers in claim and evidence.
func (c *checker) checkQualifiers(claim, evidence string) (missing, unsupported, contradicted []string) {
	if len(c.pol.compiled) == 0 || claim == evidence {
		// A claim that is its evidence word for word finds each value in
		// both or in neither: nothing can be missing or differ.
		return nil, nil, nil
	}
	return c.compareQualifiers(claim, evidence)
}

// compareQualifiers is checkQualifiers' comparison of the two texts.
func (c *checker) compareQualifiers(claim, evidence string) (missing, unsupported, contradicted []string) {
	var listed [16]found
	claimGates, claimListed := c.pol.words.scan(claim, listed[:0])
	evidenceGates, evidenceListed := c.pol.words.scan(evidence, claimListed[len(claimListed):])
	for i := range c.pol.compiled {
		q := &c.pol.compiled[i]
		var a, b [4]string
		inClaim := q.find(i, claim, claimGates, claimListed, a[:0])
		inEvidence := q.find(i, evidence, evidenceGates, evidenceListed, b[:0])
		switch {
		case len(inEvidence) > 0 && len(inClaim) == 0:
			missing = append(missing, q.name)
		case len(inClaim) > 0:
			for _, v := range inClaim {
				if slices.Contains(inEvidence, v) {
					continue
				}
				if len(inEvidence) > 0 {
					contradicted = append(contradicted, q.name)
				} else {
					unsupported = append(unsupported, q.name)
				}
				break
			}
		}
	}
	return missing, unsupported, contradicted
}
