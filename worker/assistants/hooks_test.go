package assistants_test

import (
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	site "github.com/kisa-dev/kisa/serpfixture/assistants"
	"github.com/kisa-dev/kisa/worker/assistants"
)

// hooksOf maps each fixture site's engine to its hooks.
var hooksOf = map[string]assistants.Hooks{
	site.ChatGPT: assistants.ChatGPT, site.Perplexity: assistants.Perplexity,
	site.Gemini: assistants.Gemini, site.Copilot: assistants.Copilot,
}

// count is how many elements of page sel matches.
func count(t *testing.T, page, sel string) int {
	t.Helper()
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	return doc.Find(sel).Length()
}

// lastTurnHas reports whether sel matches the page's last Turn or inside it.
func lastTurnHas(t *testing.T, page string, h assistants.Hooks, sel string) bool {
	t.Helper()
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	last := doc.Find(h.Turn).Last()
	return last.Is(sel) || last.Find(sel).Length() > 0
}

// TestHooksOnFixturePages checks each engine's hooks against its fixture
// site's pages in every state, as the browser meets them: the composer
// always, send or stop by the answer's state, the streaming and finished
// signs in the last turn, the sources control on a finished answer and
// the panel once opened, the banner's and the nag's buttons only over the
// page, and the sign-in wall only on the wall.
func TestHooksOnFixturePages(t *testing.T) {
	q := []string{"best air purifier for a bedroom", "and for a small office?"}
	for engine, h := range hooksOf {
		t.Run(engine, func(t *testing.T) {
			done := render(t, engine, site.Page{Prompts: q})
			streaming := render(t, engine, site.Page{Prompts: q, Streaming: true})
			open := render(t, engine, site.Page{Prompts: q, SourcesOpen: true})
			over := render(t, engine, site.Page{Prompts: q, CookieBanner: true, SignInNag: true})
			wall, err := site.Notice(engine, site.NoticeSignInWall)
			if err != nil {
				t.Fatal(err)
			}
			checks := []struct {
				what string
				ok   bool
			}{
				{"composer on a finished page", count(t, done, h.Composer) == 1},
				{"composer while streaming", count(t, streaming, h.Composer) == 1},
				{"send on a finished page", count(t, done, h.Send) == 1 && count(t, done, h.Stop) == 0},
				{"stop while streaming", count(t, streaming, h.Stop) == 1 && count(t, streaming, h.Send) == 0},
				{"turns", count(t, done, h.Turn) >= 2},
				{"answers", count(t, done, h.Answer) == 2},
				{"streaming sign", lastTurnHas(t, streaming, h, h.Streaming) && !lastTurnHas(t, done, h, h.Streaming)},
				{"finished sign", lastTurnHas(t, done, h, h.Finished) && !lastTurnHas(t, streaming, h, h.Finished)},
				{"sources control", lastTurnHas(t, done, h, h.SourcesControl)},
				{"sources panel", count(t, open, h.SourcesPanel) > 0 && count(t, open, h.SourcesPanel+" a[href]") > 0 &&
					count(t, done, h.SourcesPanel+" a[href]") == 0},
				{"cookie banner", count(t, over, h.CookieReject) == 1 && count(t, done, h.CookieReject) == 0},
				{"sign-in nag", count(t, over, h.SignInDismiss) == 1 && count(t, done, h.SignInDismiss) == 0},
				{"sign-in wall", count(t, string(wall), h.SignInWall) == 1 && count(t, over, h.SignInWall) == 0},
			}
			for _, c := range checks {
				if !c.ok {
					t.Errorf("%s: the hook does not match as the page is", c.what)
				}
			}
		})
	}
}
