package serp_test

import (
	"strings"
	"testing"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/serpfixture/captured"
	"github.com/kisa-dev/kisa/worker/serp"
)

// FuzzExtract checks that Extract never panics on any page and never
// returns an interface line as a paragraph; that an overview has
// paragraphs and its text is theirs; and that the lists are never nil.
// The seed corpus is in testdata/fuzz/FuzzExtract; run it longer with
// go test ./worker/serp -run '^$' -fuzz FuzzExtract -fuzztime 100000x (a count: see the Makefile).
func FuzzExtract(f *testing.F) {
	f.Add(overviewPage(`<div class="Y3BBE">Answer <b>one</b>.</div><ul><li>A<ul><li>B</li></ul></li></ul>`))
	f.Add(`<div jscontroller="EYwa3d"><div jsname="dvXlsc"><div class="rPeykc">Text</div></div></div>`)
	f.Add(loadingPage)
	f.Add(`<h1>AI Overview</h1><div>x</div>`)
	f.Fuzz(func(t *testing.T, page string) {
		ov, err := serp.Extract(page)
		if ov.Citations == nil || ov.Paragraphs == nil || ov.Sources == nil {
			t.Fatalf("nil list in %+v", ov)
		}
		if err != nil {
			return
		}
		if ov.HasOverview != (len(ov.Paragraphs) > 0) {
			t.Fatalf("HasOverview %v with %d paragraphs", ov.HasOverview, len(ov.Paragraphs))
		}
		texts := make([]string, 0, len(ov.Paragraphs))
		for _, p := range ov.Paragraphs {
			if p.Text == "" || isInterfaceLine(p.Text) {
				t.Fatalf("paragraph %q is empty or an interface line", p.Text)
			}
			texts = append(texts, p.Text)
		}
		if ov.Text != strings.Join(texts, "\n") {
			t.Fatalf("Text %q is not the paragraphs joined", ov.Text)
		}
	})
}

// isInterfaceLine reports whether s is one of serp's interface lines or
// starts with one of its interface prefixes.
func isInterfaceLine(s string) bool {
	t := strings.TrimRight(s, ".…")
	for _, l := range serp.InterfaceLines {
		if strings.EqualFold(t, l) {
			return true
		}
	}
	for _, p := range serp.InterfacePrefixes {
		if strings.HasPrefix(strings.ToLower(s), strings.ToLower(p)) {
			return true
		}
	}
	return false
}

// FuzzExtractAIMode checks that ExtractAIMode never panics, never returns
// nil lists, and that an answer's text is its paragraphs joined and holds
// no interface line. Run it longer with
// go test ./worker/serp -run '^$' -fuzz FuzzExtractAIMode -fuzztime 100000x (a count: see the Makefile).
func FuzzExtractAIMode(f *testing.F) {
	f.Add(`<div data-scope-id="turn"><span role="heading" aria-level="2">q</span><div data-subtree="aimc"><div class="mZJni"><div class="Y3BBE">A <a href="https://x.example/">x</a></div></div></div></div>`)
	f.Add(`<div role="alert">AI Mode is not available in your country</div>`)
	f.Add(`<div data-subtree="aimc" aria-busy="true"><div data-container-id="main-col"><li>Generating</li></div></div>`)
	f.Fuzz(func(t *testing.T, page string) {
		res, err := serp.ExtractAIMode(page)
		if res.Turns == nil {
			t.Fatal("nil turns")
		}
		if err != nil {
			return
		}
		if res.HasAnswer == (res.Reason != "") {
			t.Fatalf("HasAnswer %v with reason %q", res.HasAnswer, res.Reason)
		}
		for _, turn := range append([]kisa.AnswerTurn{res.AnswerTurn}, res.Turns...) {
			if turn.Paragraphs == nil || turn.Citations == nil || turn.Sources == nil || turn.RelatedLinks == nil {
				t.Fatalf("nil list in %+v", turn)
			}
			texts := make([]string, 0, len(turn.Paragraphs))
			for _, p := range turn.Paragraphs {
				if p.Text == "" || isInterfaceLine(p.Text) {
					t.Fatalf("paragraph %q is empty or an interface line", p.Text)
				}
				texts = append(texts, p.Text)
			}
			if turn.Text != strings.Join(texts, "\n") {
				t.Fatalf("Text %q is not the paragraphs joined", turn.Text)
			}
		}
	})
}

// FuzzExtractWeb checks that ExtractWeb never panics, numbers organic
// results from 1 and gives each an http(s) URL (a redirect through the
// search engine's relative /url?q= is resolved or dropped). Run it longer with
// go test ./worker/serp -run '^$' -fuzz FuzzExtractWeb -fuzztime 100000x (a count: see the Makefile).
func FuzzExtractWeb(f *testing.F) {
	f.Add(`<div id="rso"><div class="g"><a href="/url?q=https://a.example/"><h3>A</h3></a><div class="VwiC3b">s</div></div></div>`)
	f.Add(`<div id="search"><div id="tads"><a href="https://ad.example/"><h3>Ad</h3></a></div></div>`)
	f.Add(`<div id="rso"><div><div role="heading" aria-level="2">Videos</div><a href="https://v.example/"><h3>V</h3></a></div></div>`)
	// The layouts of the real pages (captured.WebPages): phone titles in one
	// wrapper with headed modules, a knowledge panel's name, the featured
	// snippet's label and link inside its h3, an app card, a page without
	// results.
	f.Add(`<div id="rso"><div><div><div role="heading" aria-level="2">AI Overview</div><p>An answer of some length, more than a heading.</p></div>` +
		`<div class="MjjYud"><a role="presentation" href="https://a.example/"><div role="heading" aria-level="3"><div role="link"><span>A</span></div></div></a><div data-sncf="1"><div class="VwiC3b">s</div></div></div>` +
		`<div><div role="heading" aria-level="2">People also ask</div><div role="button">Why?</div></div></div></div>`)
	f.Add(`<div id="rcnt"><div><div><div role="heading" aria-level="2">Featured snippet</div></div><div><div data-attrid="wa:/description">x</div><h3><a href="https://f.example/">F</a></h3></div></div>` +
		`<div id="rhs"><a href="https://k.example/"><h3>K</h3></a></div><div id="center_col"><div id="rso"><div><div role="heading" aria-level="2" data-attrid="title">E</div></div>` +
		`<a role="button" data-app="x" href="https://play.example/"><span role="heading" aria-level="3">P</span></a></div></div></div>`)
	f.Add(`<div id="search"></div><div id="botstuff"><p role="heading" aria-level="3">Your search - <em>x</em> - did not match any documents.</p></div>`)
	// Two real pages, small enough to keep the fuzzer quick: a phone's of
	// 2023 and the no-results page of 2026.
	f.Add(string(captured.Page("web-google-phone-2023.html")))
	f.Add(string(captured.Page("web-no-results-2026.html")))
	f.Fuzz(func(t *testing.T, page string) {
		res, err := serp.ExtractWeb(page)
		if res.Organic == nil {
			t.Fatal("nil organic")
		}
		if err != nil {
			return
		}
		for i, r := range res.Organic {
			if r.Position != i+1 || !strings.HasPrefix(r.URL, "http") {
				t.Fatalf("organic result %d = %+v", i, r)
			}
		}
	})
}
