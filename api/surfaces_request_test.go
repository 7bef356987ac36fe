package api

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/overview"
	"github.com/kisa-dev/kisa/proxies"
)

// TestParseSurfaceRequests checks the AI Mode and web search bodies: their
// own fields and defaults, and their problems, all reported at once.
func TestParseSurfaceRequests(t *testing.T) {
	aiMode := func(f func(r *overview.Request)) overview.Request {
		r := defaults()
		r.Surface = kisa.SurfaceAIMode
		if f != nil {
			f(&r)
		}
		return r
	}
	web := func(f func(r *overview.Request)) overview.Request {
		r := defaults()
		r.Surface, r.Screenshots, r.MaxResults = kisa.SurfaceWeb, false, 10
		if f != nil {
			f(&r)
		}
		return r
	}
	assistant := func(s kisa.Surface, f func(r *overview.Request)) overview.Request {
		r := defaults()
		r.Surface, r.WebSearch = s, s == kisa.SurfaceChatGPT
		if f != nil {
			f(&r)
		}
		return r
	}
	long := strings.Repeat("x", 4000)
	const allowedWeb = "unknown field; allowed: query, countryCode, languageCode, device, location, rawHtml, fields, cache, maxResults, async, webhook"
	tests := []struct {
		name    string
		surface kisa.Surface
		body    string
		want    overview.Request
		wantErr *kisa.Error
	}{
		{name: "AI Mode defaults", surface: kisa.SurfaceAIMode, body: `{"query":"coffee"}`, want: aiMode(nil)},
		{name: "AI Mode follow-ups", surface: kisa.SurfaceAIMode, body: `{"query":"coffee","followUps":["  and  tea ","why"]}`,
			want: aiMode(func(r *overview.Request) { r.FollowUps = []string{"and tea", "why"} })},
		{name: "AI Mode four follow-ups", surface: kisa.SurfaceAIMode, body: `{"query":"coffee","followUps":["a","b","c","d"]}`,
			wantErr: invalid(map[string]string{"followUps": "must hold 1 to 3 prompts, got 4"})},
		{name: "AI Mode bad follow-ups", surface: kisa.SurfaceAIMode, body: `{"query":"coffee","followUps":["", 5, "` + strings.Repeat("x", 501) + `"]}`,
			wantErr: invalid(map[string]string{"followUps[0]": "must not be empty", "followUps[1]": "must be a string",
				"followUps[2]": "must be at most 500 characters, got 501"})},
		{name: "AI Mode unknown field", surface: kisa.SurfaceAIMode, body: `{"query":"coffee","maxResults":3}`,
			wantErr: invalid(map[string]string{"maxResults": "unknown field; allowed: query, countryCode, languageCode, device, location, screenshots, rawHtml, fields, cache, followUps, async, webhook"})},
		{name: "ChatGPT defaults", surface: kisa.SurfaceChatGPT, body: `{"query":"coffee"}`, want: assistant(kisa.SurfaceChatGPT, nil)},
		{name: "ChatGPT without web search, long prompts", surface: kisa.SurfaceChatGPT,
			body: `{"query":"` + long + `","webSearch":false,"followUps":["` + long + `"]}`,
			want: assistant(kisa.SurfaceChatGPT, func(r *overview.Request) {
				r.Query, r.WebSearch, r.FollowUps = long, false, []string{long}
			})},
		{name: "Perplexity defaults", surface: kisa.SurfacePerplexity, body: `{"query":"coffee","followUps":["tea"]}`,
			want: assistant(kisa.SurfacePerplexity, func(r *overview.Request) { r.FollowUps = []string{"tea"} })},
		{name: "Gemini has no webSearch", surface: kisa.SurfaceGemini, body: `{"query":"coffee","webSearch":true}`,
			wantErr: invalid(map[string]string{"webSearch": "unknown field; allowed: query, countryCode, languageCode, device, location, screenshots, rawHtml, fields, cache, followUps, async, webhook"})},
		{name: "Copilot prompts too long", surface: kisa.SurfaceCopilot, body: `{"query":"` + long + `y","followUps":["` + long + `yy"]}`,
			wantErr: invalid(map[string]string{"query": "must be at most 4000 characters, got 4001", "followUps[0]": "must be at most 4000 characters, got 4002"})},
		{name: "ChatGPT bad webSearch", surface: kisa.SurfaceChatGPT, body: `{"query":"coffee","webSearch":"yes"}`,
			wantErr: invalid(map[string]string{"webSearch": "must be a boolean"})},
		{name: "web defaults", surface: kisa.SurfaceWeb, body: `{"query":"coffee"}`, want: web(nil)},
		{name: "web fields and maxResults", surface: kisa.SurfaceWeb, body: `{"query":"coffee","maxResults":3,"fields":["url","position"],"cache":{"ttl":60}}`,
			want: web(func(r *overview.Request) {
				r.MaxResults, r.Fields.Organic, r.CacheTTL = 3, []string{"url", "position"}, 60
			})},
		{name: "web problems", surface: kisa.SurfaceWeb,
			body: `{"query":"` + strings.Repeat("q", 101) + `","maxResults":11,"fields":["snippet"],"screenshots":true,"followUps":["a"]}`,
			wantErr: invalid(map[string]string{"query": "must be at most 100 characters, got 101",
				"maxResults": "must be a whole number from 1 to 10", "fields[0]": `unknown field "snippet"; allowed: position, title, url, description`,
				"screenshots": allowedWeb, "followUps": allowedWeb})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := parseSurfaceBody([]byte(tt.body), tt.surface, proxies.Set{}, nil)
			if tt.wantErr != nil {
				if diff := cmp.Diff(error(tt.wantErr), err); diff != "" {
					t.Errorf("error mismatch (-want +got):\n%s", diff)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if diff := cmp.Diff(tt.want, b.Request); diff != "" {
				t.Errorf("request mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestParseBatchMixesSurfaces checks that a batch's items name their
// surface (the overview when they do not) and are read as requests of it.
func TestParseBatchMixesSurfaces(t *testing.T) {
	body := `{"requests":[{"query":"a"},{"query":"b","surface":"ai-mode","followUps":["c"]},{"query":"d","surface":"web-search","maxResults":2},` +
		`{"query":"e","surface":"chatgpt","followUps":["f"]},{"query":"g","surface":"copilot"}]}`
	b, err := parseBatchBody([]byte(body), proxies.Set{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range b.Requests {
		got = append(got, string(r.Surface.OrOverview())+":"+r.Query+":"+strings.Join(r.FollowUps, ",")+":"+string(rune('0'+r.MaxResults)))
	}
	want := []string{"ai-overview:a::0", "ai-mode:b:c:0", "web-search:d::2", "chatgpt:e:f:0", "copilot:g::0"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("batch mismatch (-want +got):\n%s", diff)
	}
	_, err = parseBatchBody([]byte(`{"requests":[{"query":"a","surface":"maps"}]}`), proxies.Set{}, nil)
	want1 := invalid(map[string]string{"requests[0].surface": "must be one of: ai-overview, ai-mode, web-search, chatgpt, perplexity, gemini, copilot"})
	if diff := cmp.Diff(error(want1), err); diff != "" {
		t.Errorf("unknown surface: error mismatch (-want +got):\n%s", diff)
	}
}

// TestEverySurfaceSpendsTheAIBudget: every surface's route, the AI
// assistants' included, counts against KISA_LIMIT_AI (aiRoutes), and is
// served.
func TestEverySurfaceSpendsTheAIBudget(t *testing.T) {
	srv := New(Options{})
	served := map[string]bool{}
	for _, r := range srv.router.Routes() {
		served[r.Method+" "+r.Path] = true
	}
	for _, s := range kisa.Surfaces {
		path := browserPath + string(s)
		if !aiRoutes[path] || !served["POST "+path] {
			t.Errorf("%s: in aiRoutes %v, served %v; want both", path, aiRoutes[path], served["POST "+path])
		}
	}
}
