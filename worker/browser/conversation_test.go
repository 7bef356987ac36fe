package browser

import (
	"net/http/httptest"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/serpfixture"
	"github.com/kisa-dev/kisa/worker/serp"
)

// TestVisitConversation asks AI Mode of the fixture search engine
// (consent page on) a question and a follow-up: the answers stream in and
// the page then reads exactly like the fixture's finished page; France
// gets the notice; an answer that never finishes streaming is read as it
// stands, not settled. The page's search box stands before AI Mode's
// composer, as on the live page: the prompts must go to the composer.
func TestVisitConversation(t *testing.T) {
	// Answers stream for 600 ms, well within the tests' OverviewWait (2 s)
	// after the page's load and SettleQuiet.
	fixture := serpfixture.New(serpfixture.Options{Consent: true, OverviewDelay: 600 * time.Millisecond, Logger: testLogger(t)})
	srv := httptest.NewServer(fixture)
	t.Cleanup(srv.Close)
	p := newTestPool(t, func(c *Config) { c.Tabs = 1 })
	tests := []struct {
		name, gl string
		prompts  []string
		settled  bool
	}{
		{name: "question and follow-up", gl: "us", prompts: []string{"why is the sky blue", "what about sunsets"}, settled: true},
		{name: "not available", gl: "fr", prompts: []string{"pourquoi le ciel est bleu"}, settled: true},
		{name: "stalled", gl: "us", prompts: []string{serpfixture.StalledQuery, "never asked"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := srv.URL + "/search?" + url.Values{"udm": {serpfixture.AIModeUDM}, "hl": {"en"}, "gl": {tt.gl}}.Encode()
			res, err := p.Visit(t.Context(), VisitRequest{URL: u, Screenshots: true, Mode: ModeConversation, Prompts: tt.prompts})
			if err != nil {
				t.Fatalf("Visit: %v", err)
			}
			if res.Settled != tt.settled {
				t.Errorf("Settled = %v, want %v", res.Settled, tt.settled)
			}
			var names []string
			for name, png := range res.Screenshots {
				names = append(names, name)
				pngHeight(t, png)
			}
			slices.Sort(names)
			want := slices.Sorted(slices.Values(kisa.AIModeShotNames))
			if !slices.Equal(names, want) {
				t.Errorf("screenshots %v, want %v", names, want)
			}
			got, err := serp.ExtractAIMode(res.HTML)
			if err != nil {
				t.Fatalf("ExtractAIMode: %v", err)
			}
			if !tt.settled {
				if !got.HasAnswer || got.Complete || len(got.Turns) != 0 {
					t.Errorf("stalled answer read as hasAnswer %v, complete %v, %d turns; want an incomplete answer and no follow-up", got.HasAnswer, got.Complete, len(got.Turns))
				}
				return
			}
			final, err := serpfixture.FinalAIModePage(tt.prompts[0], "en", tt.gl, tt.prompts[1:]...)
			if err != nil {
				t.Fatal(err)
			}
			wantRes, err := serp.ExtractAIMode(final)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(wantRes, got); diff != "" {
				t.Errorf("visited page reads differently from the finished page (-final +visit):\n%s", diff)
			}
		})
	}
}

// TestVisitResults reads a results page as it loads (web search): its
// organic results, and the initial screenshot only.
func TestVisitResults(t *testing.T) {
	srv := httptest.NewServer(serpfixture.New(serpfixture.Options{Logger: testLogger(t)}))
	t.Cleanup(srv.Close)
	p := newTestPool(t, func(c *Config) { c.Tabs = 1 })
	u := srv.URL + "/search?" + url.Values{"q": {"best hiking boots"}, "hl": {"en"}, "gl": {"us"}}.Encode()
	res, err := p.Visit(t.Context(), VisitRequest{URL: u, Screenshots: true, Mode: ModeResults})
	if err != nil {
		t.Fatalf("Visit: %v", err)
	}
	if _, ok := res.Screenshots[kisa.ShotInitial]; !ok || len(res.Screenshots) != 1 {
		t.Errorf("screenshots %d, want the initial one only", len(res.Screenshots))
	}
	web, err := serp.ExtractWeb(res.HTML)
	if err != nil {
		t.Fatal(err)
	}
	if len(web.Organic) != 5 || web.Organic[0].URL != "https://en.wikipedia.org/w/index.php?search=best+hiking+boots" {
		t.Errorf("organic results %+v, want the fixture's five", web.Organic)
	}
}
