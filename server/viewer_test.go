package server

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/evidence-rag/evidence/corpus"
	"github.com/evidence-rag/evidence/ingest"
	"github.com/evidence-rag/evidence/resolve"
	"github.com/evidence-rag/evidence/store"
)

// chromiumPath is Debian's chromium (apt-get install -y chromium).
const chromiumPath = "/usr/bin/chromium"

// TestViewerInChromium loads evidence viewer pages in headless Chromium
// and checks what a reader sees: the highlighted passage exists, its text
// is exactly the stored span, and it is inside the viewport once the page
// has loaded, for passages far down a long document and across a page
// break. It also checks that a forbidden page shows no text.
// EVIDENCE_VIEWER_SHOTS=DIR keeps a screenshot of each page there.
func TestViewerInChromium(t *testing.T) {
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Skipf("%s is absent (install it with: apt-get update && apt-get install -y chromium): skipping the browser test of the viewer", chromiumPath)
	}
	e := newTestEnv(t, false)
	dir := t.TempDir()
	long := filepath.Join(dir, "handbook.md")
	if err := os.WriteFile(long, corpus.Markdown(7, 200<<10), 0o644); err != nil {
		t.Fatal(err)
	}
	var paged strings.Builder
	for p := 1; p <= 40; p++ {
		fmt.Fprintf(&paged, "Page %d of the annual report.\n\n%s\n\f", p, strings.Repeat(fmt.Sprintf("Line of page %d with figures 3.25x and EUR 41. ", p), 12))
	}
	report := filepath.Join(dir, "report.txt")
	if err := os.WriteFile(report, []byte(paged.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ingest.Run(context.Background(), e.db, []string{long, report}, ingest.Options{URL: "https://docs.example/"}); err != nil {
		t.Fatal(err)
	}
	handbook := e.chunkIDs("handbook.md")
	// Short lines: a chunk of 1,000 code points is taller than the window,
	// so centring it would put its first line above the viewport. Ingested
	// from a local file: no URL a browser can open.
	var ledger strings.Builder
	for i := 1; ledger.Len() < 30000; i++ {
		fmt.Fprintf(&ledger, "Entry %04d: EUR %d.\n", i, i*7)
	}
	ledgerPath := filepath.Join(dir, "ledger.txt")
	if err := os.WriteFile(ledgerPath, []byte(ledger.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ingest.Run(context.Background(), e.db, []string{ledgerPath}, ingest.Options{Chunk: ingest.ChunkOptions{Size: 1000, Overlap: 0}}); err != nil {
		t.Fatal(err)
	}
	ledgerChunks := e.chunkIDs("ledger.txt")
	// Chunks end at page breaks; a range runs over one, from page 25 to 26.
	var reportVersion string
	var breakAt int
	err := e.db.View(func(tx *store.Tx) error {
		d, err := tx.Document("report.txt")
		if err != nil {
			return err
		}
		v, err := tx.Version(d.Current)
		if err != nil {
			return err
		}
		l, err := tx.Layout(v)
		if err != nil {
			return err
		}
		reportVersion, breakAt = v.ID, l.PageStarts[25]
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// The HTML sample's last chunk, with its section path and text fragment.
	faq := e.chunkIDs("security-faq.html")

	ts := httptest.NewServer(e.srv) // 127.0.0.1
	t.Cleanup(ts.Close)
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromiumPath),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1200, 800),
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	defer cancelAlloc()
	bctx, cancelBrowser := chromedp.NewContext(actx)
	defer cancelBrowser()
	if err := chromedp.Do(bctx); err != nil {
		t.Fatalf("starting %s: %v", chromiumPath, err)
	}

	type seen struct {
		Found       bool    `json:"found"`
		Text        string  `json:"text"`
		Top         float64 `json:"top"`
		Bottom      float64 `json:"bottom"`
		ViewHeight  float64 `json:"viewHeight"`
		ScrollY     float64 `json:"scrollY"`
		Status      string  `json:"status"`
		BodyText    string  `json:"bodyText"`
		SectionPath string  `json:"sectionPath"`
		// The first line of the passage, and the bottom of the sticky header.
		FirstTop     float64 `json:"firstTop"`
		FirstBottom  float64 `json:"firstBottom"`
		HeaderBottom float64 `json:"headerBottom"`
		SourceNote   string  `json:"sourceNote"`
		Download     bool    `json:"download"`
	}
	const probe = `(() => {
		const m = document.getElementById("cited");
		const s = document.getElementById("version-status");
		const p = document.getElementById("section-path");
		const h = document.querySelector("header");
		const n = document.getElementById("source-note");
		const out = {found: !!m, viewHeight: window.innerHeight, scrollY: window.scrollY,
			status: s ? s.textContent : "", bodyText: document.body.innerText, sectionPath: p ? p.textContent : "",
			headerBottom: h ? h.getBoundingClientRect().bottom : 0, sourceNote: n ? n.textContent : "",
			download: !!document.getElementById("download-text")};
		if (m) {
			const r = m.getBoundingClientRect();
			out.text = m.textContent; out.top = r.top; out.bottom = r.bottom;
			const first = m.getClientRects()[0];
			if (first) { out.firstTop = first.top; out.firstBottom = first.bottom; }
		}
		return out;
	})()`
	load := func(t *testing.T, path string) seen {
		t.Helper()
		tctx, cancel := chromedp.NewContext(bctx)
		defer cancel()
		if err := chromedp.Do(tctx, chromedp.Navigate(ts.URL+path), chromedp.WaitReady(chromedp.CSS("body"))); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		s, err := chromedp.Run(tctx, chromedp.Evaluate[seen](probe))
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		shot, err := chromedp.Run(tctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatalf("%s: screenshot: %v", path, err)
		}
		if dir := os.Getenv("EVIDENCE_VIEWER_SHOTS"); dir != "" {
			name := strings.NewReplacer("/", "_", "?", "_", "&", "_", "=", "_").Replace(strings.TrimPrefix(path, "/"))
			_ = os.WriteFile(filepath.Join(dir, name+".png"), shot, 0o644)
		}
		return s
	}
	type viewCase struct {
		name string
		path string
		want func() (*resolve.Resolution, error)
	}
	chunk := func(name, id string) viewCase {
		return viewCase{name, "/view/" + id, func() (*resolve.Resolution, error) { return resolve.Chunk(e.db, id, "") }}
	}
	for _, tt := range []viewCase{
		chunk("a chunk taller than the window", ledgerChunks[len(ledgerChunks)/2]),
		chunk("far down a long document", handbook[len(handbook)*9/10]),
		chunk("HTML section", faq[len(faq)-2]),
		chunk("first chunk", handbook[0]),
		{"range across a page break", fmt.Sprintf("/view/versions/%s?start=%d&end=%d", reportVersion, breakAt-60, breakAt+40),
			func() (*resolve.Resolution, error) {
				return resolve.Range(e.db, reportVersion, breakAt-60, breakAt+40, "")
			}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			want, err := tt.want()
			if err != nil {
				t.Fatal(err)
			}
			s := load(t, tt.path)
			if !s.Found {
				t.Fatalf("no <mark id=cited> on the page")
			}
			if s.Text != want.Text {
				t.Errorf("highlighted text differs from the stored span:\n got %q\nwant %q", s.Text, want.Text)
			}
			// Inside the viewport: wholly when it fits, else it covers the middle.
			height := s.Bottom - s.Top
			inside := s.Top >= 0 && s.Bottom <= s.ViewHeight
			if height > s.ViewHeight {
				inside = s.Top < s.ViewHeight/2 && s.Bottom > s.ViewHeight/2
			}
			if !inside {
				t.Errorf("passage at [%.0f, %.0f] is not in the %.0f px viewport (scrollY %.0f)", s.Top, s.Bottom, s.ViewHeight, s.ScrollY)
			}
			if want.Start > 20000 && s.ScrollY == 0 {
				t.Errorf("a passage %d code points down did not scroll the page", want.Start)
			}
			// Where the passage starts is seen: its first line below the
			// sticky header and above the bottom of the window.
			if s.FirstTop < s.HeaderBottom-0.5 || s.FirstBottom > s.ViewHeight || s.HeaderBottom <= 0 {
				t.Errorf("the passage's first line at [%.0f, %.0f] is not between the header's bottom (%.0f) and the window's (%.0f)", s.FirstTop, s.FirstBottom, s.HeaderBottom, s.ViewHeight)
			}
			if s.Status != "current" || s.SectionPath != strings.Join(want.SectionPath, " › ") {
				t.Errorf("header: status %q section %q, want current, %q", s.Status, s.SectionPath, strings.Join(want.SectionPath, " › "))
			}
		})
	}
	t.Run("local file", func(t *testing.T) {
		s := load(t, "/view/"+ledgerChunks[0])
		if !strings.Contains(s.SourceNote, "ledger.txt") || !s.Download || strings.Contains(s.BodyText, "file://") {
			t.Errorf("a file:// source: note %q, download link %v", s.SourceNote, s.Download)
		}
	})
	t.Run("signed link", func(t *testing.T) {
		// No header: the signed link alone opens the analyst's view.
		link := e.srv.links.link("/view/"+e.secret, nil, chunkResource(e.secret), "analyst@example.com")
		s := load(t, link)
		if !s.Found || !strings.Contains(s.Text, "BLUEHERON") || s.FirstTop < s.HeaderBottom-0.5 {
			t.Errorf("signed link: mark %v %q, first line at %.0f under a header ending at %.0f", s.Found, s.Text, s.FirstTop, s.HeaderBottom)
		}
		s = load(t, strings.Replace(link, "principal=analyst", "principal=intern", 1))
		if s.Found || !strings.Contains(s.BodyText, "does not verify") {
			t.Errorf("tampered link: mark %v, text %q", s.Found, s.BodyText)
		}
		for _, w := range secretWords {
			if strings.Contains(s.BodyText, w) {
				t.Errorf("a tampered link's page shows %q", w)
			}
		}
	})
	t.Run("forbidden", func(t *testing.T) {
		s := load(t, "/view/"+e.secret)
		if s.Found || !strings.Contains(s.BodyText, "may not read") {
			t.Errorf("forbidden page: mark %v, text %q", s.Found, s.BodyText)
		}
		for _, w := range secretWords {
			if strings.Contains(s.BodyText, w) {
				t.Errorf("forbidden page shows %q", w)
			}
		}
	})
}
