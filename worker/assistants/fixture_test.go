package assistants_test

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/kisa-dev/kisa"
	site "github.com/kisa-dev/kisa/serpfixture/assistants"
	"github.com/kisa-dev/kisa/worker/assistants"
)

// readers maps each fixture site's engine to its reader.
var readers = map[string]func(string) (kisa.Answer, error){
	site.ChatGPT:    assistants.ReadChatGPT,
	site.Perplexity: assistants.ReadPerplexity,
	site.Gemini:     assistants.ReadGemini,
	site.Copilot:    assistants.ReadCopilot,
}

// fixtureWant is what each fixture site's finished answer says.
var fixtureWant = map[string]struct {
	first          string
	citations      int
	sources, cited int
	model          string
	searchQueries  int
}{
	site.ChatGPT:    {"For best air purifier for a bedroom, the most important thing", 3, 4, 3, "gpt-5-2", 0},
	site.Perplexity: {"The capital of Australia is Canberra, not Sydney.", 9, 15, 9, "Sonar", 2},
	site.Gemini:     {"Here is what matters for best air purifier for a bedroom", 4, 5, 4, "2.5 Flash", 0},
	site.Copilot:    {"For best air purifier for a bedroom, a purifier with a true HEPA filter", 2, 3, 2, "", 0},
}

