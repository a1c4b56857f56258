package server

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"html/template"
	"io"
	"mime"
	"net/http"
	"net/url"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/evidence-rag/evidence/resolve"
	"github.com/evidence-rag/evidence/store"
)

// The viewer page is self-contained: its only style and script are inline
// and pinned by hash in its Content-Security-Policy, so it loads nothing
// and runs nothing else, and works offline.
const viewerCSS = `
body { font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0; color: #1d1d1f; background: #fafafa; }
header { position: sticky; top: 0; background: #fff; border-bottom: 1px solid #ddd; padding: .6rem 1.2rem; z-index: 1; }
header h1 { font-size: 1.05rem; margin: 0 0 .3rem; }
header dl { display: grid; grid-template-columns: max-content 1fr; gap: .1rem .8rem; margin: 0; font-size: .85rem; }
header dt { color: #666; }
header dd { margin: 0; overflow-wrap: anywhere; }
code { font-size: .85em; }
.status-current { color: #1a7f37; }
.status-superseded, .status-deleted, .status-forbidden, .status-quarantined, .status-not_found { color: #b35900; font-weight: 600; }
.notice { margin: 1rem 1.2rem; padding: .7rem 1rem; border-left: 4px solid #b35900; background: #fff4e5; }
main { padding: 1rem 1.2rem 40vh; }
.text { white-space: pre-wrap; overflow-wrap: anywhere; font: 14px/1.55 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; max-width: 52rem; }
.pb { display: block; margin: 1.2rem 0 .6rem; border-top: 1px dashed #999; color: #666; font: 12px system-ui, sans-serif; text-align: center; }
.pb::before { content: "page " attr(data-page) attr(data-label); position: relative; top: -.75em; background: #fafafa; padding: 0 .5rem; }
.sec { display: block; color: #0b5cad; font: 12px system-ui, sans-serif; margin-top: .4rem; }
.sec::before { content: "§ " attr(data-path); }
mark { background: #ffe066; outline: 2px solid #e0b800; border-radius: 2px; }
`

// viewerJS brings the cited passage into view below the sticky header:
// centred in the room left when it fits, else with its first line just
// below the header, so that where the passage starts is always seen (a
// tall passage centred would start above the viewport).
const viewerJS = `
document.addEventListener("DOMContentLoaded", function () {
  var m = document.getElementById("cited");
  if (!m) { return; }
  var rects = m.getClientRects();
  if (!rects.length) { m.scrollIntoView({block: "start"}); return; }
  var header = document.querySelector("header");
  var below = header ? header.getBoundingClientRect().height : 0;
  var first = rects[0], last = rects[rects.length - 1];
  var room = window.innerHeight - below;
  var height = last.bottom - first.top;
  var gap = height < room ? (room - height) / 2 : Math.min(24, room / 4);
  window.scrollTo(0, Math.max(0, window.scrollY + first.top - below - gap));
});
`

