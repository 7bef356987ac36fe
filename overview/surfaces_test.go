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
	want := `{"citations":[],"complete":true,"hasAnswer":false,"paragraphs":[],"reason":"not_available","relatedLinks":[],"sources":[],"text":"","turns":[]}`
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("AI Mode results mismatch (-want +got):\n%s", diff)
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
