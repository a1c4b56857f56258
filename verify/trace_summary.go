package verify

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"time"

	json "github.com/segmentio/encoding/json"

	"github.com/evidence-rag/evidence/store"
)

// traceDigest is the part of a stored trace that listing and stats read.
// Decoding it from a trace skips the request's claims and the evidence
// text. Encoded with V set, it is also the trace's summary, stored beside
// the trace (EncodeTraceSummary) and read instead of it: reasons are kept
// as given, so a summary is read by the mapping of the build reading it.
type traceDigest struct {
	V       int       `json:"v,omitempty"` // traceSummaryVersion in a summary; absent in a trace
	TraceID string    `json:"trace_id"`
	Time    time.Time `json:"time"`
	Request struct {
		RequestID string `json:"request_id"`
		Principal string `json:"principal"`
	} `json:"request"`
	Report struct {
		Disposition      string         `json:"disposition"`
		Reasons          []string       `json:"reasons,omitempty"`
		Policy           string         `json:"policy"`
		Claims           []digestClaim  `json:"claims,omitempty"`
		UncitedSentences []struct{}     `json:"uncited_sentences,omitempty"`
		Failures         Failures       `json:"failures"`
		Sources          []digestSource `json:"sources,omitempty"`
	} `json:"report"`
}

type digestClaim struct {
	Disposition string           `json:"disposition"`
	Reasons     []string         `json:"reasons,omitempty"`
	Evidence    []digestEvidence `json:"evidence,omitempty"`
}

type digestEvidence struct {
	Status     string   `json:"status"`
	DocumentID string   `json:"document_id,omitempty"`
	Reasons    []string `json:"reasons,omitempty"`
}

type digestSource struct {
	DocumentID string `json:"document_id"`
}

// traceSummaryVersion is the form of the summaries EncodeTraceSummary
// writes; a summary of another form is passed over for the trace itself.
const traceSummaryVersion = 1

// EncodeTraceSummary returns the summary of a trace that the store keeps
// beside it (store.TraceRecord.Summary): what ListTraces and TraceStatsOf
// read instead of the trace, a few hundred bytes without any text.
func EncodeTraceSummary(id string, at time.Time, req *Request, rep *Report) ([]byte, error) {
	t := traceDigest{V: traceSummaryVersion, TraceID: id, Time: at}
	t.Request.RequestID, t.Request.Principal = req.RequestID, req.Principal
	r := &t.Report
	r.Disposition, r.Reasons, r.Policy, r.Failures = rep.Disposition, rep.Reasons, rep.Policy, rep.Failures
	r.Claims = make([]digestClaim, len(rep.Claims))
	for i := range rep.Claims {
		c := &rep.Claims[i]
		dc := digestClaim{Disposition: c.Disposition, Reasons: c.Reasons, Evidence: make([]digestEvidence, len(c.Evidence))}
		for j := range c.Evidence {
			e := &c.Evidence[j]
			dc.Evidence[j] = digestEvidence{Status: e.Status, DocumentID: e.DocumentID, Reasons: e.Reasons}
		}
		r.Claims[i] = dc
	}
	r.UncitedSentences = make([]struct{}, len(rep.UncitedSentences))
	for _, src := range rep.Sources {
		r.Sources = append(r.Sources, digestSource{src.DocumentID})
	}
	return json.Marshal(&t)
}

// unit is one claim (or uncited sentence) of a digested trace: its reason
// codes, categories, cited documents and those whose citation failed.
type unit struct {
	failed     bool
	reasons    []string
	categories []string
	documents  []string
	failedDocs []string
}

// digested is a trace read for listing and stats.
type digested struct {
	sum   TraceSummary
	units []unit
	// failedDocs are the documents with a failed citation anywhere.
	failedDocs []string
}

func addOnce(s []string, v string) []string {
	if v == "" || slices.Contains(s, v) {
		return s
	}
	return append(s, v)
}

// digest decodes a stored trace for listing and stats: its summary when
// one of this form was stored, else the trace.
func digest(id, summary []byte, trace func() ([]byte, error)) (*digested, error) {
	var t traceDigest
	if summary != nil {
		if _, err := json.Parse(summary, &t, json.DontMatchCaseInsensitiveStructFields); err == nil && t.V == traceSummaryVersion {
			return t.digested(string(id)), nil
		}
		t = traceDigest{}
	}
	b, err := trace()
	if err != nil {
		return nil, err
	}
	if _, err := json.Parse(b, &t, json.DontMatchCaseInsensitiveStructFields); err != nil {
		return nil, fmt.Errorf("%w: trace %s: %v", store.ErrCorrupt, id, err)
	}
	return t.digested(string(id)), nil
}

