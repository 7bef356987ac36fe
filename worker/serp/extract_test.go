package serp_test

import (
	"encoding/json"
	"errors"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/serpfixture"
	"github.com/kisa-dev/kisa/worker/serp"
)

// interfaceStrings must never appear in an overview's text.
var interfaceStrings = []string{
	"AI Overview", "Übersicht mit KI", "Show more", "Show all", "Mehr anzeigen", "Alle anzeigen",
	"Dive deeper in AI Mode", "AI responses may include mistakes", "KI-Antworten können Fehler enthalten",
	"View related links", "Opens in new tab", "Sv6Kpe",
}

// TestExtractRealPage checks the facts of the captured page that the
// fixture README lists, independently of the golden file.
func TestExtractRealPage(t *testing.T) {
	ov := extract(t, readPage(t, "aio-why-are-frogs-green.html"))
	if !ov.HasOverview {
		t.Fatal("HasOverview = false, want true")
	}
	if !strings.HasPrefix(ov.Text, "Frogs are green primarily for camouflage") {
		t.Errorf("Text begins %.60q, want \"Frogs are green primarily for camouflage\"", ov.Text)
	}
	lines := strings.Split(ov.Text, "\n")
	assertFollows(t, lines, "How it works (Two main methods):", "Chromatophore Layers (Light Reflection):",
		"Melanophores (Bottom Layer): Contain dark melanin, absorbing light.")
	assertFollows(t, lines, "Why it's important:",
		"Camouflage: Blending into green leaves protects them from predators and helps them sneak up on insects.")
	assertNoInterface(t, ov)
	assertParagraphsMatchText(t, ov)
}

// TestExtractRealPageSources checks the side panel of the captured page.
func TestExtractRealPageSources(t *testing.T) {
	ov := extract(t, readPage(t, "aio-why-are-frogs-green.html"))
	if len(ov.Sources) != 10 {
		t.Fatalf("got %d sources, want 10: %v", len(ov.Sources), domains(ov.Sources))
	}
	got := domains(ov.Sources)
	for _, d := range []string{"nature.com", "livescience.com", "today.duke.edu", "science.org", "futurity.org", "pmc.ncbi.nlm.nih.gov"} {
		if !slices.Contains(got, d) {
			t.Errorf("sources lack %s: %v", d, got)
		}
	}
	want := kisa.Source{
		URL:    "https://www.nature.com/articles/d41586-020-02103-z",
		Title:  "How frogs became green — again, and again, and again",
		Source: "nature.com",
		Icon:   "https://encrypted-tbn1.gstatic.com/faviconV2?url=https://www.nature.com&client=AIM&size=128&type=FAVICON&fallback_opts=TYPE,SIZE,URL",
	}
	if diff := cmp.Diff(want, ov.Sources[0]); diff != "" {
		t.Errorf("first source mismatch (-want +got):\n%s", diff)
	}
	for _, s := range ov.Sources {
		if !strings.HasPrefix(s.Icon, "https://encrypted-tbn") || !strings.Contains(s.Icon, "faviconV2?url=https://") {
			t.Errorf("source %s: icon %q is not the page's favicon URL", s.Source, s.Icon)
		}
	}
}

// TestExtractRealPageCitations checks that the chips of several paragraphs
// resolve to real links, also those the page gives only by reference.
func TestExtractRealPageCitations(t *testing.T) {
	ov := extract(t, readPage(t, "aio-why-are-frogs-green.html"))
	withCitations := 0
	for _, p := range ov.Paragraphs {
		if len(p.Citations) > 0 {
			withCitations++
		}
		for _, c := range p.Citations {
			assertCitation(t, c)
		}
	}
	if withCitations < 3 {
		t.Errorf("%d paragraphs have citations, want at least 3", withCitations)
	}
	if len(ov.Citations) != 10 {
		t.Errorf("got %d citations, want 10 distinct", len(ov.Citations))
	}
	want := kisa.Citation{
		URL:     "https://www.livescience.com/4014-frogs-green.html",
		Title:   "Why Frogs are Green | Live Science",
		Source:  "Live Science",
		Favicon: "https://encrypted-tbn2.gstatic.com/faviconV2?url=https://www.livescience.com&client=AIM&size=128&type=FAVICON&fallback_opts=TYPE,SIZE,URL",
	}
	// The chip after "serpin" gives this link by reference only.
	serpin := paragraphWith(t, ov, "protective protein (serpin)")
	if diff := cmp.Diff(want, serpin.Citations[0]); diff != "" {
		t.Errorf("serpin paragraph's first citation mismatch (-want +got):\n%s", diff)
	}
}

