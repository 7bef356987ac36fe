package api

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kisa-dev/kisa/apikey"
	"github.com/kisa-dev/kisa/testenv"
)

// fakeUpstream is a small OpenAI-compatible chat-completions server on
// loopback: it records what it was sent and answers with reply.
type fakeUpstream struct {
	*httptest.Server
	mu   sync.Mutex
	got  []upstreamCall
	stop chan struct{} // closed when the test ends: blocked handlers return
}

// upstreamCall is one request the fake upstream received.
type upstreamCall struct {
	Auth, Accept, ContentType, Body string
}

// newFakeUpstream serves reply for every request, after recording it.
func newFakeUpstream(tb testing.TB, reply http.HandlerFunc) *fakeUpstream {
	tb.Helper()
	f := &fakeUpstream{stop: make(chan struct{})}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		f.mu.Lock()
		f.got = append(f.got, upstreamCall{Auth: r.Header.Get("Authorization"), Accept: r.Header.Get("Accept"),
			ContentType: r.Header.Get("Content-Type"), Body: string(b)})
		f.mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(b))
		reply(w, r)
	}))
	tb.Cleanup(func() { close(f.stop); f.Close() })
	return f
}

func (f *fakeUpstream) calls() []upstreamCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]upstreamCall(nil), f.got...)
}

