package browser

import (
	"errors"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/serpfixture"
	fixtures "github.com/kisa-dev/kisa/serpfixture/assistants"
	"github.com/kisa-dev/kisa/worker/assistants"
)

// engineSites are each engine's hooks and reader, by the fixture's name.
var engineSites = map[string]struct {
	hooks *assistants.Hooks
	read  func(string) (kisa.Answer, error)
}{
	fixtures.ChatGPT:    {&assistants.ChatGPT, assistants.ReadChatGPT},
	fixtures.Perplexity: {&assistants.Perplexity, assistants.ReadPerplexity},
	fixtures.Gemini:     {&assistants.Gemini, assistants.ReadGemini},
	fixtures.Copilot:    {&assistants.Copilot, assistants.ReadCopilot},
}

// TestVisitAssistant asks each engine's fixture site a prompt and a
// follow-up through its hooks: the cookie banner and the sign-in nag are
// dismissed, each answer streams until the page's finish sign, the
// sources panel is opened, and the page then reads as the answers to both
// prompts; the site stays contained to its host.
func TestVisitAssistant(t *testing.T) {
	fixture := serpfixture.New(serpfixture.Options{OverviewDelay: 600 * time.Millisecond, Logger: testLogger(t)})
	srv := httptest.NewServer(fixture)
	t.Cleanup(srv.Close)
	p := newTestPool(t, func(c *Config) { c.Tabs = 1; c.AnswerWait = 5 * time.Second })
	for _, engine := range fixtures.Engines {
		t.Run(engine, func(t *testing.T) {
			site := engineSites[engine]
			res, err := p.Visit(t.Context(), VisitRequest{URL: srv.URL + serpfixture.EnginePath(engine), Screenshots: true,
				Mode: ModeAssistant, Hooks: site.hooks, AllowHosts: []string{}, Prompts: []string{"best air purifier", "and for a bedroom?"}})
			if err != nil {
				t.Fatalf("Visit: %v", err)
			}
			if !res.Settled {
				t.Error("Settled = false, want true")
			}
			var names []string
			for name, png := range res.Screenshots {
				names = append(names, name)
				pngHeight(t, png)
			}
			slices.Sort(names)
			if want := slices.Sorted(slices.Values(kisa.AIModeShotNames)); !slices.Equal(names, want) {
				t.Errorf("screenshots %v, want %v", names, want)
			}
			a, err := site.read(res.HTML)
			if err != nil {
				t.Fatalf("read: %v", err)
			}
			if !a.HasAnswer || a.Text == "" || len(a.Turns) != 1 || a.Turns[0].Text == "" {
				t.Fatalf("answer hasAnswer %v, text %q, %d turns; want an answer and one follow-up", a.HasAnswer, a.Text, len(a.Turns))
			}
			if len(a.Turns[0].Sources) == 0 {
				t.Errorf("the follow-up's sources are empty: the sources panel was not read")
			}
			if i := strings.Index(res.HTML, "<body"); strings.Contains(res.HTML[i:], `data-testid="cookie-banner"`) {
				t.Errorf("the cookie banner is still on the page: %s", res.HTML[i:min(len(res.HTML), i+600)])
			}
		})
	}
}

// TestVisitAssistantRefused checks every page that refuses a visit on
// each engine's site: a human check, a sign-in wall and a usage limit are
// kisa.Blocked, the engine's own error kisa.Unavailable, each with the
// page kept as evidence; an answer that never finishes is read as it
// stands, not settled.
func TestVisitAssistantRefused(t *testing.T) {
	fixture := serpfixture.New(serpfixture.Options{OverviewDelay: 300 * time.Millisecond, Logger: testLogger(t)})
	srv := httptest.NewServer(fixture)
	t.Cleanup(srv.Close)
	p := newTestPool(t, func(c *Config) { c.Tabs = 1; c.AnswerWait = 2 * time.Second })
	tests := []struct {
		prompt string
		want   kisa.Failure
	}{
		{"human check please", kisa.Blocked},
		{"sign-in wall please", kisa.Blocked},
		{"usage limit please", kisa.Blocked},
		{"engine error please", kisa.Unavailable},
	}
	for _, engine := range fixtures.Engines {
		for _, tt := range tests {
			t.Run(engine+" "+tt.prompt, func(t *testing.T) {
				_, err := p.Visit(t.Context(), VisitRequest{URL: srv.URL + serpfixture.EnginePath(engine), Mode: ModeAssistant,
					Hooks: engineSites[engine].hooks, AllowHosts: []string{}, Prompts: []string{tt.prompt}})
				var ev *EvidenceError
				if !errors.As(err, &ev) || !errors.Is(err, tt.want) {
					t.Fatalf("Visit = %v, want an EvidenceError wrapping %s", err, tt.want)
				}
				if ev.HTML == "" || len(ev.FullPage) == 0 {
					t.Errorf("evidence: %d bytes of HTML, %d of screenshot; want both", len(ev.HTML), len(ev.FullPage))
				}
			})
		}
		t.Run(engine+" never finishes", func(t *testing.T) {
			res, err := p.Visit(t.Context(), VisitRequest{URL: srv.URL + serpfixture.EnginePath(engine), Mode: ModeAssistant,
				Hooks: engineSites[engine].hooks, AllowHosts: []string{}, Prompts: []string{"this never finishes", "never asked"}})
			if err != nil {
				t.Fatalf("Visit: %v", err)
			}
			if res.Settled {
				t.Error("Settled = true for an answer still streaming")
			}
		})
	}
}
