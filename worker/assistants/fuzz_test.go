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

// seeds are small pages of each engine's markup, one feature each: the
// fuzzer minimises every input that finds new code, in time that grows
// with the square of its length, and finds nothing new meanwhile.
var seeds = map[string][]string{
	site.ChatGPT: {
		`<div data-message-author-role="user"><div class="whitespace-pre-wrap">q</div></div><div data-message-author-role="assistant"><div class="markdown"><p>a<span data-testid="webpage-citation-pill"><a href="https://x.test/"><span>X</span><span>+1</span></a></span></p></div></div>`,
		`<div data-testid="conversation-turn-2" data-turn="assistant"><div data-message-author-role="assistant"><div class="markdown result-streaming"><ul><li><p>c</p><ol start="3"><li>d</li></ol></li></ul></div></div></div>`,
		`<div data-message-author-role="assistant"><div class="markdown"><table><tr><th>e</th></tr><tr><td><div>f</div></td></tr></table><pre>g</pre><h3>h</h3></div></div>`,
		`<div data-message-author-role="assistant"><div class="markdown">a</div></div><aside><ul><li><a target="_blank" href="https://x.test/"><div>X</div><div>T</div></a></li></ul></aside>`,
		`<div role="dialog"><button data-testid="login-button"></button></div>`,
	},
	site.Perplexity: {
		`<div data-testid="thread-turn"><h1>q</h1><div id="markdown-content-0"><p>a<span data-pplx-citation-url="https://x.test/"><span>x</span><span>+2</span></span></p><span>Prepared by M</span></div></div>`,
		`<div data-testid="thread-turn"><div id="markdown-content-0">a</div><span data-testid="search-query">s</span><div data-testid="source-item"><a href="https://x.test/"><span class="source-title">T</span><time datetime="2026-01-02"></time></a></div></div>`,
		`<div><h1>q</h1><a target="_blank" href="https://y.test/"><div class="line-clamp-3">T</div></a><div class="prose">a<a class="citation" href="https://y.test/">1</a></div></div>`,
		`<div data-testid="answer-error">Something went wrong</div>`,
	},
	site.Gemini: {
		`<user-query><div class="query-text">q</div></user-query><model-response><message-content><div class="markdown" aria-busy="true"><p>a<source-footnote><sup data-turn-source-index="1"></sup></source-footnote></p></div></message-content></model-response>`,
		`<model-response><message-content><div class="markdown"><p>a<source-inline-chip><button aria-label="View source details for citation from X. Press"></button></source-inline-chip></p></div></message-content></model-response>`,
		`<model-response><message-content><div class="markdown">b<sup data-turn-source-index="1"></sup></div></message-content><sources-list><a href="https://x.test/"><span class="title">T | X</span></a></sources-list></model-response>`,
	},
	site.Copilot: {
		`<div data-content="user-message">q</div><div data-content="ai-message"><div class="group/ai-message-item"><p>a<a data-testid="citation-link" href="https://x.test/"><span>x</span></a></p></div></div>`,
		`<div data-content="ai-message" aria-busy="true"><div class="group/ai-message-item">a</div><div data-testid="sources-panel"><a href="https://x.test/"><span class="source-title">T</span></a></div></div>`,
		`<title>Just a moment...</title>`,
	},
}

// fuzzRead seeds f with engine's pages and checks read on any page.
func fuzzRead(f *testing.F, engine string, read func(string) (kisa.Answer, error)) {
	for _, s := range seeds[engine] {
		f.Add(s)
	}
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
