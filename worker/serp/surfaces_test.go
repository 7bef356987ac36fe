package serp_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/serpfixture/captured"
	"github.com/kisa-dev/kisa/worker/serp"
)

// may2025Overview is modelled on the real overview of May 2025 that the
// issue describes: the aimc answer (subtree, .mZJni column, .Y3BBE
// blocks) without data-xid="VpUvz", inside the 2025 generation's column,
// with a "Generating" status line; its first paragraph stands in a
// display:contents wrapper of its own (data-subtree="aimfl"), outside
// every .Y3BBE block, as in the overviews of April 2025.
const may2025Overview = `<html><body><div jscontroller="EYwa3d" data-loaded="1"><div id="m-x-content">` +
	`<div jsname="dvXlsc"><div class="rPeykc">Side card text.</div>` +
	`<div data-subtree="aimc"><div class="mZJni Dn7Fzd">` +
	`<div role="status" aria-live="polite">Generating</div>` +
	`<div data-subtree="aimfl" style="display: contents">The first paragraph of the answer.</div>` +
	`<div class="Y3BBE">The second paragraph.</div>` +
	`<table><tr><th>Colour</th><th>Why</th></tr><tr><td>Green</td><td>camouflage</td></tr></table>` +
	`</div></div></div></div></div></body></html>`

// TestExtractTwoGenerations checks that where two generations' columns
// match, the reading of the whole answer wins and no interface string
// reaches the text.
func TestExtractTwoGenerations(t *testing.T) {
	ov := extract(t, may2025Overview)
	want := "The first paragraph of the answer.\nThe second paragraph.\nColour Why\nGreen camouflage"
	if ov.Text != want {
		t.Errorf("Text = %q, want %q", ov.Text, want)
	}
	if g := serp.GenerationOf(may2025Overview); g != "aimc" {
		t.Errorf("GenerationOf = %q, want aimc", g)
	}
}

// aiModeTurn is one turn of an AI Mode page in the real page's structure.
func aiModeTurn(prompt, busy, answer string) string {
	return `<div class="CKgc1d" data-scope-id="turn"><div class="ilZyRc"><span role="heading" aria-level="2">` +
		`<span class="iMqumd">You said:</span><span>` + prompt + `</span></span></div>` +
		`<div data-subtree="aimc"` + busy + `><div class="mZJni" data-container-id="main-col">` + answer + `</div>` +
		`<div data-container-id="rhs-col"><div data-xid="aim-aside-initial-corroboration-container"><ul>` +
		`<li><div data-crb-el="a"><a class="NDNGvf" aria-label="Src. Opens in new tab." href="https://src.example/a"></a><div class="Nn35F">Src</div></div></li>` +
		`</ul></div></div></div></div>`
}

// TestExtractAIMode checks turns, prompts, completeness, related links,
// the "not available" page and unknown pages.
func TestExtractAIMode(t *testing.T) {
	page := `<html><body><div data-xid="aim-mars-turn-root">` +
		aiModeTurn("first question", "", `<div class="Y3BBE">Answer one, see <a href="/url?q=https://rel.example/x&amp;sa=U">this guide</a>.</div>`+
			`<div class="Y3BBE"><a href="https://www.google.com/search?q=term">term</a> is linked.</div>`) +
		aiModeTurn("follow up", ` aria-busy="true"`, `<div class="Y3BBE">Answer two.</div><div role="status">Generating...</div>`) +
		`</div><textarea aria-label="Ask anything"></textarea></body></html>`
	res, err := serp.ExtractAIMode(page)
	if err != nil {
		t.Fatal(err)
	}
	src := []kisa.Source{{URL: "https://src.example/a", Title: "Src", Source: "src.example"}}
	want := kisa.Answer{HasAnswer: true,
		AnswerTurn: kisa.AnswerTurn{Query: "first question", Complete: true,
			Text: "Answer one, see this guide.\nterm is linked.",
			Paragraphs: []kisa.Paragraph{{Text: "Answer one, see this guide.", Citations: []kisa.Citation{}},
				{Text: "term is linked.", Citations: []kisa.Citation{}}},
			Citations: []kisa.Citation{}, Sources: src,
			RelatedLinks: []kisa.Link{{URL: "https://rel.example/x", Title: "this guide", Source: "rel.example"}}},
		Turns: []kisa.AnswerTurn{{Query: "follow up", Complete: false, Text: "Answer two.",
			Paragraphs: []kisa.Paragraph{{Text: "Answer two.", Citations: []kisa.Citation{}}},
			Citations:  []kisa.Citation{}, Sources: src, RelatedLinks: []kisa.Link{}}},
	}
	if diff := cmp.Diff(want, res); diff != "" {
		t.Errorf("ExtractAIMode mismatch (-want +got):\n%s", diff)
	}
}