// TestExtract2025 checks the facts of the captured page of the 2025
// generation (sources as cards inside the overview, collapsed), as the
// fixture README lists them.
func TestExtract2025(t *testing.T) {
	const name = "aio-mobile-app-development-2025.html"
	page := readPage(t, name)
	if g := serp.GenerationOf(page); g != "2025" {
		t.Errorf("GenerationOf = %q, want 2025", g)
	}
	ov := extract(t, page)
	if !ov.HasOverview || !ov.Complete {
		t.Fatalf("HasOverview, Complete = %v, %v; want true, true", ov.HasOverview, ov.Complete)
	}
	if !strings.HasPrefix(ov.Text, "Mobile app development is the process of creating software applications designed to run on mobile") {
		t.Errorf("Text begins %.80q", ov.Text)
	}
	lines := strings.Split(ov.Text, "\n")
	assertFollows(t, lines, "Key Aspects of Mobile App Development:",
		"Defining the App Idea: Clearly outlining the app's purpose, target audience, and key features is crucial.")
	assertFollows(t, lines, "The Mobile App Development Process:",
		"Idea Validation: Research the market, identify a problem your app can solve, and assess the potential for success.")
	assertNoInterface(t, ov)
	assertParagraphsMatchText(t, ov)
	if len(ov.Sources) != 13 {
		t.Errorf("got %d sources, want the 13 distinct ones: %v", len(ov.Sources), domains(ov.Sources))
	}
	want := kisa.Source{URL: "https://en.wikipedia.org/wiki/Mobile_app_development", Title: "Mobile app development - Wikipedia",
		Source: "en.wikipedia.org", Icon: ov.Sources[1].Icon}
	if diff := cmp.Diff(want, ov.Sources[1]); diff != "" || !strings.HasPrefix(want.Icon, "data:image/") {
		t.Errorf("second source mismatch (-want +got):\n%s", diff)
	}
	first := ov.Paragraphs[0]
	if len(first.Citations) != 2 || first.Citations[0].Source != "IBM" || first.Citations[1].Source != "Wikipedia" {
		t.Errorf("first paragraph's citations = %+v, want IBM and Wikipedia", first.Citations)
	}
}

// TestExtractGerman checks a German overview of the fixture server.
func TestExtractGerman(t *testing.T) {
	ov := extract(t, readPage(t, "fixture-de-warum-ist-der-himmel-blau.html"))
	if !strings.HasPrefix(ov.Text, "Der Himmel ist blau, weil das Sonnenlicht") {
		t.Errorf("Text begins %.60q", ov.Text)
	}
	assertFollows(t, strings.Split(ov.Text, "\n"), "So funktioniert es:",
		"Sonnenlicht: Weißes Sonnenlicht enthält alle Farben des Spektrums.")
	assertNoInterface(t, ov)
	assertParagraphsMatchText(t, ov)
	if len(ov.Sources) != 5 || len(ov.Citations) != 5 {
		t.Errorf("got %d sources and %d citations, want 5 and 5", len(ov.Sources), len(ov.Citations))
	}
	for _, c := range ov.Citations {
		assertCitation(t, c)
	}
}

