package serp_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/net/html"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/serpfixture"
	"github.com/kisa-dev/kisa/serpfixture/captured"
	"github.com/kisa-dev/kisa/worker/serp"
)

// aiModePages are the pages under ExtractAIMode's golden test: the real
// AI Mode conversation, the real 2026 overview page (whose overview is an
// aimc answer in a turn of its own) and the fixture's AI Mode pages.
var aiModePages = []string{captured.AIModePage, captured.FrogsPage,
	"fixture-aimode-en-why-is-the-sky-blue.html", "fixture-aimode-de-warum-ist-der-himmel-blau.html", "fixture-aimode-fr-not-available.html",
	"fixture-aimode-en-latest-news-opaque-links.html"}

// aiModeFixturePages are the fixture server's AI Mode pages kept in
// testdata/ (modelled on the real conversation): finished answers with
// follow-ups, the notice for France, and an answer whose every source and
// citation links through the engine's opaque redirect, cards with dates
// (serpfixture.OpaqueQuery).
var aiModeFixturePages = []fixturePage{
	{"fixture-aimode-en-why-is-the-sky-blue.html", "/search?udm=50&q=why+is+the+sky+blue&hl=en&gl=us&final=1&fu=what+about+sunsets&fu=and+on+mars"},
	{"fixture-aimode-de-warum-ist-der-himmel-blau.html", "/search?udm=50&q=warum+ist+der+himmel+blau&hl=de&gl=de&final=1&fu=und+abends"},
	{"fixture-aimode-fr-not-available.html", "/search?udm=50&q=pourquoi+le+ciel+est+bleu&hl=fr&gl=fr"},
	{"fixture-aimode-en-latest-news-opaque-links.html", "/search?udm=50&q=latest+news+on+mars+rovers&hl=en&gl=us&final=1"},
}

// TestAIModeFixturePagesCurrent checks that the AI Mode pages in
// testdata/ are what the fixture server serves now (-update rewrites them).
func TestAIModeFixturePagesCurrent(t *testing.T) {
	checkFixturePages(t, serpfixture.New(serpfixture.Options{}), aiModeFixturePages)
}

// webPages are the pages under ExtractWeb's golden test: the real results
// pages (2025: organic results among ads, "People also ask", videos and
// images; 2023: sitelinks, ads and the hotels module, with and without
// script), and the fixture's results pages (modelled on it: ads, "People
// also ask", videos and a local pack around organic results with
// /url?q= links), with and without overview, and captured.WebPages
// (desktop and phone pages of 2023 with knowledge panels, featured
// snippets and modules; pages without results).
var webPages = append([]string{captured.MobileAppPage, captured.WebGoogle, captured.WebHotels,
	captured.WebGoogleNoJS, captured.WebHotelsNoJS, "fixture-en-best-hiking-boots.html",
	"fixture-de-warum-ist-der-himmel-blau.html", "fixture-en-no-overview.html"}, realWebPageNames()...)

// realWebPageNames returns the names of captured.WebPages.
func realWebPageNames() []string {
	var names []string
	for _, p := range captured.WebPages {
		names = append(names, p.Name)
	}
	return names
}

// TestExtractAIModeGolden extracts every AI Mode page and compares the
// JSON with its golden file (-update rewrites them).
func TestExtractAIModeGolden(t *testing.T) {
	for _, name := range aiModePages {
		t.Run(name, func(t *testing.T) {
			res, err := serp.ExtractAIMode(readPage(t, name))
			if err != nil {
				t.Fatalf("ExtractAIMode: %v", err)
			}
			if res.HasAnswer {
				for _, turn := range append([]kisa.AnswerTurn{res.AnswerTurn}, res.Turns...) {
					assertTurn(t, turn)
				}
			}
			compareGolden(t, "aimode-"+strings.TrimPrefix(strings.TrimPrefix(name, "fixture-aimode-"), "aimode-"), res)
		})
	}
}

// TestExtractWebGolden extracts every results page's organic results and
// compares the JSON with its golden file (-update rewrites them).
func TestExtractWebGolden(t *testing.T) {
	for _, name := range webPages {
		t.Run(name, func(t *testing.T) {
			res, err := serp.ExtractWeb(readPage(t, name))
			if err != nil {
				t.Fatalf("ExtractWeb: %v", err)
			}
			for i, r := range res.Organic {
				if r.Position != i+1 || r.Title == "" || !strings.HasPrefix(r.URL, "http") || strings.Contains(r.URL, "/url?") {
					t.Errorf("organic result %d = %+v", i, r)
				}
			}
			compareGolden(t, "web-"+strings.TrimPrefix(name, "web-"), res)
		})
	}
}

// assertTurn checks what every answer must hold: text, its paragraphs
// joined, no interface string.
func assertTurn(tb testing.TB, turn kisa.AnswerTurn) {
	tb.Helper()
	ov := kisa.Overview{HasOverview: true, Text: turn.Text, Paragraphs: turn.Paragraphs}
	assertNoInterface(tb, ov)
	assertParagraphsMatchText(tb, ov)
	if turn.Text == "" {
		tb.Errorf("turn %q without text", turn.Query)
	}
}

// compareGolden compares v's JSON with testdata/<name>.golden.json.
func compareGolden(tb testing.TB, name string, v any) {
	tb.Helper()
	got := toJSON(tb, v)
	golden := filepath.Join("testdata", strings.TrimSuffix(name, ".html")+".golden.json")
	if *update {
		writeFile(tb, golden, got)
	}
	if diff := cmp.Diff(readFile(tb, golden), got); diff != "" {
		tb.Errorf("%s mismatch (-want +got):\n%s", name, diff)
	}
}

// stripAttributes returns page as a page saved without its class names
// and every other attribute but data-subtree, role, aria-* and href (its
// comments kept), the way some tools save a page.
func stripAttributes(tb testing.TB, page string) string {
	tb.Helper()
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		tb.Fatalf("parse: %v", err)
	}
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			kept := n.Attr[:0]
			for _, a := range n.Attr {
				if a.Key == "data-subtree" || a.Key == "role" || a.Key == "href" || strings.HasPrefix(a.Key, "aria-") {
					kept = append(kept, a)
				}
			}
			n.Attr = kept
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	var sb strings.Builder
	if err := html.Render(&sb, doc); err != nil {
		tb.Fatalf("render: %v", err)
	}
	return sb.String()
}

// TestExtractAIModeStripped reads the real AI Mode conversation saved
// without its class names (only data-subtree, role, aria-* and href left)
// by its structure alone, as the whole page reads (its golden file):
// every answer and its prompt, paragraphs, citations and sources.
func TestExtractAIModeStripped(t *testing.T) {
	page := readPage(t, captured.AIModePage)
	whole, err := serp.ExtractAIMode(page)
	if err != nil {
		t.Fatalf("ExtractAIMode(whole page): %v", err)
	}
	res, err := serp.ExtractAIMode(stripAttributes(t, page))
	if err != nil {
		t.Fatalf("ExtractAIMode(stripped page): %v", err)
	}
	if !res.HasAnswer || len(res.Turns) != 4 || !strings.HasPrefix(res.Text, "Direct Answer This behavior is a confirmed software regression") {
		t.Fatalf("stripped page: answer %v, %d follow-ups, text %.60q", res.HasAnswer, len(res.Turns), res.Text)
	}
	for _, turn := range append([]kisa.AnswerTurn{res.AnswerTurn}, res.Turns...) {
		assertTurn(t, turn)
	}
	if diff := cmp.Diff(whole, res); diff != "" {
		t.Errorf("stripped page (-whole page +stripped):\n%s", diff)
	}
}
