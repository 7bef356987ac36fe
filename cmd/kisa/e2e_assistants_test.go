package main

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/kisa-dev/kisa/client"
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

	for _, tt := range []struct {
		prompt string
		status int
		phrase string
	}{
		{"a human check please", http.StatusServiceUnavailable, ""},
		{"a sign-in wall please", http.StatusServiceUnavailable, ""},
		{"a usage limit please", http.StatusServiceUnavailable, ""},
		{"an engine error please", http.StatusServiceUnavailable, ""},
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
