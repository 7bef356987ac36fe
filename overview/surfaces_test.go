package overview

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kisa-dev/kisa"
)

// TestSurfaceKeys checks that each surface has a key space of its own,
// that AI Mode's follow-ups are part of its key, and that what only
// trims the answer (maxResults, fields) is not.
func TestSurfaceKeys(t *testing.T) {
	base := Request{Query: "Coffee", Country: "at", Language: "de", Screenshots: true}
	ov, aim, web := base, base, base
	aim.Surface, web.Surface = kisa.SurfaceAIMode, kisa.SurfaceWeb
	web.Screenshots = false
	if ov.Key() != (Request{Query: "coffee", Country: "at", Language: "de", Screenshots: true}).Key() {
		t.Errorf("the overview's key changed: %s", ov.Key())
	}
	for _, k := range []struct{ key, prefix string }{{aim.Key(), "aim1-"}, {web.Key(), "web1-"}} {
		if !strings.HasPrefix(k.key, k.prefix) {
			t.Errorf("key %s lacks its surface's prefix %s", k.key, k.prefix)
		}
	}
	fu := aim
	fu.FollowUps = []string{"And  TEA"}
	fu2 := aim
	fu2.FollowUps = []string{"and tea"}
	if fu.Key() == aim.Key() || fu.Key() != fu2.Key() {
		t.Error("follow-ups are not part of AI Mode's key, or not folded")
	}
	trimmed := web
	trimmed.MaxResults, trimmed.Fields.Organic = 3, []string{"url"}
	if trimmed.Key() != web.Key() {
		t.Error("maxResults or fields changed the web search's key")
	}
}

// TestSurfaceResults checks how AI Mode's and the web search's readings
// are rendered: selected fields, maxResults, never null lists.
func TestSurfaceResults(t *testing.T) {
	web := kisa.Result{Web: &kisa.WebResults{Organic: []kisa.OrganicResult{
		{Position: 1, Title: "A", URL: "https://a.example/", Description: "a"},
		{Position: 2, Title: "B", URL: "https://b.example/", Description: "b"},
	}}}
	got := render(t, Results(Request{Surface: kisa.SurfaceWeb, MaxResults: 1, Fields: Fields{Organic: []string{"url", "position"}}}, web))
	if want := `{"organic":[{"position":1,"url":"https://a.example/"}]}`; got != want {
		t.Errorf("web results = %s, want %s", got, want)
	}
	aim := kisa.Result{AIMode: &kisa.Answer{Reason: kisa.ReasonNotAvailable,
		AnswerTurn: kisa.AnswerTurn{Complete: true}}}
	got = render(t, Results(Request{Surface: kisa.SurfaceAIMode, Fields: Fields{ParagraphText: true}}, aim))
	want := `{"citations":[],"complete":true,"hasAnswer":false,"markdown":"","paragraphs":[],"reason":"not_available","relatedLinks":[],"sources":[],"text":"","turns":[]}`
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("AI Mode results mismatch (-want +got):\n%s", diff)
	}
}

// TestAssistantResults checks that an assistant's reading is rendered in
// the one shape of every conversation: markdown, positions, cited, the
// model and search queries, the turns; a field selection keeps position
// and cited.
func TestAssistantResults(t *testing.T) {
	a := kisa.Answer{HasAnswer: true, AnswerTurn: kisa.AnswerTurn{Complete: true, Text: "Tea.",
		Paragraphs:    []kisa.Paragraph{{Text: "Tea.", Citations: []kisa.Citation{{URL: "https://a.example/", Title: "A"}}}},
		Citations:     []kisa.Citation{{URL: "https://a.example/", Title: "A"}},
		Sources:       []kisa.Source{{URL: "https://b.example/", Title: "B"}, {URL: "https://a.example/", Title: "A"}},
		Model:         "GPT-5",
		SearchQueries: []string{"tea"},
	}, Turns: []kisa.AnswerTurn{{Query: "More?", Complete: true, Text: "No."}}}
	a.Finish()
	got := render(t, Results(Request{Surface: kisa.SurfacePerplexity, Fields: Fields{ParagraphText: true, Sources: []string{"url"}}},
		kisa.Result{Answer: &a}))
	want := `{"citations":[{"favicon":"","position":1,"source":"","title":"A","url":"https://a.example/"}],"complete":true,` +
		`"hasAnswer":true,"markdown":"Tea. [1]","model":"GPT-5",` +
		`"paragraphs":[{"citations":[{"favicon":"","source":"","title":"A","url":"https://a.example/"}],"text":"Tea."}],` +
		`"relatedLinks":[],"searchQueries":["tea"],` +
		`"sources":[{"cited":false,"position":1,"url":"https://b.example/"},{"cited":true,"position":2,"url":"https://a.example/"}],` +
		`"text":"Tea.","turns":[{"citations":[],"complete":true,"markdown":"No.","paragraphs":[],"query":"More?","relatedLinks":[],"sources":[],"text":"No."}]}`
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("assistant results mismatch (-want +got):\n%s", diff)
	}
}

// TestAssistantKeys checks that each assistant has a key space of its
// own, apart from AI Mode's, and that ChatGPT's webSearch is part of its
// key.
func TestAssistantKeys(t *testing.T) {
	base := Request{Query: "Coffee", Country: "at", Language: "de", Screenshots: true, Surface: kisa.SurfaceAIMode}
	seen := map[string]kisa.Surface{base.Key(): kisa.SurfaceAIMode}
	prefixes := map[kisa.Surface]string{kisa.SurfaceChatGPT: "gpt1-", kisa.SurfacePerplexity: "pplx1-",
		kisa.SurfaceGemini: "gem1-", kisa.SurfaceCopilot: "cop1-"}
	for _, s := range kisa.Assistants {
		r := base
		r.Surface, r.WebSearch = s, true
		if !strings.HasPrefix(r.Key(), prefixes[s]) {
			t.Errorf("%s key %s lacks the prefix %s", s, r.Key(), prefixes[s])
		}
		if other, ok := seen[r.Key()]; ok {
			t.Errorf("%s shares its key with %s", s, other)
		}
		seen[r.Key()] = s
	}
	on, off := base, base
	on.Surface, off.Surface, on.WebSearch = kisa.SurfaceChatGPT, kisa.SurfaceChatGPT, true
	if on.Key() == off.Key() {
		t.Error("webSearch is not part of ChatGPT's key")
	}
	p1, p2 := on, off
	p1.Surface, p2.Surface = kisa.SurfacePerplexity, kisa.SurfacePerplexity
	if p1.Key() != p2.Key() {
		t.Error("webSearch changed Perplexity's key")
	}
}

// render encodes results as the answer does (keys sorted).
func render(tb testing.TB, results map[string]any) string {
	tb.Helper()
	b, err := json.Marshal(results)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}
