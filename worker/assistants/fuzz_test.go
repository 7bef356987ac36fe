package assistants_test

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/kisa-dev/kisa"
	site "github.com/kisa-dev/kisa/serpfixture/assistants"
	"github.com/kisa-dev/kisa/worker/assistants"
)

// The fuzz targets check that a reader never panics on any page; that
// its lists are never nil; and that an answer it returns has paragraphs,
// its text is theirs, its citations are numbered in order and its
// Markdown's markers name them. Run one longer with
// go test ./worker/assistants -run '^$' -fuzz FuzzReadChatGPT -fuzztime 100000x (a count: see the Makefile).

// FuzzReadChatGPT fuzzes ReadChatGPT.
func FuzzReadChatGPT(f *testing.F) { fuzzRead(f, site.ChatGPT, assistants.ReadChatGPT) }

// FuzzReadPerplexity fuzzes ReadPerplexity.
func FuzzReadPerplexity(f *testing.F) { fuzzRead(f, site.Perplexity, assistants.ReadPerplexity) }

// FuzzReadGemini fuzzes ReadGemini.
func FuzzReadGemini(f *testing.F) { fuzzRead(f, site.Gemini, assistants.ReadGemini) }

// FuzzReadCopilot fuzzes ReadCopilot.
func FuzzReadCopilot(f *testing.F) { fuzzRead(f, site.Copilot, assistants.ReadCopilot) }

// marker is a citation marker of the Markdown (an escaped bracket is text).
var marker = regexp.MustCompile(`(^|[^\\])\[(\d+)\]`)

// fuzzRead seeds f with engine's fixture pages and checks read on any page.
func fuzzRead(f *testing.F, engine string, read func(string) (kisa.Answer, error)) {
	for _, p := range []site.Page{{Prompts: []string{"q"}}, {Prompts: []string{"q", "r"}, SourcesOpen: true},
		{Prompts: []string{"q"}, Streaming: true}} {
		b, err := site.Render(engine, p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Add(`<div data-message-author-role="assistant"><div class="markdown"><p>a <span data-testid="webpage-citation-pill"><a href="https://x.test/">X</a></span></p></div></div>`)
	f.Add(`<div id="markdown-content-0"><p>[1] <span data-pplx-citation-url="javascript:1">x</span></p><ol start="x"><li><table><tr><td>a</td></tr></table></li></ol></div>`)
	f.Add(`<model-response><message-content><div class="markdown"><source-footnote><sup data-turn-source-index="99"></sup></source-footnote></div></message-content></model-response>`)
	f.Fuzz(func(t *testing.T, page string) {
		a, err := read(page)
		if a.Paragraphs == nil || a.Citations == nil || a.Sources == nil || a.Turns == nil {
			t.Fatalf("nil list in %+v", a)
		}
		if err != nil {
			return
		}
		if !a.HasAnswer {
			t.Fatal("no error and no answer")
		}
		for _, turn := range append([]kisa.AnswerTurn{a.AnswerTurn}, a.Turns...) {
			checkFuzzTurn(t, turn)
		}
	})
}

// checkFuzzTurn checks one answer read from a fuzzed page.
func checkFuzzTurn(t *testing.T, turn kisa.AnswerTurn) {
	t.Helper()
	if len(turn.Paragraphs) == 0 {
		t.Fatal("answer without paragraphs")
	}
	texts := make([]string, 0, len(turn.Paragraphs))
	for _, p := range turn.Paragraphs {
		if strings.TrimSpace(p.Text) == "" {
			t.Fatalf("empty paragraph in %+v", turn.Paragraphs)
		}
		texts = append(texts, p.Text)
	}
	if turn.Text != strings.Join(texts, "\n") {
		t.Fatalf("text %q is not the paragraphs joined", turn.Text)
	}
	for i, c := range turn.Citations {
		if c.Position != i+1 {
			t.Fatalf("citation %d has position %d", i, c.Position)
		}
	}
	for _, m := range marker.FindAllStringSubmatch(turn.Markdown, -1) {
		if n, _ := strconv.Atoi(m[2]); n < 1 || n > len(turn.Citations) {
			t.Fatalf("marker [%d] of %d citations in %q", n, len(turn.Citations), turn.Markdown)
		}
	}
	for i, s := range turn.Sources {
		if s.Position != i+1 || s.Cited == nil {
			t.Fatalf("source %d: %+v", i, s)
		}
	}
}