// TestExtractNoOverview checks that pages without an overview give the
// empty overview, with [] rather than null in JSON.
func TestExtractNoOverview(t *testing.T) {
	const want = `{"hasOverview":false,"complete":true,"text":"","citations":[],"paragraphs":[],"sources":[]}`
	tests := []struct {
		name string
		page string
	}{
		{name: "captcha", page: readPage(t, "sorry-captcha.html")},
		{name: "results without overview", page: readPage(t, "fixture-en-no-overview.html")},
		{name: "consent", page: readPage(t, "fixture-de-consent.html")},
		{name: "empty", page: ""},
		{name: "loading", page: loadingPage},
		{name: "interface strings only", page: overviewPage(`<div class="Y3BBE">Show more</div><div class="Y3BBE">AI responses may include mistakes. Learn more</div>`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(extract(t, tt.page))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, string(b)); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestExtractBlocks checks how blocks are cut from small answers.
func TestExtractBlocks(t *testing.T) {
	tests := []struct {
		name   string
		answer string
		want   []string
	}{
		{
			name:   "paragraph, heading, nested list",
			answer: `<div class="Y3BBE">One  &nbsp;<b>two</b>.</div><div role="heading">Head:</div><ul><li>A<ul><li>A1</li></ul></li><li>B</li></ul>`,
			want:   []string{"One two.", "Head:", "A", "A1", "B"},
		},
		{
			name:   "hidden parts and controls left out",
			answer: `<div class="Y3BBE">Kept<span style="display:none">gone</span><button>Button</button><span aria-hidden="true">x</span></div><div data-crb-el="1"><div class="Y3BBE">data</div></div>`,
			want:   []string{"Kept"},
		},
		{
			name:   "interface lines dropped",
			answer: `<div class="Y3BBE">Answer.</div><div class="Y3BBE">Show all</div><div class="Y3BBE">AI responses may include mistakes. Learn more</div>`,
			want:   []string{"Answer."},
		},
		{
			name:   "text without known blocks is one block",
			answer: `<div>Plain <i>answer</i> text.</div>`,
			want:   []string{"Plain answer text."},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ov := extract(t, overviewPage(tt.answer))
			var got []string
			for _, p := range ov.Paragraphs {
				got = append(got, p.Text)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("blocks mismatch (-want +got):\n%s", diff)
			}
			if ov.Text != strings.Join(tt.want, "\n") {
				t.Errorf("Text = %q, want the blocks joined by newlines", ov.Text)
			}
		})
	}
}

// loadingPage is an overview block whose answer has not streamed in yet.
const loadingPage = `<html><body><h1>AI Overview</h1><div jscontroller="EYwa3d"><div id="m-x-content"><div data-subtree="aimc"><div class="mZJni"></div></div></div></div></body></html>`

// overviewPage wraps answer markup into a minimal overview block.
func overviewPage(answer string) string {
	return `<html><body><div jscontroller="EYwa3d"><div id="m-x-content"><div class="mZJni" data-container-id="main-col">` +
		answer + `</div></div></div></body></html>`
}

// assertFollows checks that lines holds the given lines one after another.
func assertFollows(tb testing.TB, lines []string, want ...string) {
	tb.Helper()
	i := slices.Index(lines, want[0])
	if i < 0 || i+len(want) > len(lines) {
		tb.Errorf("text lacks line %q", want[0])
		return
	}
	if diff := cmp.Diff(want, lines[i:i+len(want)]); diff != "" {
		tb.Errorf("lines after %q mismatch (-want +got):\n%s", want[0], diff)
	}
}

// assertNoInterface checks that no interface string is in the text.
func assertNoInterface(tb testing.TB, ov kisa.Overview) {
	tb.Helper()
	for _, s := range interfaceStrings {
		if strings.Contains(ov.Text, s) {
			tb.Errorf("text holds interface string %q", s)
		}
	}
}

// assertParagraphsMatchText checks that Text is the paragraphs' texts.
func assertParagraphsMatchText(tb testing.TB, ov kisa.Overview) {
	tb.Helper()
	var texts []string
	for _, p := range ov.Paragraphs {
		texts = append(texts, p.Text)
	}
	if diff := cmp.Diff(strings.Join(texts, "\n"), ov.Text); diff != "" {
		tb.Errorf("Text is not the paragraphs joined (-paragraphs +text):\n%s", diff)
	}
}

// assertCitation checks that c is a resolved link with all its fields.
func assertCitation(tb testing.TB, c kisa.Citation) {
	tb.Helper()
	if !strings.HasPrefix(c.URL, "http") || c.Title == "" || c.Source == "" || !strings.Contains(c.Favicon, "faviconV2") {
		tb.Errorf("citation not fully resolved: %+v", c)
	}
}

// paragraphWith returns the paragraph whose text contains s.
func paragraphWith(tb testing.TB, ov kisa.Overview, s string) kisa.Paragraph {
	tb.Helper()
	for _, p := range ov.Paragraphs {
		if strings.Contains(p.Text, s) && len(p.Citations) > 0 {
			return p
		}
	}
	tb.Fatalf("no paragraph with citations contains %q", s)
	return kisa.Paragraph{}
}

// domains returns the Source fields of ss.
func domains(ss []kisa.Source) []string {
	var out []string
	for _, s := range ss {
		out = append(out, s.Source)
	}
	return out
}

// TestExtractUnrecognised checks that an overview block whose content no
// generation reads is kisa.Unrecognised, never "no overview", while a
// placeholder that holds no answer is no overview.
func TestExtractUnrecognised(t *testing.T) {
	tests := []struct {
		name    string
		page    string
		unknown bool
	}{
		{name: "unknown answer column", page: `<div jscontroller="EYwa3d" data-loaded="1"><div id="m-x-content"><div data-xid="Zz9x"><p>An answer in markup of a new generation.</p></div></div></div>`, unknown: true},
		{name: "unknown column, other language", page: `<div jscontroller="EYwa3d"><div class="new"><span>Le ciel est bleu à cause de la diffusion.</span></div></div>`, unknown: true},
		{name: "heading without container", page: `<div><h1>AI Overview</h1><div class="x">Frogs are green for camouflage.</div></div>`, unknown: true},
		{name: "searching placeholder", page: `<div jscontroller="EYwa3d"><h1>Visão geral criada por IA</h1><div role="status">Pesquisando...</div></div>`},
		{name: "searching placeholder, English phrase", page: `<div jscontroller="EYwa3d"><div>Searching...</div></div>`},
		{name: "opt-in generate button", page: `<div jscontroller="EYwa3d"><div role="heading" aria-level="2">Vue d'ensemble IA</div><div role="button" tabindex="0">Générer</div></div>`},
		{name: "streaming, empty", page: loadingPage},
		{name: "hidden errors only", page: `<div jscontroller="EYwa3d"><span style="display:none">Can't generate</span><div aria-hidden="true">AI Overview</div></div>`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ov, err := serp.Extract(tt.page)
			if got := errors.Is(err, kisa.Unrecognised); got != tt.unknown {
				t.Fatalf("Extract error = %v; want kisa.Unrecognised: %v", err, tt.unknown)
			}
			if !tt.unknown && err != nil {
				t.Fatalf("Extract: %v", err)
			}
			if ov.HasOverview || ov.Text != "" || len(ov.Sources) != 0 || len(ov.Paragraphs) != 0 {
				t.Errorf("overview = %+v, want none", ov)
			}
		})
	}
}

// TestExtractPartial checks that an overview still streaming (its block
// not marked loaded) of each generation gives what is there with Complete
// false.
func TestExtractPartial(t *testing.T) {
	tests := []struct {
		name, page, want string
	}{
		{name: "aimc", want: "First paragraph.",
			page: `<div jscontroller="EYwa3d"><div id="m-x-content"><div data-subtree="aimc"><div class="mZJni"><div class="Y3BBE">First paragraph.</div></div></div></div></div>`},
		{name: "2025", want: "Mobile apps are built in steps.",
			page: `<div jscontroller="EYwa3d"><div id="m-x-content"><div jsname="dvXlsc"><div class="rPeykc"><span>Mobile apps are built in steps.</span></div></div>` +
				`<ul><li class="LLtSOc"><a class="KEVENd" href="https://a.example/x" aria-label="A title"></a></li></ul></div></div>`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if g := serp.GenerationOf(tt.page); g != tt.name {
				t.Errorf("GenerationOf = %q, want %q", g, tt.name)
			}
			ov := extract(t, tt.page)
			if !ov.HasOverview || ov.Complete || ov.Text != tt.want {
				t.Errorf("HasOverview, Complete, Text = %v, %v, %q; want true, false, %q", ov.HasOverview, ov.Complete, ov.Text, tt.want)
			}
		})
	}
}

