package serp_test

import (
	"strings"
	"testing"

	"github.com/kisa-dev/kisa/worker/serp"
)

// FuzzExtract checks that Extract never panics on any page and never
// returns an interface line as a paragraph; that an overview has
// paragraphs and its text is theirs; and that the lists are never nil.
// The seed corpus is in testdata/fuzz/FuzzExtract; run it longer with
// go test ./worker/serp -run '^$' -fuzz FuzzExtract -fuzztime 60s.
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