// render returns engine's fixture page in state p.
func render(t *testing.T, engine string, p site.Page) string {
	t.Helper()
	b, err := site.Render(engine, p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestReadFixtureFinished reads each fixture site's finished page of a
// conversation with a follow-up, its sources panel opened: both answers,
// the last with the panel's sources and which of them are cited.
func TestReadFixtureFinished(t *testing.T) {
	const q, follow = "best air purifier for a bedroom", "and for a small office?"
	for engine, read := range readers {
		t.Run(engine, func(t *testing.T) {
			want := fixtureWant[engine]
			page := render(t, engine, site.Page{Prompts: []string{q, follow}, SourcesOpen: true,
				CookieBanner: true, SignInNag: true})
			a, err := read(page)
			if err != nil {
				t.Fatal(err)
			}
			if !a.HasAnswer || a.Query != q || len(a.Turns) != 1 || a.Turns[0].Query != follow {
				t.Fatalf("hasAnswer %v, query %q, %d follow-ups", a.HasAnswer, a.Query, len(a.Turns))
			}
			last := a.Turns[0]
			if !strings.HasPrefix(a.Text, want.first) {
				t.Errorf("text %.80q, want it to begin %q", a.Text, want.first)
			}
			if !strings.HasPrefix(last.Text, strings.Replace(want.first, q, follow, 1)) {
				t.Errorf("follow-up text %.80q", last.Text)
			}
			for _, turn := range []kisa.AnswerTurn{a.AnswerTurn, last} {
				if !turn.Complete {
					t.Error("finished answer read as streaming")
				}
				for _, bad := range []string{"Copy", "Share", "Sources", "Searched the web", "Stay logged out", "cookies", "Prepared by"} {
					if strings.Contains(turn.Text, bad) {
						t.Errorf("text holds the interface string %q", bad)
					}
				}
			}
			cited := 0
			for i, s := range last.Sources {
				if s.Position != i+1 || s.URL == "" || s.Cited == nil {
					t.Errorf("source %d: %+v", i, s)
				}
				if s.Cited != nil && *s.Cited {
					cited++
				}
			}
			if len(last.Citations) != want.citations || len(last.Sources) != want.sources || cited != want.cited {
				t.Errorf("%d citations, %d sources, %d cited; want %d, %d, %d", len(last.Citations),
					len(last.Sources), cited, want.citations, want.sources, want.cited)
			}
			for i, c := range last.Citations {
				if c.Position != i+1 || c.URL == "" || !strings.Contains(last.Markdown, "["+strconv.Itoa(i+1)+"]") {
					t.Errorf("citation %d: %+v, or no marker in the markdown", i, c)
				}
			}
			if engine == site.Perplexity && (last.Sources[0].PublishedAt != "2001-08-27" || last.Sources[12].PublishedAt != "") {
				t.Errorf("sources' dates %q, %q; want 2001-08-27 and none", last.Sources[0].PublishedAt, last.Sources[12].PublishedAt)
			}
			if last.Model != want.model || len(last.SearchQueries) != want.searchQueries {
				t.Errorf("model %q, search queries %q", last.Model, last.SearchQueries)
			}
		})
	}
}

// TestReadFixtureStreaming reads a page whose last answer is still being
// written: what is there, marked incomplete, the earlier answer complete.
func TestReadFixtureStreaming(t *testing.T) {
	for engine, read := range readers {
		t.Run(engine, func(t *testing.T) {
			page := render(t, engine, site.Page{Prompts: []string{"best air purifier for a bedroom", "and for a small office?"}, Streaming: true})
			a, err := read(page)
			if err != nil {
				t.Fatal(err)
			}
			if !a.Complete || len(a.Turns) != 1 || a.Turns[0].Complete || a.Turns[0].Text == "" {
				t.Errorf("first complete %v; follow-ups %d, last complete %v, text %q", a.Complete, len(a.Turns),
					a.Turns[0].Complete, a.Turns[0].Text)
			}
		})
	}
}

// TestReadFixtureSourcesClosed reads a finished page whose sources panel
// was not opened: the sources are the pages the citations link, cited
// (none on Gemini's, whose chips name sites without linking them).
func TestReadFixtureSourcesClosed(t *testing.T) {
	for engine, read := range readers {
		t.Run(engine, func(t *testing.T) {
			a, err := read(render(t, engine, site.Page{Prompts: []string{"best air purifier for a bedroom"}}))
			if err != nil {
				t.Fatal(err)
			}
			linked := 0
			for _, c := range a.Citations {
				if c.URL != "" {
					linked++
				}
			}
			if len(a.Sources) != linked || len(a.Citations) == 0 || (linked == 0) != (engine == site.Gemini) {
				t.Fatalf("%d sources for %d citations, %d of them linked", len(a.Sources), len(a.Citations), linked)
			}
			for _, s := range a.Sources {
				if s.Cited == nil || !*s.Cited {
					t.Errorf("source %+v not cited", s)
				}
			}
		})
	}
}

// TestReadAnswerBesideInvisibleCheck reads an answer on a page that
// also embeds an invisible Turnstile check, as the engines' pages do.
func TestReadAnswerBesideInvisibleCheck(t *testing.T) {
	page := render(t, site.ChatGPT, site.Page{Prompts: []string{"q"}})
	page = strings.Replace(page, "</body>", `<iframe src="https://challenges.cloudflare.com/cdn-cgi/challenge-platform/turnstile" style="display:none"></iframe></body>`, 1)
	if a, err := assistants.ReadChatGPT(page); err != nil || !a.HasAnswer {
		t.Fatalf("answer %v, error %v", a.HasAnswer, err)
	}
}

// TestReadFixtureNotices refuses each site's notices with the failure a
// caller acts on: a human check, a sign-in wall and a usage limit are
// Blocked, the engine's error Unavailable, an unknown layout Unrecognised.
func TestReadFixtureNotices(t *testing.T) {
	want := map[string]kisa.Failure{
		site.NoticeHumanCheck: kisa.Blocked, site.NoticeSignInWall: kisa.Blocked,
		site.NoticeUsageLimit: kisa.Blocked, site.NoticeError: kisa.Unavailable, site.NoticeUnknown: kisa.Unrecognised,
	}
	for engine, read := range readers {
		for _, notice := range site.Notices {
			t.Run(engine+"/"+notice, func(t *testing.T) {
				page, err := site.Notice(engine, notice)
				if err != nil {
					t.Fatal(err)
				}
				a, err := read(string(page))
				if got, _ := kisa.FailureOf(err); got != want[notice] {
					t.Fatalf("failure %q (%v), want %q", got, err, want[notice])
				}
				if a.HasAnswer || a.Paragraphs == nil || a.Turns == nil {
					t.Errorf("refused page read as %+v", a)
				}
				var ke *kisa.Error
				if want[notice] != kisa.Unrecognised && (!errors.As(err, &ke) || !strings.Contains(ke.Told(), assistantsName(engine))) {
					t.Errorf("message %v does not name the engine", err)
				}
			})
		}
	}
}

// assistantsName is how messages name engine.
func assistantsName(engine string) string {
	return map[string]string{site.ChatGPT: assistants.ChatGPT.Engine, site.Perplexity: assistants.Perplexity.Engine,
		site.Gemini: assistants.Gemini.Engine, site.Copilot: assistants.Copilot.Engine}[engine]
}
