package serpfixture

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"strings"

	"github.com/kisa-dev/kisa/serpfixture/captured"
)

// pagesFS holds the page templates; the real captured pages come from
// package captured.
//
//go:embed pages
var pagesFS embed.FS

// RealPageQuery is the query answered with the real captured results page.
const RealPageQuery = "why are frogs green"

// Real2025PageQuery is the query answered with the real captured results
// page of the 2025 generation (collapsed, sources as cards).
const Real2025PageQuery = "mobile app development"

// Queries of pages that test the worker's edge cases: an overview whose
// stream stops half-way and never finishes, an overview block in markup no
// generation knows, and placeholders that never fill.
const (
	StalledQuery   = "stalled stream"
	UnknownQuery   = "unknown markup"
	SearchingQuery = "searching placeholder"
	GenerateQuery  = "generate button"
	// OpaqueQuery: the overview and AI Mode of a query containing it link
	// every website through the engine's opaque redirect (/goto?url=<token>,
	// opaque.go) and their cards show dates, as real pages of August 2026
	// do; the last website's redirect has expired (404).
	OpaqueQuery = "latest news"
	// CapturedQuery followed by the name of a page of package captured
	// (e.g. "captured page web-dell-2023.html") is answered with that real
	// page as saved, to any device: for measuring visits of every real
	// page (kisa-bench's real pages figure).
	CapturedQuery = "captured page "
)

// behaviour is what /search does for a query.
type behaviour int

// The behaviours of /search; see the package documentation.
const (
	withOverview behaviour = iota
	withoutOverview
	realCapture
	real2025
	realWeb
	capturedPage
	captcha
	stalled
	unknown
	searching
	generate
)

// behaviourOf returns what /search does for a normalised query.
func behaviourOf(query string) behaviour {
	switch {
	case strings.Contains(query, "captcha"):
		return captcha
	case query == RealPageQuery:
		return realCapture
	case query == Real2025PageQuery:
		return real2025
	case RealWebQueries[query] != "":
		return realWeb
	case strings.HasPrefix(query, CapturedQuery):
		return capturedPage
	case strings.Contains(query, StalledQuery):
		return stalled
	case strings.Contains(query, UnknownQuery):
		return unknown
	case strings.Contains(query, SearchingQuery):
		return searching
	case strings.Contains(query, GenerateQuery):
		return generate
	case strings.Contains(query, "no overview"):
		return withoutOverview
	}
	switch query {
	case "facebook login", "youtube", "weather", "wetter":
		return withoutOverview
	}
	return withOverview
}

// NormaliseQuery returns the form of a query that the fixture's rules and
// visit counters use: lower case, runs of white space as one space.
func NormaliseQuery(q string) string {
	return strings.ToLower(strings.Join(strings.Fields(q), " "))
}

// FinalPage returns the results page that /search serves for query in
// language hl (e.g. "en", "de") once its overview has streamed in and been
// expanded, as a browser's document.documentElement.outerHTML shows it:
// the same markup that ?final=1 serves. For the real page's query it is
// the captured page; for CAPTCHA queries it is the CAPTCHA page. It
// returns an error only when a page template fails, a defect.
//
// Only tests call it (worker/serp's and this package's): it is kept on
// purpose although deadcode ./cmd/... lists it.
func FinalPage(query, hl string) (string, error) {
	p, err := newPages()
	if err != nil {
		return "", err
	}
	switch behaviourOf(NormaliseQuery(query)) {
	case captcha:
		return p.sorry, nil
	case realCapture:
		return p.real, nil
	case real2025:
		return p.real2025, nil
	case realWeb:
		b, err := captured.FS.ReadFile(RealWebQueries[NormaliseQuery(query)])
		return string(b), err
	case capturedPage:
		b, err := captured.FS.ReadFile(strings.TrimPrefix(NormaliseQuery(query), CapturedQuery))
		return string(b), err
	}
	b, err := p.results(resultsRequest{query: query, hl: hl, final: true})
	return string(b), err
}

// pages are the parsed templates and the captured pages.
type pages struct {
	tmpl                  *template.Template
	real, real2025, sorry string
}

// newPages parses the embedded templates and reads the captured pages.
func newPages() (*pages, error) {
	tmpl, err := template.ParseFS(pagesFS, "pages/*.tmpl")
	if err != nil {
		return nil, fmt.Errorf("parse fixture templates: %w", err)
	}
	real, err := captured.FS.ReadFile(captured.FrogsPage)
	if err != nil {
		return nil, fmt.Errorf("read real page: %w", err)
	}
	sorry, err := captured.FS.ReadFile(captured.CaptchaPage)
	if err != nil {
		return nil, fmt.Errorf("read CAPTCHA page: %w", err)
	}
	real2025, err := captured.FS.ReadFile(captured.MobileAppPage)
	if err != nil {
		return nil, fmt.Errorf("read 2025 page: %w", err)
	}
	return &pages{tmpl: tmpl, real: string(real), real2025: string(real2025), sorry: string(sorry)}, nil
}