// TestExtractFixtureEdgeCases checks the fixture server's pages of the
// worker's edge cases as a browser's HTML of them would read.
func TestExtractFixtureEdgeCases(t *testing.T) {
	srv := serpfixture.New(serpfixture.Options{})
	tests := []struct {
		query             string
		has, complete     bool
		unrecognised      bool
		generation, start string
	}{
		{query: serpfixture.StalledQuery, has: true, generation: "aimc", start: "“stalled stream” is answered"},
		{query: serpfixture.UnknownQuery, complete: true, unrecognised: true},
		{query: serpfixture.SearchingQuery, complete: true},
		{query: serpfixture.GenerateQuery, complete: true},
		{query: serpfixture.Real2025PageQuery, has: true, complete: true, generation: "2025", start: "Mobile app development is"},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			page := serve(t, srv, "/search?hl=en&final=1&q="+url.QueryEscape(tt.query))
			ov, err := serp.Extract(page)
			if errors.Is(err, kisa.Unrecognised) != tt.unrecognised || (err != nil && !tt.unrecognised) {
				t.Fatalf("Extract error = %v, want unrecognised: %v", err, tt.unrecognised)
			}
			if ov.HasOverview != tt.has || ov.Complete != tt.complete || !strings.HasPrefix(ov.Text, tt.start) {
				t.Errorf("HasOverview, Complete = %v, %v, text %.60q; want %v, %v, %q", ov.HasOverview, ov.Complete, ov.Text, tt.has, tt.complete, tt.start)
			}
			if !tt.has && (len(ov.Paragraphs) != 0 || len(ov.Sources) != 0 || strings.Contains(ov.Text, "Search")) {
				t.Errorf("placeholder read as %+v", ov)
			}
			if g := serp.GenerationOf(page); g != tt.generation {
				t.Errorf("GenerationOf = %q, want %q", g, tt.generation)
			}
		})
	}
}
