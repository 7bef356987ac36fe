package main

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kisa-dev/kisa/client"
	"github.com/kisa-dev/kisa/serpfixture"
	"github.com/kisa-dev/kisa/worker/serp"
)

// TestSlowAnswersEndToEnd asks kisa web, through kisa worker and
// Chromium, for an overview and an AI Mode answer that stream as slowly as
// live ones do: a "Generating" phase of 4 s with no answer, then bursts
// with silences of 3 s, whole 12 s after the page's script started. With
// the default waits both come back whole (every paragraph and source of
// the finished page) and complete.
func TestSlowAnswersEndToEnd(t *testing.T) {
	s := startStack(t, stackOptions{waitTimeout: "60s",
		fixture: serpfixture.Options{OverviewDelay: 12 * time.Second, Generating: 4 * time.Second, Pause: 3 * time.Second}})
	ctx := context.Background()
	noShots := new(bool)

	t.Run("overview", func(t *testing.T) {
		out, err := s.api.Overview(ctx, client.OverviewRequest{Query: "why is the sky blue", CountryCode: "us", LanguageCode: "en",
			Screenshots: noShots})
		if err != nil {
			t.Fatal(err)
		}
		page, err := serpfixture.FinalPage("why is the sky blue", "en")
		if err != nil {
			t.Fatal(err)
		}
		want, err := serp.Extract(page)
		if err != nil {
			t.Fatal(err)
		}
		r := out.Results
		var paragraphs, wantParagraphs, sources, wantSources []string
		for _, p := range r.Paragraphs {
			paragraphs = append(paragraphs, p.Text)
		}
		for _, p := range want.Paragraphs {
			wantParagraphs = append(wantParagraphs, p.Text)
		}
		for _, src := range r.Sources {
			sources = append(sources, src.URL)
		}
		for _, src := range want.Sources {
			wantSources = append(wantSources, src.URL)
		}
		if diff := cmp.Diff(wantParagraphs, paragraphs); diff != "" {
			t.Errorf("paragraphs (-finished page +answer):\n%s", diff)
		}
		if !slices.Equal(sources, wantSources) || len(sources) == 0 {
			t.Errorf("sources %v, want the finished page's %v", sources, wantSources)
		}
		if !r.HasOverview || !r.Complete {
			t.Errorf("hasOverview %v, complete %v; want both", r.HasOverview, r.Complete)
		}
	})

	t.Run("AI Mode", func(t *testing.T) {
		out, err := s.api.AIMode(ctx, client.AIModeRequest{Query: "why is the sky blue", CountryCode: "us", LanguageCode: "en",
			Screenshots: noShots})
		if err != nil {
			t.Fatal(err)
		}
		page, err := serpfixture.FinalAIModePage("why is the sky blue", "en", "us")
		if err != nil {
			t.Fatal(err)
		}
		want, err := serp.ExtractAIMode(page)
		if err != nil {
			t.Fatal(err)
		}
		r := out.Results
		var sources []string
		for _, src := range r.Sources {
			sources = append(sources, src.URL)
		}
		var wantSources []string
		for _, src := range want.Sources {
			wantSources = append(wantSources, src.URL)
		}
		if r.Text != want.Text || !slices.Equal(sources, wantSources) || len(sources) == 0 {
			t.Errorf("answer %q with sources %v, want the finished page's %q with %v", r.Text, sources, want.Text, wantSources)
		}
		if !r.HasAnswer || !r.Complete {
			t.Errorf("hasAnswer %v, complete %v; want both", r.HasAnswer, r.Complete)
		}
	})
}