// TestExtractAIModeNoAnswer checks the pages without an answer: the
// notice that AI Mode is not offered, and pages no reading knows.
func TestExtractAIModeNoAnswer(t *testing.T) {
	tests := []struct {
		name, page   string
		unrecognised bool
	}{
		{name: "not available", page: `<div role="main"><h1>AI Mode isn't available in your country</h1><p>Try Google Search.</p></div>`},
		{name: "not available, French", page: `<div role="alert">Le mode IA n'est pas disponible dans votre pays.</div>`},
		{name: "results page", page: readPage(t, "fixture-en-no-overview.html"), unrecognised: true},
		{name: "empty answer", page: `<div data-scope-id="turn"><div data-subtree="aimc"><div class="mZJni"></div></div></div>`, unrecognised: true},
		{name: "empty", page: "", unrecognised: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := serp.ExtractAIMode(tt.page)
			if errors.Is(err, kisa.Unrecognised) != tt.unrecognised {
				t.Fatalf("err = %v, want unrecognised %v", err, tt.unrecognised)
			}
			if res.HasAnswer || res.Text != "" || res.Turns == nil || res.Paragraphs == nil || res.Sources == nil {
				t.Errorf("result = %+v, want no answer with empty lists", res)
			}
			if !tt.unrecognised && res.Reason != kisa.ReasonNotAvailable {
				t.Errorf("Reason = %q, want %q", res.Reason, kisa.ReasonNotAvailable)
			}
		})
	}
}

// TestExtractWeb checks which links are organic results and how they are
// read.
func TestExtractWeb(t *testing.T) {
	page := `<html><body><div id="search"><div id="rso">` +
		`<div id="tads" aria-label="Ads"><div data-text-ad="1"><a href="https://ad.example/"><h3>Ad</h3></a></div></div>` +
		`<div class="MjjYud"><div class="g"><div class="yuRUbf"><a href="/url?q=https://one.example/page%3Fa%3D1&amp;sa=U"><h3>One</h3><cite>one.example</cite></a></div>` +
		`<div class="VwiC3b">First  snippet.</div></div></div>` +
		`<div class="MjjYud"><div><div role="heading" aria-level="2">People also ask</div>` +
		`<div class="related-question-pair"><a href="https://paa.example/"><h3>PAA</h3></a></div></div></div>` +
		`<div class="MjjYud"><div><div role="heading" aria-level="2">Videos</div><a href="https://video.example/"><h3>Video</h3></a></div></div>` +
		`<div class="MjjYud"><div class="g"><a href="https://two.example/"><h3>Two</h3></a><div data-sncf="1">Second snippet.</div></div></div>` +
		`<div class="MjjYud"><div class="g"><a href="/search?q=more"><h3>More</h3></a></div></div>` +
		`</div></div></body></html>`
	res, err := serp.ExtractWeb(page)
	if err != nil {
		t.Fatal(err)
	}
	want := kisa.WebResults{Organic: []kisa.OrganicResult{
		{Position: 1, Title: "One", URL: "https://one.example/page?a=1", Description: "First snippet."},
		{Position: 2, Title: "Two", URL: "https://two.example/", Description: "Second snippet."},
	}}
	if diff := cmp.Diff(want, res); diff != "" {
		t.Errorf("ExtractWeb mismatch (-want +got):\n%s", diff)
	}
	if _, err := serp.ExtractWeb(`<html><body><p>nothing</p></body></html>`); !errors.Is(err, kisa.Unrecognised) {
		t.Errorf("page without results area: err = %v, want unrecognised", err)
	}
}