// digested builds what listing and stats need of a decoded trace.
func (t *traceDigest) digested(id string) *digested {
	r := &t.Report
	d := &digested{sum: TraceSummary{TraceID: id, Time: t.Time, RequestID: t.Request.RequestID, Principal: t.Request.Principal,
		Disposition: r.Disposition, Policy: r.Policy, Reasons: []string{}, Categories: []string{}, Documents: []string{}}}
	s := &d.sum
	var cats []string
	for _, reason := range r.Reasons {
		s.Reasons = addOnce(s.Reasons, ReasonCode(reason))
		cats = addOnce(cats, Category(reason))
	}
	d.units = make([]unit, 0, len(r.Claims)+len(r.UncitedSentences))
	for i := range r.Claims {
		c := &r.Claims[i]
		u := unit{failed: c.Disposition != Accept}
		for _, reason := range c.Reasons {
			u.reasons = addOnce(u.reasons, ReasonCode(reason))
			u.categories = addOnce(u.categories, Category(reason))
		}
		for j := range c.Evidence {
			e := &c.Evidence[j]
			for _, reason := range e.Reasons {
				u.reasons = addOnce(u.reasons, ReasonCode(reason))
				u.categories = addOnce(u.categories, Category(reason))
			}
			u.documents = addOnce(u.documents, e.DocumentID)
			if e.Status != EvidenceOK {
				u.failedDocs = addOnce(u.failedDocs, e.DocumentID)
				d.failedDocs = addOnce(d.failedDocs, e.DocumentID)
			}
		}
		d.units = append(d.units, u)
	}
	for range r.UncitedSentences {
		d.units = append(d.units, unit{failed: true, reasons: []string{ReasonUncitedSentence}, categories: []string{FailCoverage}})
	}
	for _, u := range d.units {
		if u.failed {
			s.FailedClaims++
		}
		for _, v := range u.reasons {
			s.Reasons = addOnce(s.Reasons, v)
		}
		for _, v := range u.categories {
			cats = addOnce(cats, v)
		}
		for _, v := range u.documents {
			s.Documents = addOnce(s.Documents, v)
		}
	}
	s.Claims = len(d.units)
	if len(r.Claims) == 0 {
		// A request without claims names no chunk that failed to ground
		// it, nor a reason: its failure counts say what happened.
		f := &r.Failures
		for cat, n := range map[string]int{FailResolution: f.Resolution, FailPermission: f.Permission, FailVersion: f.Version} {
			if n > 0 {
				cats = addOnce(cats, cat)
			}
		}
		for _, src := range r.Sources {
			s.Documents = addOnce(s.Documents, src.DocumentID)
		}
	}
	for _, c := range Categories {
		if slices.Contains(cats, c) {
			s.Categories = append(s.Categories, c)
		}
	}
	slices.Sort(s.Reasons)
	slices.Sort(s.Documents)
	return d
}

// summaryPrefix starts every summary of this form: V is the first field.
var summaryPrefix = []byte(`{"v":` + strconv.Itoa(traceSummaryVersion) + `,`)

// needles are byte strings a trace's summary holds if the trace passes a
// filter: its JSON members, encoded as EncodeTraceSummary encodes them.
// A summary that lacks one is passed over without being decoded.
type needles [][]byte

func filterNeedles(f *TraceFilter) needles {
	var n needles
	add := func(key, value string) {
		v, err := json.Marshal(value)
		if err == nil {
			n = append(n, append([]byte(`"`+key+`":`), v...))
		}
	}
	if f.ByPrincipal || f.Principal != "" {
		add("principal", f.Principal)
	}
	if f.RequestID != "" {
		add("request_id", f.RequestID)
	}
	if f.Disposition != "" {
		add("disposition", f.Disposition) // a claim's may match too: a necessary condition only
	}
	if f.Document != "" {
		add("document_id", f.Document)
	}
	return n
}

// rejects reports whether a summary certainly fails the filter.
func (n needles) rejects(summary []byte) bool {
	if len(n) == 0 || !bytes.HasPrefix(summary, summaryPrefix) {
		return false
	}
	for _, b := range n {
		if !bytes.Contains(summary, b) {
			return true
		}
	}
	return false
}
