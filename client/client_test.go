package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kisa-dev/kisa/client"
)

// scripted is an HTTP server that gives its answers in order and records
// the bodies it received; past the last answer it repeats it.
type scripted struct {
	*httptest.Server
	mu     sync.Mutex
	bodies []string
}

// answerSpec is one scripted answer.
type answerSpec struct {
	status     int
	retryAfter string
	body       string
}

func newScripted(tb testing.TB, answers ...answerSpec) *scripted {
	tb.Helper()
	s := &scripted{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		n := len(s.bodies)
		s.bodies = append(s.bodies, string(b))
		s.mu.Unlock()
		a := answers[min(n, len(answers)-1)]
		if a.retryAfter != "" {
			w.Header().Set("Retry-After", a.retryAfter)
		}
		w.Header().Set("X-Request-Id", "req-"+string(rune('a'+n)))
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(a.status)
		io.WriteString(w, a.body)
	}))
	tb.Cleanup(s.Close)
	return s
}

func (s *scripted) received() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.bodies...)
}

const (
	okBody          = `{"status":true,"data":{"isCached":true,"cacheExpiresIn":90,"results":{"hasOverview":true,"text":"t","paragraphs":[],"citations":[],"sources":[]}}}`
	unavailableBody = `{"status":false,"error":"the task queue is unavailable; try again shortly"}`
	limitedBody     = `{"status":false,"error":"rate limit exceeded"}`
)

// TestRetries checks which answers are retried, how often, and that each
// attempt sends the same body.
func TestRetries(t *testing.T) {
	tests := []struct {
		name      string
		answers   []answerSpec
		wantCalls int
		wantErr   *client.Error
	}{
		{name: "503 then 429 then success", wantCalls: 3,
			answers: []answerSpec{{503, "0", unavailableBody}, {429, "0", limitedBody}, {200, "", okBody}}},
		{name: "429 past the retries", wantCalls: 4, answers: []answerSpec{{429, "0", limitedBody}},
			wantErr: &client.Error{Status: 429, Message: "rate limit exceeded", RequestID: "req-d"}},
		{name: "Retry-After beyond the longest wait is returned at once", wantCalls: 1,
			answers: []answerSpec{{503, "3600", unavailableBody}},
			wantErr: &client.Error{Status: 503, Message: "the task queue is unavailable; try again shortly", RequestID: "req-a", RetryAfter: time.Hour}},
		{name: "500 is not retried", wantCalls: 1,
			answers: []answerSpec{{500, "", `{"status":false,"error":"internal error, incident calm-otter-4821"}`}},
			wantErr: &client.Error{Status: 500, Message: "internal error, incident calm-otter-4821", RequestID: "req-a"}},
		{name: "422 carries the field errors", wantCalls: 1,
			answers: []answerSpec{{422, "", `{"status":false,"error":"validation failed","errors":{"query":"is required"}}`}},
			wantErr: &client.Error{Status: 422, Message: "validation failed", Fields: map[string]string{"query": "is required"}, RequestID: "req-a"}},
		{name: "403 carries the docs URL", wantCalls: 1,
			answers: []answerSpec{{403, "", `{"status":false,"error":"enable 2FA","docs":"https://docs.kisa.test/errors#2fa-required"}`}},
			wantErr: &client.Error{Status: 403, Message: "enable 2FA", Docs: "https://docs.kisa.test/errors#2fa-required", RequestID: "req-a"}},
		{name: "a proxy's HTML page", wantCalls: 1, answers: []answerSpec{{502, "", `<html>bad gateway</html>`}},
			wantErr: &client.Error{Status: 502, Message: "Bad Gateway", RequestID: "req-a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newScripted(t, tt.answers...)
			c := client.New(srv.URL, "kisa_test", client.WithRetries(3, time.Minute))
			out, err := c.Overview(context.Background(), client.OverviewRequest{Query: "q", CountryCode: "us"})
			var got *client.Error
			if err != nil && !errors.As(err, &got) {
				t.Fatalf("error %v is not a *client.Error", err)
			}
			if diff := cmp.Diff(tt.wantErr, got); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			if err == nil && (!out.IsCached || *out.CacheExpiresIn != 90 || !out.Results.HasOverview) {
				t.Errorf("answer = %+v, want the scripted overview", out)
			}
			want := make([]string, tt.wantCalls)
			for i := range want {
				want[i] = `{"query":"q","countryCode":"us"}`
			}
			if diff := cmp.Diff(want, srv.received()); diff != "" {
				t.Errorf("requests (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRetryWaitEndsWithContext checks that a wait for Retry-After stops
// when the caller's context ends, returning the last answer's error.
func TestRetryWaitEndsWithContext(t *testing.T) {
	srv := newScripted(t, answerSpec{503, "600", unavailableBody})
	ctx, cancel := context.WithCancel(context.Background())
	hc := &http.Client{Transport: cancelOnClose{cancel}}
	c := client.New(srv.URL, "kisa_test", client.WithRetries(3, time.Hour), client.WithHTTPClient(hc))
	_, err := c.ListClusters(ctx)
	if client.StatusOf(err) != 503 || len(srv.received()) != 1 {
		t.Fatalf("error = %v after %d requests, want the first 503", err, len(srv.received()))
	}
}

// cancelOnClose cancels a context once the client has read an answer.
type cancelOnClose struct{ cancel context.CancelFunc }

func (c cancelOnClose) RoundTrip(r *http.Request) (*http.Response, error) {
	res, err := http.DefaultTransport.RoundTrip(r)
	if err == nil {
		res.Body = closeHook{res.Body, c.cancel}
	}
	return res, err
}

type closeHook struct {
	io.ReadCloser
	hook func()
}

func (c closeHook) Close() error { defer c.hook(); return c.ReadCloser.Close() }

// TestErrorText checks how an *Error reads in a log.
func TestErrorText(t *testing.T) {
	e := &client.Error{Status: 422, Message: "validation failed", RequestID: "r1",
		Fields: map[string]string{"query": "is required", "cache.ttl": "must be a whole number"}}
	want := "kisa: 422 validation failed (cache.ttl: must be a whole number; query: is required) [request r1]"
	if got := e.Error(); got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

// TestCompleteStream checks that streamed completions arrive event by event.
func TestCompleteStream(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if !strings.Contains(string(b), `"stream":true`) {
			w.WriteHeader(400)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: {\"n\":1}\n\n: comment\n\ndata: {\"n\":2}\n\ndata: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	var got []string
	err := client.New(srv.URL, "k").CompleteStream(context.Background(), client.CompletionRequest{Model: "m",
		Messages: []client.Message{{Role: "user", Content: "hi"}}}, func(d string) error { got = append(got, d); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{`{"n":1}`, `{"n":2}`, "[DONE]"}, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

// TestBatchItems checks that batch items carry their surface, and the
// overview's none.
func TestBatchItems(t *testing.T) {
	items := []client.BatchItem{client.OverviewItem(client.OverviewRequest{Query: "a"}), client.AIModeItem(client.AIModeRequest{Query: "b", FollowUps: []string{"c"}}),
		client.WebSearchItem(client.WebSearchRequest{Query: "d", MaxResults: 2})}
	b, err := json.Marshal(items)
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"query":"a"},{"followUps":["c"],"query":"b","surface":"ai-mode"},{"maxResults":2,"query":"d","surface":"web-search"}]`
	if string(b) != want {
		t.Errorf("items = %s, want %s", b, want)
	}
}