var viewerTemplate = template.Must(template.New("view").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>{{.Title}}</title>
<style>` + viewerCSS + `</style>
</head>
<body>
<header>
<h1>{{.Title}}</h1>
{{if .Version}}<dl>
<dt>document</dt><dd>{{.DocumentID}}</dd>
<dt>version</dt><dd><code>{{.Version}}</code> <span class="status-{{.VersionStatus}}" id="version-status">{{.VersionStatus}}</span>{{if .CurrentVersion}} · current version: <a href="{{.CurrentURL}}"><code>{{.CurrentVersion}}</code></a>{{end}}</dd>
<dt>text BLAKE3</dt><dd><code>{{.TextHash}}</code></dd>
{{if .Span}}<dt>cited span</dt><dd>{{.Span}}</dd>{{end}}
{{if .Pages}}<dt>page</dt><dd>{{.Pages}}</dd>{{end}}
{{if .Section}}<dt>section</dt><dd id="section-path">{{.Section}}</dd>{{end}}
{{if .SourceURL}}<dt>source</dt><dd><a href="{{.SourceURL}}" rel="noreferrer noopener">{{.SourceURL}}</a>{{if .DeepLink}} · <a href="{{.DeepLink}}" rel="noreferrer noopener">open at the passage</a>{{end}}</dd>{{else if .SourceNote}}<dt>source</dt><dd><span id="source-note">{{.SourceNote}}</span>{{if .TextURL}} · <a href="{{.TextURL}}" id="download-text" download>download the stored text</a>{{end}}</dd>{{end}}
</dl>{{end}}
</header>
{{range .Notices}}<p class="notice" role="status">{{.}}</p>
{{end}}{{if .Pieces}}<main><div class="text" id="text">{{range .Pieces}}{{if eq .Kind "text"}}{{.Text}}{{else if eq .Kind "open"}}<mark id="cited">{{else if eq .Kind "close"}}</mark>{{else if eq .Kind "section"}}<span class="sec" data-path="{{.Text}}"></span>{{else if eq .Kind "page"}}<span class="pb" id="page-{{.Page}}" data-page="{{.Page}}" data-label="{{.Label}}"></span>{{end}}{{end}}</div></main>{{end}}
<script>` + viewerJS + `</script>
</body>
</html>
`))

// viewerCSP allows the page's own inline style and script and nothing else.
var viewerCSP = func() string {
	h := func(s string) string {
		sum := sha256.Sum256([]byte(s))
		return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
	}
	return "default-src 'none'; style-src " + h(viewerCSS) + "; script-src " + h(viewerJS) +
		"; img-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
}()

type viewPage struct {
	Title          string
	Notices        []string
	DocumentID     string
	Version        string
	VersionStatus  string
	CurrentVersion string
	CurrentURL     string
	TextHash       string
	Span           string
	Pages          string
	Section        string
	SourceURL      string
	DeepLink       string
	// SourceNote says where the source is when it has no URL a browser
	// can open (a file of the ingesting machine, an upload), and TextURL
	// downloads the stored canonical text instead.
	SourceNote string
	TextURL    string
	Pieces     []piece
	links      pageLinks // how the page links to other viewer pages
}

// pageLinks makes the links of a viewer page: plain paths for a caller
// with a token, links signed for the same principal, expiring with the
// page's own link, for a page opened by a signed link.
type pageLinks struct {
	signer    *LinkSigner // nil: plain paths
	principal string
	expires   int64
}

func (l pageLinks) url(path string, q url.Values, resource string) string {
	if l.signer != nil {
		return l.signer.signedPath(path, q, resource, l.principal, l.expires)
	}
	if len(q) > 0 {
		return path + "?" + q.Encode()
	}
	return path
}

// viewAccess settles whom a viewer request is for. A signed link acts for
// the principal it names once its signature and expiry check (whatever
// headers came with it); a link that fails gets a page that says why,
// status 403, and ok false. Without a link, the authenticated caller.
func (s *Server) viewAccess(w http.ResponseWriter, r *http.Request, c *caller, resource string) (links pageLinks, ok bool, err error) {
	if !c.link {
		return pageLinks{}, true, nil
	}
	p, exp, err := s.links.check(resource, r.URL.Query())
	if err != nil {
		msg := "This link is incomplete: principal, expires and sig go together."
		switch {
		case errors.Is(err, errLinkExpired):
			msg = "This link expired at " + time.Unix(exp, 0).UTC().Format(time.RFC3339) + ". Viewer links are short-lived: ask the application that gave it to you for a new one."
		case errors.Is(err, errLinkSignature):
			msg = "This link's signature does not verify: the link was altered, or it was signed with a key this server no longer uses."
		}
		page := &viewPage{Title: "Evidence: link not valid", Notices: []string{msg, "Nothing of the document is shown."}}
		return pageLinks{}, false, writeView(w, http.StatusForbidden, page)
	}
	c.principal, c.bound = p, true
	return pageLinks{signer: s.links, principal: p, expires: exp}, true, nil
}

// piece is a run of the canonical text ("text"), a section label
// ("section", Text the path), a page marker ("page"), or the opening or
// closing of the cited passage ("open", "close"). Labels and markers are
// CSS-generated content, so the text of the page is exactly the canonical
// text, and the passage's text exactly the span.
type piece struct {
	Kind  string
	Text  string
	Page  int
	Label string
}

func (s *Server) viewChunk(w http.ResponseWriter, r *http.Request, c *caller) error {
	links, ok, err := s.viewAccess(w, r, c, chunkResource(r.PathValue("chunk_id")))
	if !ok {
		return err
	}
	page := &viewPage{links: links}
	var cited *resolve.Cited
	err = s.db.View(func(tx *store.Tx) error {
		res, err := resolve.ChunkTx(tx, r.PathValue("chunk_id"), c.principal)
		if err != nil {
			return err
		}
		if cited, err = resolve.Cite(tx, res); err != nil {
			return err
		}
		return fillPage(tx, page, cited, true)
	})
	if err != nil {
		return err
	}
	s.metrics.resolved(cited.Status)
	page.Title = "Evidence: chunk " + cited.ChunkID
	return writeView(w, resolutionStatus(cited.Status), page)
}

func (s *Server) viewVersion(w http.ResponseWriter, r *http.Request, c *caller) error {
	version := r.PathValue("version")
	q := r.URL.Query()
	start, err := intParam(q, "start", 0)
	if err != nil {
		return err
	}
	end, err := intParam(q, "end", start)
	if err != nil {
		return err
	}
	mark := q.Has("start") || q.Has("end")
	resource := versionResource(version)
	if mark {
		resource = rangeResource(version, start, end)
	}
	links, ok, err := s.viewAccess(w, r, c, resource)
	if !ok {
		return err
	}
	cited, err := resolve.RangeCited(s.db, version, start, end, c.principal)
	if errors.Is(err, resolve.ErrInvalidRange) {
		return errorf(http.StatusBadRequest, "bad_request", "range [%d, %d) is outside the text", start, end)
	}
	if err != nil {
		return err
	}
	page := &viewPage{Title: "Evidence: version " + version, links: links}
	err = s.db.View(func(tx *store.Tx) error { return fillPage(tx, page, cited, mark) })
	if errors.Is(err, store.ErrDeleted) { // deleted after the range was read
		cited.Status, cited.Text = resolve.StatusDeleted, ""
		page.Pieces, err = nil, fillPage(nil, page, cited, false)
	}
	if err != nil {
		return err
	}
	s.metrics.resolved(cited.Status)
	return writeView(w, resolutionStatus(cited.Status), page)
}

// fillPage renders a resolution: for a served one the whole stored text of
// its version (checked against its hash first), with page markers,
// section labels and the span marked when mark is set; for any other a
// notice and nothing of the text.
func fillPage(tx *store.Tx, p *viewPage, c *resolve.Cited, mark bool) error {
	switch c.Status {
	case resolve.StatusForbidden:
		p.Notices = append(p.Notices, "You may not read this document. Nothing of it is shown.")
		return nil
	case resolve.StatusNotFound:
		p.Notices = append(p.Notices, "No such chunk or version.")
		return nil
	}
	p.DocumentID, p.Version, p.VersionStatus = c.DocumentID, c.DocumentVersion, string(c.VersionStatus)
	if c.TextHash != nil {
		p.TextHash = c.TextHash.String()
	}
	switch c.Status {
	case resolve.StatusDeleted:
		p.Notices = append(p.Notices, "This version was deleted: only its tombstone remains, and no text is shown.")
	case resolve.StatusQuarantined:
		p.Notices = append(p.Notices, "This chunk failed validation at ingest ("+c.Reason+") and is never served as evidence.")
		p.VersionStatus = string(resolve.StatusQuarantined)
	}
	if c.CurrentVersion != "" {
		p.CurrentVersion = c.CurrentVersion
		p.CurrentURL = p.links.url("/view/versions/"+url.PathEscape(c.CurrentVersion), nil, versionResource(c.CurrentVersion))
	}
	if c.Status == resolve.StatusSuperseded {
		msg := "This version is superseded: a newer version of the document was ingested. The text below is the version the citation points at."
		switch {
		case c.CurrentVersion == "":
			msg = "This version is superseded, and the document has no current version now. The text below is the version the citation points at."
		case c.TextUnchanged:
			msg = "This version is superseded by a rebuild: the current version's text is the same, so the text below is the current text too."
		}
		p.Notices = append(p.Notices, msg)
	}
	if !c.Served() || tx == nil {
		return nil
	}
	if mark {
		p.Span = fmt.Sprintf("[%d, %d) code points", c.Start, c.End)
		p.Pages = resolve.PageString(c.Page, c.PageEnd, c.PageLabel)
		p.Section = strings.Join(c.SectionPath, " › ")
	}
	if c.Link != nil && isWebURL(c.Link.Target.Source) {
		p.SourceURL = c.Link.Target.Source
		if c.Link.Kind != resolve.LinkNone && mark {
			p.DeepLink = c.Link.URL
		}
	} else {
		// A file:// path is the server's business, and a browser could not
		// open it anyway: say what the source is, and offer the stored text.
		p.SourceNote = sourceNote(c.Link)
		p.TextURL = p.links.url("/view/versions/"+url.PathEscape(c.DocumentVersion)+"/text", nil, textResource(c.DocumentVersion))
	}
	if c.LowConfidence != "" {
		p.Notices = append(p.Notices, "The text of this page failed the extraction quality check ("+c.LowConfidence+"): compare it with the source.")
	}
	v, err := tx.Version(c.DocumentVersion)
	if err != nil {
		return err
	}
	txt, err := tx.Text(v)
	if err != nil {
		return err
	}
	if err := store.VerifyText(v, txt); err != nil {
		return err
	}
	l, err := tx.Layout(v)
	if err != nil {
		return err
	}
	start, end := -1, -1
	if mark {
		start, end = c.Start, c.End
	}
	p.Pieces = pieces(string(txt.Bytes()), txt, l, start, end)
	return nil
}

// pieces cuts the text at page starts, section starts and the marked span
// [start, end) (none when start < 0), in text order; at one offset a
// closing mark comes first, then a section label, a page marker, an
// opening mark. An empty span gets an empty mark, so the page still
// scrolls to it.
func pieces(text string, txt store.Text, l *store.Layout, start, end int) []piece {
	at := map[int]bool{}
	pages := map[int]int{}
	for i := 1; i < len(l.PageStarts); i++ {
		pages[l.PageStarts[i]] = i + 1
		at[l.PageStarts[i]] = true
	}
	sections := map[int]string{}
	for _, s := range l.Sections {
		if len(s.Path) > 0 {
			sections[s.Start] = strings.Join(s.Path, " › ")
			at[s.Start] = true
		}
	}
	if start >= 0 {
		at[start], at[end] = true, true
	}
	offsets := make([]int, 0, len(at))
	for off := range at {
		if off >= 0 && off <= txt.Len() {
			offsets = append(offsets, off)
		}
	}
	sort.Ints(offsets)
	var out []piece
	prev, open := 0, false
	for _, off := range offsets {
		if off > prev {
			out = append(out, piece{Kind: "text", Text: text[txt.ByteOffset(prev):txt.ByteOffset(off)]})
			prev = off
		}
		if open && off == end {
			out, open = append(out, piece{Kind: "close"}), false
		}
		if sec, ok := sections[off]; ok {
			out = append(out, piece{Kind: "section", Text: sec})
		}
		if n, ok := pages[off]; ok {
			out = append(out, piece{Kind: "page", Page: n, Label: pageLabelSuffix(l.PageLabel(n))})
		}
		if start >= 0 && off == start {
			out, open = append(out, piece{Kind: "open"}), true
			if end == start {
				out, open = append(out, piece{Kind: "close"}), false
			}
		}
	}
	if prev < txt.Len() {
		out = append(out, piece{Kind: "text", Text: text[txt.ByteOffset(prev):]})
	}
	if open {
		out = append(out, piece{Kind: "close"})
	}
	return out
}

func isWebURL(u string) bool {
	scheme, _, _ := strings.Cut(u, ":")
	return strings.EqualFold(scheme, "http") || strings.EqualFold(scheme, "https")
}

func pageLabelSuffix(label string) string {
	if label == "" {
		return ""
	}
	return " (printed " + strconv.Quote(label) + ")"
}

func writeView(w http.ResponseWriter, status int, p *viewPage) error {
	var buf bytes.Buffer
	if err := viewerTemplate.Execute(&buf, p); err != nil {
		return err
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", viewerCSP)
	h.Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(status)
	_, err := w.Write(buf.Bytes())
	return err
}

// sourceNote says where a source without a web URL is.
func sourceNote(l *resolve.DeepLink) string {
	src := ""
	if l != nil {
		src = l.Target.Source
	}
	scheme, _, _ := strings.Cut(src, ":")
	switch strings.ToLower(scheme) {
	case "file":
		name := src
		if u, err := url.Parse(src); err == nil {
			name = path.Base(u.Path)
		}
		return "a file on the machine that ingested it (" + name + "), which a browser cannot open from here; the text below is its stored canonical text"
	case "urn":
		return "uploaded without a source URL; the text below is its stored canonical text"
	}
	return "no source URL was recorded; the text below is its stored canonical text"
}

// viewText downloads a version's whole canonical text, checked against its
// hash, as a text file: the way to the original of a source a browser
// cannot open. Access is as for the viewer's pages; what may not be served
// gets the viewer's notice page.
func (s *Server) viewText(w http.ResponseWriter, r *http.Request, c *caller) error {
	version := r.PathValue("version")
	links, ok, err := s.viewAccess(w, r, c, textResource(version))
	if !ok {
		return err
	}
	end := 0
	err = s.db.View(func(tx *store.Tx) error {
		if v, err := tx.Version(version); err == nil {
			end = v.TextLen
		}
		return nil
	})
	if err != nil {
		return err
	}
	cited, err := resolve.RangeCited(s.db, version, 0, end, c.principal)
	if err != nil {
		return err
	}
	s.metrics.resolved(cited.Status)
	if !cited.Served() {
		page := &viewPage{Title: "Evidence: version " + version, links: links}
		if err := fillPage(nil, page, cited, false); err != nil {
			return err
		}
		return writeView(w, resolutionStatus(cited.Status), page)
	}
	name := path.Base(cited.DocumentID)
	name = strings.TrimSuffix(name, path.Ext(name)) + ".txt"
	h := w.Header()
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": name}))
	h.Set("Content-Security-Policy", "default-src 'none'")
	h.Set("Content-Length", strconv.Itoa(len(cited.Text)))
	w.WriteHeader(http.StatusOK)
	_, err = io.WriteString(w, cited.Text)
	return err
}