// TestExtractWebRealFacts checks facts of the real 2023 pages that their
// publisher's own tests (zlurad/serp-parser, src/google.spec.ts and
// src/google-mobile.spec.ts) state: the number of organic results and some
// of their URLs, titles and snippets.
func TestExtractWebRealFacts(t *testing.T) {
	tests := []struct {
		page    string
		n, i    int
		want    kisa.OrganicResult
		urlOnly bool
	}{
		{page: captured.WebGoogle, n: 9, i: 1, want: kisa.OrganicResult{Position: 2, URL: "https://www.google.com/"}, urlOnly: true},
		{page: captured.WebGoogle, n: 9, i: 3, want: kisa.OrganicResult{Position: 4, Title: "Google Maps", URL: "https://www.google.com/maps",
			Description: "Find local businesses, view maps and get driving directions in Google Maps."}},
		{page: captured.WebGoogleNoJS, n: 10, i: 7, want: kisa.OrganicResult{Position: 8, URL: "https://maps.google.com/"}, urlOnly: true},
		{page: captured.WebGoogleNoJS, n: 10, i: 2, want: kisa.OrganicResult{Position: 3, Title: "Google Maps", URL: "https://www.google.com/maps",
			Description: "Find local businesses, view maps and get driving directions in Google Maps."}},
		{page: captured.WebGoogleNoJS, n: 10, i: 1, want: kisa.OrganicResult{Position: 2, Title: "Google Account", URL: "https://www.google.com/account/about/"}, urlOnly: true},
		// The phone's page: titles are [role="heading"], not h3.
		{page: "web-google-phone-2023.html", n: 3, i: 2, want: kisa.OrganicResult{Position: 3, Title: "Google Account", URL: "https://www.google.com/account/about/",
			Description: "In your Google Account, you can see and manage your info, activity, ..."}},
		// A knowledge panel whose heading stands in the organic list's wrapper.
		{page: "web-matrix-phone-2023.html", n: 8, i: 0, want: kisa.OrganicResult{Position: 1, URL: "https://m.imdb.com/title/tt0133093/"}, urlOnly: true},
		{page: "web-matrix-2023.html", n: 8, i: 0, want: kisa.OrganicResult{Position: 1, URL: "https://www.imdb.com/title/tt0133093/"}, urlOnly: true},
		// The featured snippet is the first result, on both devices.
		{page: "web-featured-snippet-2023.html", n: 10, i: 0, want: kisa.OrganicResult{Position: 1,
			Title: "Featured Snippets and Your Website | Google Search Central", URL: "https://developers.google.com/search/docs/appearance/featured-snippets"}, urlOnly: true},
		{page: "web-featured-snippet-phone-2023.html", n: 10, i: 0, want: kisa.OrganicResult{Position: 1,
			Title: "Featured Snippets and Your Website | Google Search Central", URL: "https://developers.google.com/search/docs/appearance/featured-snippets"}, urlOnly: true},
	}
	for _, tt := range tests {
		res, err := serp.ExtractWeb(readPage(t, tt.page))
		if err != nil {
			t.Fatalf("%s: %v", tt.page, err)
		}
		if len(res.Organic) != tt.n {
			t.Errorf("%s: %d organic results, want %d", tt.page, len(res.Organic), tt.n)
			continue
		}
		got := res.Organic[tt.i]
		if tt.urlOnly {
			got.Description = ""
			if tt.want.Title == "" {
				got.Title = ""
			}
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s result %d mismatch (-want +got):\n%s", tt.page, tt.i, diff)
		}
	}
}
