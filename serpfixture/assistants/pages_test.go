package assistants

import (
	"strings"
	"testing"
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

// TestRenderAndNoticeRefuse refuses an unknown engine, a page without
// prompt and an unknown notice, and serves every notice of every engine.
func TestRenderAndNoticeRefuse(t *testing.T) {
	if _, err := Render("grok", Page{Prompts: []string{"q"}}); err == nil {
		t.Error("rendered an unknown engine")
	}
	if _, err := Render(ChatGPT, Page{}); err == nil {
		t.Error("rendered a page without prompt")
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