// resultsRequest is what a results page depends on.
type resultsRequest struct {
	query, hl, gl string
	final         bool     // render the expanded final state, no streaming
	stream        Stream   // how the overview streams in, when not final
	variant       *Variant // set by SetVariant: replaces the query's rules
	phone         bool     // a phone's request: results in the phone's markup (mobile.go)
}

// resultsData feeds results.html.tmpl.
type resultsData struct {
	Query, HL, GL          string
	W                      words
	Overview, Final        bool
	Answer, Aside, Control template.HTML
	// Block replaces the overview's columns: markup no generation knows,
	// or a placeholder that never fills.
	Block template.HTML
	// Stalled: the overview stopped streaming half-way (never loaded).
	Stalled bool
	Stream  template.JS
	Results []result
}

// result is one organic result (or an item of a module), in the phone's
// markup when Phone is set.
type result struct {
	Title, Snippet, Site, URL, Initial string
	Phone                              bool
}

// results renders the results page of a query with or without overview.
func (p *pages) results(req resultsRequest) ([]byte, error) {
	key := NormaliseQuery(req.query)
	w := wordsFor(req.hl)
	d := resultsData{Query: strings.TrimSpace(req.query), HL: req.hl, GL: req.gl, W: w, Final: req.final}
	links := searchLinks(key, w.Lang)
	b := behaviourOf(key)
	if req.variant != nil {
		b = req.variant.behaviour()
	}
	switch b {
	case withOverview, stalled:
		ov := overviewFor(key, req.hl)
		if req.variant != nil {
			ov = req.variant.overview()
		}
		links = ov.Links
		if err := d.addOverview(ov, key+"|"+w.Lang, req.stream, b == stalled); err != nil {
			return nil, err
		}
	case unknown, searching, generate:
		d.Overview, d.Final, d.Block = true, b == unknown, blockOf(b, key)
	}
	d.Results = organic(links, req.phone)
	var buf bytes.Buffer
	if err := p.tmpl.ExecuteTemplate(&buf, "results.html.tmpl", d); err != nil {
		return nil, fmt.Errorf("render results page: %w", err)
	}
	return buf.Bytes(), nil
}

// addOverview puts the overview into d: inline when final, else as the
// chunks that the page's script streams in as st says. A stalled stream
// stops after half of its chunks and never finishes; its final page is
// that half, never marked loaded.
func (d *resultsData) addOverview(ov overview, seed string, st Stream, stall bool) error {
	d.Overview = true
	chunks := overviewChunks(ov, d.W, seed)
	if stall {
		chunks, d.Stalled = chunks[:len(chunks)/2], true
	}
	if d.Final {
		d.Answer, d.Aside = joinChunks(chunks)
		if !stall {
			d.Control = template.HTML(control(d.W, true))
		}
		return nil
	}
	b, err := json.Marshal(map[string]any{
		"delay": st.Delay.Milliseconds(), "schedule": st.scheduleOf(len(chunks)), "chunks": chunks,
		"control": control(d.W, false), "stall": stall,
	})
	if err != nil {
		return fmt.Errorf("encode overview stream: %w", err)
	}
	d.Stream = template.JS(b)
	return nil
}

// joinChunks returns the markup of the answer column and of the side panel.
func joinChunks(chunks []chunk) (answer, aside template.HTML) {
	var a, s strings.Builder
	for _, c := range chunks {
		if c.To == "aside" {
			s.WriteString(c.HTML)
		} else {
			a.WriteString(c.HTML)
		}
	}
	return template.HTML(a.String()), template.HTML(s.String())
}

// organic returns the organic results made of links, in the phone's
// markup when phone is set.
func organic(links []link, phone bool) []result {
	out := make([]result, 0, len(links))
	for _, l := range links {
		out = append(out, result{Title: l.Title, Snippet: l.Snippet, Site: l.Site, URL: l.URL, Initial: initial(l.Site), Phone: phone})
	}
	return out
}

// blockOf is the content of an overview block of behaviour b: an answer
// in a column no generation knows (unknown), a "Searching..." status that
// never fills (searching), or the opt-in button of an overview that is
// only made on request (generate).
func blockOf(b behaviour, query string) template.HTML {
	switch b {
	case unknown:
		return template.HTML(`<div class="nx-col" data-xid="Nx7Q2"><p class="nx-p">` + template.HTMLEscapeString(query) +
			` is answered in markup of a generation that kisa does not know yet.</p><p class="nx-p">It must be reported, not read as no overview.</p></div>`)
	case searching:
		return `<div class="aio-status" role="status">Searching...</div>`
	}
	return `<div class="aio-optin"><span role="button" tabindex="0" class="aio-generate">Generate</span></div>`
}

// RealWebQueries are the queries answered with a real captured results
// page without an AI overview (2023 desktop pages with organic results),
// by the name of the page in package captured.
var RealWebQueries = map[string]string{
	"google": captured.WebGoogle,
	"hotels": captured.WebHotels,
}

// RealPhoneWebQueries are the pages of RealWebQueries that a phone's
// request gets instead: the same queries' real results pages of 2023 as
// the engine served them to a phone (titles are div[role=heading]).
var RealPhoneWebQueries = map[string]string{
	"google": "web-google-phone-2023.html",
	"hotels": "web-hotels-phone-2023.html",
}
