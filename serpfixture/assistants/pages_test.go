package assistants

import (
	"bytes"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/kisa-dev/kisa/worker/assistants"
)

// TestRenderEscapesPrompts renders every engine's page with a prompt
// that is markup: it stands on the page as text, twice (two turns).
func TestRenderEscapesPrompts(t *testing.T) {
	const prompt = `<script>alert(1)</script> & "q"`
	for _, e := range Engines {
		b, err := Render(e, Page{Prompts: []string{prompt, prompt}})
		if err != nil {
			t.Fatal(err)
		}
		page := string(b)
		if strings.Contains(page, "<script>alert") || strings.Count(page, "&lt;script&gt;alert(1)&lt;/script&gt;") < 2 {
			t.Errorf("%s: the prompt is not escaped text on the page", e)
		}
	}
}

// TestRenderAndNoticeRefuse refuses an unknown engine and an unknown
// notice, and serves every notice of every engine.
func TestRenderAndNoticeRefuse(t *testing.T) {
	if _, err := Render("grok", Page{Prompts: []string{"q"}}); err == nil {
		t.Error("rendered an unknown engine")
	}
	if _, err := Notice(ChatGPT, "maintenance"); err == nil {
		t.Error("served an unknown notice")
	}
	if _, err := Notice("grok", NoticeError); err == nil {
		t.Error("served a notice of an unknown engine")
	}
	for _, e := range Engines {
		for _, n := range Notices {
			if b, err := Notice(e, n); err != nil || !strings.Contains(string(b), "<html") {
				t.Errorf("%s %s: %v", e, n, err)
			}
		}
	}
}

// TestRenderStartPage renders each engine's start page, a page without
// prompt, as a person finds it before asking: its composer and no turn.
func TestRenderStartPage(t *testing.T) {
	hooks := map[string]assistants.Hooks{ChatGPT: assistants.ChatGPT, Perplexity: assistants.Perplexity,
		Gemini: assistants.Gemini, Copilot: assistants.Copilot}
	for _, e := range Engines {
		b, err := Render(e, Page{})
		if err != nil {
			t.Fatalf("%s: %v", e, err)
		}
		doc, err := goquery.NewDocumentFromReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		h := hooks[e]
		if doc.Find(h.Composer).Length() == 0 || doc.Find(h.Turn).Length() != 0 {
			t.Errorf("%s: start page has %d composers and %d turns, want a composer and no turn", e,
				doc.Find(h.Composer).Length(), doc.Find(h.Turn).Length())
		}
	}
}
