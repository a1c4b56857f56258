package verify

import (
	"context"
	"slices"
	"strconv"

	"github.com/evidence-rag/evidence/resolve"
)

// The cheaper contract: a widget that does not split its answer into
// claims sends only what retrieval returned (and retrieval_error when it
// failed). The verifier then cannot check what the answer says, only what
// it may rest on: whether a retrieved chunk resolves for the principal,
// and which documents may be cited.

// effectiveDate names the policy qualifier whose values a source reports.
const effectiveDate = "effective_date"

// ground resolves each distinct retrieved chunk of a request without
// claims, in retrieved order, and sets the report's sources, its grounding
// and the failures of the chunks that cannot ground it: a chunk that does
// not resolve, is forbidden, quarantined or deleted, or is of a superseded
// version the policy does not accept makes no source and is named nowhere.
func (c *checker) ground(ctx context.Context, rep *Report) error {
	seen := make(map[string]struct{}, len(c.req.Retrieved))
	byVersion := map[string]int{} // version id → index in rep.Sources
	effective := slices.IndexFunc(c.pol.compiled, func(q qualifier) bool { return q.name == effectiveDate })
	r := &c.resolution
	for i, id := range c.req.Retrieved {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if _, dup := seen[id]; dup {
			continue
		}
		seen[id] = struct{}{}
		if err := resolve.ChunkInto(c.tx, r, id, c.req.Principal); err != nil {
			return err
		}
		switch {
		case r.Status == resolve.StatusForbidden:
			rep.Failures.add(FailPermission)
			continue
		case !r.Served(): // not found, quarantined, deleted
			rep.Failures.add(FailResolution)
			continue
		case r.Status == resolve.StatusSuperseded && !c.pol.acceptsSuperseded(r):
			// Under "review" too: without claims there is no citation to
			// put before a reviewer.
			rep.Failures.add(FailVersion)
			continue
		}
		k, ok := byVersion[r.DocumentVersion]
		if !ok {
			src, err := c.source(r, len(rep.Sources)+1)
			if err != nil {
				return err
			}
			k = len(rep.Sources)
			byVersion[r.DocumentVersion] = k
			rep.Sources = append(rep.Sources, src)
		}
		s := &rep.Sources[k]
		s.ChunkIDs = append(s.ChunkIDs, id)
		if effective >= 0 {
			s.EffectiveDates = c.qualifierValues(s.EffectiveDates, effective, r.Text)
		}
	}
	switch {
	case c.req.RetrievalError != "":
		rep.Grounding = RetrievalUnavailable
	case len(rep.Sources) > 0:
		rep.Grounding = Grounded
	default:
		rep.Grounding = InsufficientEvidence
	}
	return nil
}

// source makes the source of a served resolution's version, from its first
// retrieved chunk: the title, and the deep link the resolver renders for
// `evidence resolve` and the service's resolve route.
func (c *checker) source(r *resolve.Resolution, n int) (Source, error) {
	title, err := resolve.Title(c.tx, r.StoredVersion())
	if err != nil {
		return Source{}, err
	}
	link, err := resolve.Links(c.tx, r)
	if err != nil {
		return Source{}, err
	}
	return Source{Label: "[" + strconv.Itoa(n) + "]", DocumentID: r.DocumentID, DocumentVersion: r.DocumentVersion,
		VersionStatus: string(r.VersionStatus), CurrentVersion: r.CurrentVersion, TextUnchanged: r.TextUnchanged,
		Title: title, URL: link.URL, LinkKind: link.Kind,
		PageNumber: r.Page, PageLabel: r.PageLabel}, nil
}

// qualifierValues appends the values of compiled qualifier i in text that
// into lacks.
func (c *checker) qualifierValues(into []string, i int, text string) []string {
	var listed [16]found
	gates, in := c.pol.words.scan(text, listed[:0])
	var buf [4]string
	for _, v := range c.pol.compiled[i].find(i, text, gates, in, buf[:0]) {
		if !slices.Contains(into, v) {
			into = append(into, v)
		}
	}
	return into
}

// claimsGrounding is the grounding of a request with claims, from its
// claim reports: grounded when a claim is supported and one of its
// citations was accepted (it resolved and its quote, figures and
// qualifiers held), the same question the cheaper contract can only ask of
// resolution.
func claimsGrounding(req *Request, rep *Report) string {
	if req.RetrievalError != "" {
		return RetrievalUnavailable
	}
	for i := range rep.Claims {
		if cr := &rep.Claims[i]; cr.Status == Supported {
			for j := range cr.Evidence {
				if cr.Evidence[j].Status == EvidenceOK {
					return Grounded
				}
			}
		}
	}
	return InsufficientEvidence
}

// groundingReason is the answer's reason for abstaining when a request
// without claims is not grounded.
func groundingReason(req *Request, rep *Report) string {
	switch {
	case rep.Grounding == RetrievalUnavailable:
		return RetrievalUnavailable
	case len(req.Retrieved) == 0:
		return "nothing_retrieved"
	}
	return InsufficientEvidence
}