// answer is a reply of the fake upstream: status, headers and body.
func answer(status int, body string, headers ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		for i := 0; i+1 < len(headers); i += 2 {
			w.Header().Set(headers[i], headers[i+1])
		}
		if w.Header().Get("Content-Type") == "" {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
}

// completionsServer is a test server forwarding completions to url
// (empty: none) and a key with only completions:run.
func completionsServer(tb testing.TB, url string, timeout time.Duration) (*testServer, string) {
	tb.Helper()
	srv := newTestServer(tb, 0, func(o *Options) {
		o.Completions = Completions{URL: url, Key: "upstream-secret", Timeout: timeout}
	})
	key, _ := newKey(tb, srv.db, newAccount(tb, srv.db, true), apikey.ScopeCompletionsRun)
	return srv, key
}

const chatReply = `{"id":"chatcmpl-1","object":"chat.completion","model":"gpt-test","choices":[{"index":0,"message":{"role":"assistant","content":"Hi!"},"finish_reason":"stop"}]}`

// TestCompletionsValidation checks that the body is validated before
// anything else, with every problem named by its field path.
func TestCompletionsValidation(t *testing.T) {
	srv, key := completionsServer(t, "", time.Second)
	tests := []struct {
		name     string
		body     string
		want     int
		wantBody string
	}{
		{name: "not an object", body: `[1]`, want: 400,
			wantBody: `{"status":false,"error":"request body must be a JSON object"}`},
		{name: "duplicate key", body: `{"model":"a","model":"b","messages":[{"role":"user","content":"hi"}]}`, want: 400,
			wantBody: `{"status":false,"error":"request body has the key \"model\" twice"}`},
		{name: "everything missing", body: `{}`, want: 422,
			wantBody: `{"status":false,"error":"validation failed","errors":{"model":"is required","messages":"is required"}}`},
		{name: "empty messages, blank model", body: `{"model":"  ","messages":[]}`, want: 422,
			wantBody: `{"status":false,"error":"validation failed","errors":{"model":"must not be empty","messages":"must hold at least one message"}}`},
		{name: "message without content", body: `{"model":"m","messages":[{"role":"system","content":"be brief"},{"role":"user"}]}`, want: 422,
			wantBody: `{"status":false,"error":"validation failed","errors":{"messages[1].content":"is required"}}`},
		{name: "bad elements and types", body: `{"model":7,"messages":[3,{"content":null},{"role":"user","content":{}}],"stream":"yes"}`, want: 422,
			wantBody: `{"status":false,"error":"validation failed","errors":{"model":"must be a string",
				"messages[0]":"must be an object with role and content","messages[1].role":"is required",
				"messages[1].content":"is required","messages[2].content":"must be a string or an array of content parts",
				"stream":"must be a boolean"}}`},
		{name: "valid, but no upstream configured", body: `{"model":"m","messages":[{"role":"user","content":"hi"}]}`, want: 503,
			wantBody: `{"status":false,"error":"completions are not enabled on this server"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := do(t, srv, request(http.MethodPost, "/v1/completions", key, tt.body))
			checkJSON(t, res, tt.want, tt.wantBody)
		})
	}
}

// TestCompletionsScope checks that a key needs completions:run.
func TestCompletionsScope(t *testing.T) {
	srv, _ := completionsServer(t, "", time.Second)
	key, _ := newKey(t, srv.db, newAccount(t, srv.db, true), apikey.ScopeOverviewRun)
	res := do(t, srv, request(http.MethodPost, "/v1/completions", key, `{}`))
	checkJSON(t, res, 403, `{"status":false,"error":"this API key lacks the scope \"completions:run\""}`)
}

// TestCompletionsProxy checks the answers for each kind of upstream reply.
func TestCompletionsProxy(t *testing.T) {
	const body = `{"model":"gpt-test", "messages":[{"role":"user","content":"Hello"}],"temperature":0.2}`
	tests := []struct {
		name      string
		reply     http.HandlerFunc
		want      int
		wantBody  string
		wantRetry string
	}{
		{name: "success: data is the upstream's JSON", reply: answer(200, chatReply), want: 200,
			wantBody: `{"status":true,"data":` + chatReply + `}`},
		{name: "upstream refuses the request", reply: answer(404, `{"error":{"message":"The model gpt-test does not exist","type":"invalid_request_error"}}`),
			want: 400, wantBody: `{"status":false,"error":"the completions upstream rejected the request (HTTP 404): The model gpt-test does not exist"}`},
		{name: "upstream refuses our key", reply: answer(401, `{"error":{"message":"Incorrect API key provided: upstream-secret"}}`),
			want: 503, wantRetry: "300",
			wantBody: `{"status":false,"error":"the completions upstream refused this service's credentials; completions are unavailable"}`},
		{name: "upstream rate limit", reply: answer(429, `{"error":"slow down"}`, "Retry-After", "7"), want: 429, wantRetry: "7",
			wantBody: `{"status":false,"error":"the completions upstream is rate limiting this service; retry later: slow down"}`},
		{name: "upstream fails", reply: answer(502, `<html>bad gateway</html>`, "Content-Type", "text/html"), want: 503, wantRetry: "15",
			wantBody: `{"status":false,"error":"the completions upstream failed (HTTP 502); try again shortly"}`},
		{name: "upstream answers HTML", reply: answer(200, `<html>hi</html>`, "Content-Type", "text/html"), want: 503, wantRetry: "15",
			wantBody: `{"status":false,"error":"the completions upstream answered with something that is not JSON; try again shortly"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			up := newFakeUpstream(t, tt.reply)
			srv, key := completionsServer(t, up.URL+"/v1/chat/completions", 10*time.Second)
			res := do(t, srv, request(http.MethodPost, "/v1/completions", key, body))
			checkJSON(t, res, tt.want, tt.wantBody)
			if got := res.Header.Get("Retry-After"); got != tt.wantRetry {
				t.Errorf("Retry-After = %q, want %q", got, tt.wantRetry)
			}
			want := []upstreamCall{{Auth: "Bearer upstream-secret", Accept: "application/json", ContentType: "application/json", Body: body}}
			if diff := cmp.Diff(want, up.calls()); diff != "" {
				t.Errorf("upstream received (-want +got):\n%s", diff)
			}
			if strings.Contains(srv.logs.String(), "upstream-secret") {
				t.Error("the upstream key appears in the logs")
			}
		})
	}
}

// TestCompletionsUpstreamDown checks the 503s of an upstream that does
// not answer in time or cannot be reached.
func TestCompletionsUpstreamDown(t *testing.T) {
	const body = `{"model":"m","messages":[{"role":"user","content":"hi"}]}`
	t.Run("no answer within the timeout", func(t *testing.T) {
		var up *fakeUpstream
		up = newFakeUpstream(t, func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done():
			case <-up.stop:
			}
		})
		srv, key := completionsServer(t, up.URL, 300*time.Millisecond)
		res := do(t, srv, request(http.MethodPost, "/v1/completions", key, body))
		checkJSON(t, res, 503, `{"status":false,"error":"the completions upstream did not answer within 300ms; try again shortly"}`)
		if res.Header.Get("Retry-After") != "10" {
			t.Errorf("Retry-After = %q, want 10", res.Header.Get("Retry-After"))
		}
	})
	t.Run("connection refused", func(t *testing.T) {
		closed := httptest.NewServer(http.NotFoundHandler())
		closed.Close()
		srv, key := completionsServer(t, closed.URL, 5*time.Second)
		res := do(t, srv, request(http.MethodPost, "/v1/completions", key, body))
		checkJSON(t, res, 503, `{"status":false,"error":"the completions upstream is unavailable; try again shortly"}`)
	})
}

