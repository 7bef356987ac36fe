package api

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/apikey"
	"github.com/kisa-dev/kisa/overview"
	"github.com/kisa-dev/kisa/testenv"
)

// benchGet serves GET path with key b.N times through the whole router.
func benchGet(b *testing.B, srv *testServer, path, key string) {
	b.Helper()
	b.ReportAllocs()
	for b.Loop() {
		if res := get(b, srv, path, key); res.Status != http.StatusOK {
			b.Fatalf("status %d: %s", res.Status, res.Body)
		}
	}
}

// BenchmarkGetIntegration is one authenticated single-row read on the
// real PostgreSQL, with the key cache on (one query a request) and off
// (two: the key, then the row), and as `kisa web` serves it under load:
// the key cache on, the Redis limiter on through the auto-pipeliner, and
// no request log line (the suite's KISA_LOG_LEVEL=warn).
func BenchmarkGetIntegration(b *testing.B) {
	asServed := func(o *Options) {
		ap, err := testenv.Redis(b).AutoPipeline()
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { ap.Close() })
		o.Limits = Limits{Redis: ap, Other: 1_000_000_000, Hold: time.Minute}
		o.Logger = slog.New(slog.NewJSONHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	for _, tc := range []struct {
		name  string
		ttl   time.Duration
		tweak func(*Options)
	}{
		{"key cache on", 30 * time.Second, nil},
		{"key cache off", 0, nil},
		{"as served", 30 * time.Second, asServed},
	} {
		b.Run(tc.name, func(b *testing.B) {
			var tweaks []func(*Options)
			if tc.tweak != nil {
				tweaks = append(tweaks, tc.tweak)
			}
			srv := newTestServer(b, tc.ttl, tweaks...)
			account := newAccount(b, srv.db, true)
			key, _ := newKey(b, srv.db, account, apikey.ScopeIntegrationsRead)
			id, err := srv.db.CreateIntegration(context.Background(), account, "google-looker-studio", []byte(`{"email":"a@b.c"}`))
			if err != nil {
				b.Fatal(err)
			}
			benchGet(b, srv, "/v1/integrations/"+id.String(), key)
		})
	}
}

// BenchmarkCachedOverview is an AI overview answered from the Redis cache,
// with three fresh presigned screenshot URLs.
func BenchmarkCachedOverview(b *testing.B) {
	rdb := testenv.Redis(b)
	srv, key := overviewServer(b, rdb, time.Minute)
	const body = `{"query":"why is the sky blue","countryCode":"us","languageCode":"en"}`
	res := kisa.Result{Overview: kisa.Overview{HasOverview: true, Text: "The sky is blue.",
		Citations: []kisa.Citation{}, Paragraphs: []kisa.Paragraph{{Text: "The sky is blue.", Citations: []kisa.Citation{}}},
		Sources: []kisa.Source{}}, Screenshots: map[string]string{
		kisa.ShotInitial: "a/initial.png", kisa.ShotAfterLoad: "a/afterLoad.png", kisa.ShotAfterExpand: "a/afterExpand.png"}}
	if err := testenv.Results(b, rdb, testResultsPrefix).Store(context.Background(), overview.Request{Query: "why is the sky blue", Country: "us", Language: "en", Screenshots: true}.Key(), res, time.Hour); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		r := do(b, srv, request(http.MethodPost, "/v1/networks/browser/ai-overview", key, body))
		if r.Status != http.StatusOK {
			b.Fatalf("status %d: %s", r.Status, r.Body)
		}
	}
}
