package main

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kisa-dev/kisa/client"
	"github.com/kisa-dev/kisa/monitor"
	"github.com/kisa-dev/kisa/serpfixture"
	"github.com/kisa-dev/kisa/testenv"
)

// TestAssistantsEndToEnd drives the AI assistants' endpoints through kisa
// web, kisa worker, Chromium and the fixture's sites: each engine's
// answer with a follow-up (ChatGPT's with screenshots) in the one shape
// of every conversation, an async job, a batch mixing them with the
// overview, and every page that refuses a visit: a human check, a
// sign-in wall and a usage limit (503, blocked), the engine's own error
// (retried, then 503) and a layout no reading knows (the incident 500).
func TestAssistantsEndToEnd(t *testing.T) {
	s := startStack(t, stackOptions{waitTimeout: "60s", fixture: serpfixture.Options{OverviewDelay: 500 * time.Millisecond},
		env: []string{"KISA_ASSISTANT_WAIT=10s", "KISA_ASSISTANT_VISIT_TIMEOUT=45s", "KISA_ASSISTANT_TIMEOUT=90s", "KISA_TASK_MAX_RETRY=1"}})
	ctx := context.Background()

	t.Run("ChatGPT with a follow-up and screenshots", func(t *testing.T) {
		out, err := s.api.Ask(ctx, client.ChatGPT, client.AssistantRequest{Query: "best air purifier", CountryCode: "us", LanguageCode: "en",
			FollowUps: []string{"and for a bedroom?"}})
		if err != nil {
			t.Fatal(err)
		}
		r := out.Results
		if !r.HasAnswer || !r.Complete || r.Text == "" || !strings.Contains(r.Markdown, "[1]") || len(r.Citations) == 0 ||
			r.Citations[0].Position != 1 || len(r.Turns) != 1 || r.Turns[0].Text == "" {
			t.Fatalf("answer = %+v", r)
		}
		cited := false
		for _, src := range r.Turns[0].Sources {
			cited = cited || (src.Cited != nil && *src.Cited)
		}
		if !cited || r.Turns[0].Sources[0].Position != 1 {
			t.Errorf("follow-up's sources = %+v; want positions and a cited one", r.Turns[0].Sources)
		}
		if r.Screenshots == nil {
			t.Fatal("no screenshots")
		}
		s.checkScreenshots(t, map[string]string{"initial": r.Screenshots.Initial, "afterLoad": r.Screenshots.BeforeSubmit,
			"afterExpand": r.Screenshots.Response})
	})

	for _, engine := range []string{client.Perplexity, client.Gemini, client.Copilot} {
		t.Run(engine, func(t *testing.T) {
			out, err := s.api.Ask(ctx, engine, client.AssistantRequest{Query: "best air purifier", CountryCode: "us", LanguageCode: "en",
				Screenshots: new(bool)})
			if err != nil {
				t.Fatal(err)
			}
			if r := out.Results; !r.HasAnswer || !r.Complete || r.Text == "" || r.Markdown == "" || len(r.Sources) == 0 {
				t.Errorf("answer = %+v", r)
			}
		})
	}

	t.Run("async job and a batch mixing surfaces", func(t *testing.T) {
		job, err := s.api.SubmitAsk(ctx, client.Perplexity, client.AssistantRequest{Query: "how do tides work", CountryCode: "us",
			LanguageCode: "en", Screenshots: new(bool)}, "")
		if err != nil {
			t.Fatal(err)
		}
		done, err := s.api.WaitJob(ctx, job.ID, 100*time.Millisecond)
		if err != nil || done.Status != client.JobDone {
			t.Fatalf("job = %+v, %v", done, err)
		}
		if a, err := done.AIModeResult(); err != nil || !a.Results.HasAnswer {
			t.Errorf("job result = %+v, %v; want an answer", a, err)
		}
		batch, err := s.api.SubmitBatchItems(ctx, []client.BatchItem{
			client.OverviewItem(client.OverviewRequest{Query: "why do cats purr", CountryCode: "us", LanguageCode: "en", Screenshots: new(bool)}),
			client.AssistantItem(client.Gemini, client.AssistantRequest{Query: "why do cats purr", CountryCode: "us", LanguageCode: "en", Screenshots: new(bool)}),
			client.AssistantItem(client.ChatGPT, client.AssistantRequest{Query: "why do cats purr", CountryCode: "us", LanguageCode: "en",
				Screenshots: new(bool), WebSearch: new(bool)}),
		}, "")
		if err != nil {
			t.Fatal(err)
		}
		testenv.Eventually(t, 90*time.Second, "the batch to end", func() bool {
			b, err := s.api.GetBatch(ctx, batch.ID)
			return err == nil && b.Status == "done"
		})
		var surfaces []string
		for _, bj := range batch.Jobs {
			surfaces = append(surfaces, bj.Surface)
			j, err := s.api.GetJob(ctx, bj.ID)
			if err != nil || j.Status != client.JobDone {
				t.Fatalf("job %s = %+v, %v", bj.ID, j, err)
			}
			if bj.Surface == "" {
				continue
			}
			if a, err := j.AIModeResult(); err != nil || !a.Results.HasAnswer {
				t.Errorf("%s job result = %+v, %v", bj.Surface, a, err)
			}
		}
		if strings.Join(surfaces, ",") != ",gemini,chatgpt" {
			t.Errorf("batch jobs name surfaces %q", surfaces)
		}
	})

	t.Run("monitor targets and their change events", func(t *testing.T) {
		_, key := newAccountKey(t, testenv.Postgres(t))
		prompt := "quiet air purifier " + testenv.RandomHex(3)
		body := fmt.Sprintf(`{"name":"Purifiers","schedule":{"type":"daily","time":"%s"},"watch":{"domains":["example.com"]},
			"targets":[{"surface":"chatgpt","query":%q,"countryCode":"us","languageCode":"en"},{"surface":"copilot","query":%q,"countryCode":"us","languageCode":"en"}]}`,
			time.Now().UTC().Add(-2*time.Hour).Format("15:04"), prompt, prompt)
		status, _, raw := call(t, http.MethodPost, s.base+"/v1/monitors", key, body)
		if status != http.StatusCreated {
			t.Fatalf("create: %d %s", status, raw)
		}
		base := s.base + "/v1/monitors/" + dataOf[monitor.View](t, raw).ID
		first := runNow(t, s, key, base)
		if first.Counts.Read != 2 {
			t.Fatalf("first run = %+v, want both targets read", first)
		}
		// ChatGPT's answer now cites example.com instead of WIRED and says
		// something else; Copilot's does not change.
		s.fixture.SetEngineRewrite(prompt, "https://www.wired.com/story/youre-probably-using-your-air-purifier-wrong",
			"https://www.example.com/air", ">WIRED<", ">Example<", "quickly and quietly", "quietly and cheaply")
		second := runNow(t, s, key, base)
		status, _, raw = call(t, http.MethodGet, base+"/changes?since=2000-01-01", key, "")
		if status != http.StatusOK {
			t.Fatalf("changes: %d %s", status, raw)
		}
		var got []string
		for _, c := range dataOf[monitor.Page[monitor.ChangeView]](t, raw).Items {
			if c.RunID == second.ID {
				got = append(got, c.Target.Surface+" "+c.Kind)
			}
		}
		slices.Sort(got)
		for _, want := range []string{"chatgpt domain.cited", "chatgpt source.added", "chatgpt source.removed"} {
			if !slices.Contains(got, want) {
				t.Errorf("changes of the second run %v lack %q", got, want)
			}
		}
		for _, g := range got {
			if strings.HasPrefix(g, "copilot ") {
				t.Errorf("copilot's unchanged answer changed: %v", got)
			}
		}
	})

	for _, tt := range []struct {
		prompt string
		status int
		phrase string
	}{
		{"a human check please", http.StatusServiceUnavailable, "the AI assistant refused the visit"},
		{"a sign-in wall please", http.StatusServiceUnavailable, "the AI assistant refused the visit"},
		{"a usage limit please", http.StatusServiceUnavailable, "the AI assistant refused the visit"},
		{"an engine error please", http.StatusServiceUnavailable, "the AI assistant is unavailable"},
		{"an unknown layout please", http.StatusInternalServerError, "incident"},
	} {
		t.Run(tt.prompt, func(t *testing.T) {
			_, err := s.api.Ask(ctx, client.Copilot, client.AssistantRequest{Query: tt.prompt, LanguageCode: "en", Screenshots: new(bool)})
			if client.StatusOf(err) != tt.status || !strings.Contains(err.Error(), tt.phrase) {
				t.Errorf("err = %v; want %d", err, tt.status)
			}
		})
	}
}