// sseEvents are the server-sent events the fake upstream streams: the
// first is sent at once, the rest only once the test has seen it.
var sseEvents = []string{
	"data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Hel\"}}]}\n\n",
	"data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"lo\"}}]}\n\n",
	": keep-alive comment\n\n",
	"data: [DONE]\n\n",
}

// TestCompletionsStream checks that "stream": true is relayed as
// server-sent events, unchanged and as they come: the client reads the
// first event while the upstream still holds back the rest.
func TestCompletionsStream(t *testing.T) {
	release := make(chan struct{})
	var up *fakeUpstream
	up = newFakeUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, sseEvents[0])
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-up.stop:
			return
		}
		for _, e := range sseEvents[1:] {
			io.WriteString(w, e)
			w.(http.Flusher).Flush()
		}
	})
	srv, key := completionsServer(t, up.URL, 10*time.Second)
	api := httptest.NewServer(srv)
	t.Cleanup(api.Close)
	body := `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`
	req, _ := http.NewRequest(http.MethodPost, api.URL+"/v1/completions", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "text/event-stream" || res.Header.Get("X-Request-Id") == "" {
		t.Fatalf("status %d, Content-Type %q, X-Request-Id %q; want 200, text/event-stream and an id",
			res.StatusCode, res.Header.Get("Content-Type"), res.Header.Get("X-Request-Id"))
	}
	r := bufio.NewReader(res.Body)
	first := readEvent(t, r)
	close(release)
	rest, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(strings.Join(sseEvents, ""), first+string(rest)); diff != "" {
		t.Errorf("relayed stream (-want +got):\n%s", diff)
	}
	if got := up.calls(); len(got) != 1 || got[0].Accept != "text/event-stream" || got[0].Body != body {
		t.Errorf("upstream received %+v, want the body unchanged with Accept: text/event-stream", got)
	}
}

// readEvent reads one server-sent event (up to its blank line).
func readEvent(tb testing.TB, r *bufio.Reader) string {
	tb.Helper()
	var b strings.Builder
	for {
		line, err := r.ReadString('\n')
		b.WriteString(line)
		if err != nil {
			tb.Fatalf("stream ended before the first event: %v (read %q)", err, b.String())
		}
		if line == "\n" {
			return b.String()
		}
	}
}

// TestCompletionsSpendAIBudget checks that a completion spends the key's
// AI budget, shared with overviews, and not the other one.
func TestCompletionsSpendAIBudget(t *testing.T) {
	up := newFakeUpstream(t, answer(200, chatReply))
	rdb := testenv.Redis(t)
	srv := newTestServer(t, 0, func(o *Options) {
		o.Completions = Completions{URL: up.URL, Timeout: 10 * time.Second}
		o.Limits = Limits{Redis: rdb, AI: 1, Other: 100}
	})
	key, _ := newKey(t, srv.db, newAccount(t, srv.db, true), apikey.AllScopes()...)
	body := `{"model":"m","messages":[{"role":"user","content":"hi"}]}`
	first := do(t, srv, request(http.MethodPost, "/v1/completions", key, body))
	if first.Status != 200 || first.Header.Get("RateLimit-Limit") != "1" {
		t.Fatalf("first completion: %d, RateLimit-Limit %q; want 200 and 1", first.Status, first.Header.Get("RateLimit-Limit"))
	}
	for _, r := range []*http.Request{request(http.MethodPost, "/v1/completions", key, body),
		request(http.MethodPost, "/v1/networks/browser/ai-overview", key, `{"query":"q"}`)} {
		res := do(t, srv, r)
		if res.Status != 429 || !strings.Contains(res.Body, "1 AI requests a minute") {
			t.Errorf("%s after the budget: %d %s; want 429 naming the AI budget", r.URL.Path, res.Status, res.Body)
		}
	}
	if res := get(t, srv, "/v1/knowledgebase", key); res.Status != 200 {
		t.Errorf("knowledgebase: %d, want 200 (the other budget)", res.Status)
	}
}
