package api

import (
	"context"
	"errors"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"
	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"

	"github.com/kisa-dev/kisa/apikey"
	"github.com/kisa-dev/kisa/ops"
	"github.com/kisa-dev/kisa/storage"
	"github.com/kisa-dev/kisa/testenv"
)

func TestRoutingErrors(t *testing.T) {
	ts := newTestServer(t, 0)
	_, key := newCaller(t, ts.db)
	tests := []struct {
		name      string
		method    string
		path      string
		key       string
		want      int
		wantBody  string
		wantAllow string
	}{
		{name: "unknown route", method: "GET", path: "/v1/nothing-here",
			want: 404, wantBody: `{"status":false,"error":"no such endpoint"}`},
		{name: "unknown route with a key", method: "GET", path: "/v2/knowledgebase", key: key,
			want: 404, wantBody: `{"status":false,"error":"no such endpoint"}`},
		{name: "root", method: "GET", path: "/",
			want: 404, wantBody: `{"status":false,"error":"no such endpoint"}`},
		{name: "trailing slash is not redirected", method: "GET", path: "/v1/knowledgebase/", key: key,
			want: 404, wantBody: `{"status":false,"error":"no such endpoint"}`},
		{name: "POST on a GET route", method: "POST", path: "/v1/knowledgebase", key: key,
			want: 405, wantBody: `{"status":false,"error":"method not allowed"}`, wantAllow: "GET"},
		{name: "DELETE on an item", method: "DELETE", path: "/v1/integrations/" + uuid.NewString(),
			want: 405, wantBody: `{"status":false,"error":"method not allowed"}`, wantAllow: "GET"},
		{name: "GET on the overview", method: "GET", path: "/v1/networks/browser/ai-overview", key: key,
			want: 405, wantBody: `{"status":false,"error":"method not allowed"}`, wantAllow: "POST"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := do(t, ts, request(tt.method, tt.path, tt.key, ""))
			checkJSON(t, res, tt.want, tt.wantBody)
			if got := res.Header.Get("Allow"); tt.wantAllow != "" && got != tt.wantAllow {
				t.Errorf("Allow = %q, want %q", got, tt.wantAllow)
			}
		})
	}
}

func TestRequestID(t *testing.T) {
	ts := newTestServer(t, 0)
	_, key := newCaller(t, ts.db)
	long128 := strings.Repeat("a", 128)
	tests := []struct {
		name string
		sent string // "" sends none
		path string
		key  string
		want string // "" wants a generated UUID
	}{
		{name: "none sent", path: "/v1/knowledgebase", key: key},
		{name: "sane one kept", sent: "req-42.a:b_c", path: "/v1/knowledgebase", key: key, want: "req-42.a:b_c"},
		{name: "128 characters kept", sent: long128, path: "/v1/knowledgebase", key: key, want: long128},
		{name: "kept on a 401", sent: "abc-401", path: "/v1/knowledgebase", want: "abc-401"},
		{name: "kept on a 404 route", sent: "abc-404", path: "/nowhere", want: "abc-404"},
		{name: "129 characters replaced", sent: long128 + "a", path: "/v1/knowledgebase", key: key},
		{name: "300 characters replaced", sent: strings.Repeat("x", 300), path: "/v1/knowledgebase", key: key},
		{name: "spaces replaced", sent: "has a space", path: "/v1/knowledgebase", key: key},
		{name: "markup replaced", sent: "<script>", path: "/nowhere"},
		{name: "non-ASCII replaced", sent: "idé", path: "/nowhere"},
		{name: "an API key replaced, never logged", sent: key, path: "/v1/knowledgebase", key: key},
		{name: "a text holding an API key replaced", sent: "trace." + key, path: "/nowhere"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := request("GET", tt.path, tt.key, "")
			if tt.sent != "" {
				req.Header.Set("X-Request-Id", tt.sent)
			}
			res := do(t, ts, req)
			got := res.Header.Get("X-Request-Id")
			if tt.want != "" {
				if got != tt.want {
					t.Errorf("X-Request-Id = %q, want %q", got, tt.want)
				}
			} else if _, err := uuid.Parse(got); err != nil || got == tt.sent || len(got) != 36 {
				t.Errorf("X-Request-Id = %q, want a generated UUID", got)
			}
			if !hasLog(t, ts.logs, "request", "request_id", got) {
				t.Errorf("no request log line with request_id %q:\n%s", got, ts.logs)
			}
		})
	}
}

// hasLog reports whether a log line with message msg has attr = value.
func hasLog(tb testing.TB, logs *syncBuffer, msg, attr string, value any) bool {
	tb.Helper()
	for _, l := range logs.logLines(tb) {
		if l["msg"] == msg && l[attr] == value {
			return true
		}
	}
	return false
}

var incidentBody = regexp.MustCompile(`^\{"status":false,"error":"internal error, incident ([a-z]+-[a-z]+-[0-9]{4})"\}$`)

func TestPanicIsAnIncident(t *testing.T) {
	ts := newTestServer(t, 0)
	ts.router.GET("/test/panic", func(*gin.Context) { panic("boom: pg password hunter2") })
	req := request("GET", "/test/panic", "", "")
	req.Header.Set("X-Request-Id", "panic-req-1")
	res := do(t, ts, req)

	if res.Status != http.StatusInternalServerError {
		t.Fatalf("status = %d, want 500", res.Status)
	}
	checkJSONHeaders(t, res)
	m := incidentBody.FindStringSubmatch(res.Body)
	if m == nil {
		t.Fatalf("body = %s, want only an incident phrase", res.Body)
	}
	var found bool
	for _, l := range ts.logs.logLines(t) {
		if l["msg"] != "internal error" {
			continue
		}
		found = true
		got := map[string]any{"level": l["level"], "incident": l["incident"], "request_id": l["request_id"]}
		want := map[string]any{"level": "ERROR", "incident": m[1], "request_id": "panic-req-1"}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("incident log line (-want +got):\n%s", diff)
		}
		cause, _ := l["error"].(string)
		for _, s := range []string{"boom: pg password hunter2", "goroutine ", "server_test.go"} {
			if !strings.Contains(cause, s) {
				t.Errorf("logged error lacks %q (value and stack): %q", s, cause)
			}
		}
	}
	if !found {
		t.Errorf("no incident logged:\n%s", ts.logs)
	}
	if !hasLog(t, ts.logs, "request", "status", float64(500)) {
		t.Errorf("request line does not record status 500:\n%s", ts.logs)
	}
}

func TestInternalErrorIsNotEchoed(t *testing.T) {
	closed, err := storage.Open(context.Background(), testenv.DatabaseURL())
	if err != nil {
		t.Fatal(err)
	}
	closed.Close()
	ts := newTestServer(t, 0, func(o *Options) { o.DB = closed })
	_, key := newCaller(t, ts.db)
	res := get(t, ts, "/v1/knowledgebase", key)
	if res.Status != http.StatusInternalServerError || !incidentBody.MatchString(res.Body) {
		t.Errorf("got %d %s, want 500 with only an incident phrase", res.Status, res.Body)
	}
	checkJSONHeaders(t, res)
	if !strings.Contains(ts.logs.String(), "database is closed") {
		t.Errorf("cause not logged:\n%s", ts.logs)
	}
}

func TestHealth(t *testing.T) {
	ok := func(context.Context) error { return nil }
	down := func(context.Context) error { return errors.New("dial tcp: refused") }
	slow := func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() }
	allUp := `{"status":true,"data":{"minio":"ok","postgres":"ok","redis":"ok"}}`
	tests := []struct {
		name     string
		checks   ops.Checks
		path     string
		want     int
		wantBody string
	}{
		{name: "ready", checks: ops.Checks{"postgres": ok, "redis": ok, "minio": ok}, path: "/readyz", want: 200, wantBody: allUp},
		{name: "healthz is readyz", checks: ops.Checks{"postgres": ok, "redis": ok, "minio": ok}, path: "/healthz", want: 200, wantBody: allUp},
		{name: "redis down", checks: ops.Checks{"postgres": ok, "redis": down, "minio": ok}, path: "/readyz", want: 503,
			wantBody: `{"status":false,"error":"not ready: redis unavailable","errors":{"minio":"ok","postgres":"ok","redis":"unavailable"}}`},
		{name: "two down, one of them hanging", checks: ops.Checks{"postgres": slow, "redis": ok, "minio": down}, path: "/healthz", want: 503,
			wantBody: `{"status":false,"error":"not ready: minio, postgres unavailable","errors":{"minio":"unavailable","postgres":"unavailable","redis":"ok"}}`},
		{name: "live while everything is down", checks: ops.Checks{"postgres": down, "redis": down, "minio": down}, path: "/livez", want: 200,
			wantBody: `{"status":true,"data":{"process":"ok"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := newTestServer(t, 0, func(o *Options) { o.HealthChecks = tt.checks })
			checkJSON(t, get(t, ts, tt.path, ""), tt.want, tt.wantBody)
		})
	}
}

func TestOverviewBodyHandling(t *testing.T) {
	ts := newTestServer(t, 0)
	acc, key := newCaller(t, ts.db)
	noRun, _ := newKey(t, ts.db, acc, apikey.ScopeKnowledgebaseRead)
	exactlyMax := `{"query":"coffee"` + strings.Repeat(" ", MaxBodyBytes-len(`{"query":"coffee"}`)) + `}`
	tests := []struct {
		name     string
		key      string
		body     string
		want     int
		wantBody string
	}{
		{name: "malformed JSON", key: key, body: `{"query":`,
			want: 400, wantBody: `{"status":false,"error":"request body ends inside its JSON value (at byte 9)"}`},
		{name: "JSON array", key: key, body: `["query"]`,
			want: 400, wantBody: `{"status":false,"error":"request body must be a JSON object"}`},
		{name: "no body", key: key, body: "",
			want: 400, wantBody: `{"status":false,"error":"request body must be a JSON object"}`},
		{name: "one byte over 1 MiB", key: key, body: exactlyMax + " ",
			want: 413, wantBody: `{"status":false,"error":"request body is larger than 1048576 bytes"}`},
		{name: "invalid field", key: key, body: `{"query":""}`,
			want: 422, wantBody: `{"status":false,"error":"validation failed","errors":{"query":"must not be empty"}}`},
		{name: "exactly 1 MiB is read, validated, then 503 without a runner", key: key, body: exactlyMax,
			want: 503, wantBody: `{"status":false,"error":"the overview service is unavailable; try again shortly"}`},
		{name: "key without overview:run", key: noRun, body: `{"query":"coffee"}`,
			want: 403, wantBody: `{"status":false,"error":"this API key lacks the scope \"overview:run\""}`},
		{name: "no key", body: `{"query":"coffee"}`,
			want: 401, wantBody: `{"status":false,"error":"authorization header is missing"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := request("POST", "/v1/networks/browser/ai-overview", tt.key, tt.body)
			req.Header.Set("Content-Type", "application/json")
			res := do(t, ts, req)
			checkJSON(t, res, tt.want, tt.wantBody)
			if tt.want == 503 && res.Header.Get("Retry-After") != "15" {
				t.Errorf("Retry-After = %q, want 15", res.Header.Get("Retry-After"))
			}
		})
	}
}

// TestNoSecretsLeak runs successes and failures and checks that no
// secret value and no full API key reaches a log line or a body.
func TestNoSecretsLeak(t *testing.T) {
	ts := newTestServer(t, 0, func(o *Options) { o.AdminToken = testAdminToken })
	ctx := context.Background()
	acc, key := newCaller(t, ts.db)
	plain := "plain-secret-" + testenv.RandomHex(12)
	secretID, err := ts.secrets.Create(ctx, acc, "STRIPE_KEY", plain)
	if err != nil {
		t.Fatal(err)
	}
	revoked, revokedID := newKey(t, ts.db, acc, apikey.AllScopes()...)
	if err := ts.db.RevokeAPIKey(ctx, revokedID); err != nil {
		t.Fatal(err)
	}
	no2FA, _ := newKey(t, ts.db, newAccount(t, ts.db, false), apikey.AllScopes()...)
	noScope, _ := newKey(t, ts.db, acc)
	wrongSecret := key[:len(key)-4] + "AAAA"
	if wrongSecret == key {
		wrongSecret = key[:len(key)-4] + "BBBB"
	}
	keys := []string{key, revoked, no2FA, noScope, wrongSecret}
	ts.router.GET("/test/panic-with-key", func(*gin.Context) { panic("boom") })

	var bodies []string
	for _, k := range keys {
		for _, path := range []string{"/v1/secrets/" + secretID.String(), "/v1/secrets/not-a-uuid", "/v1/knowledgebase", "/v1/integrations"} {
			bodies = append(bodies, get(t, ts, path, k).Body)
		}
		strict := []string{`{"query":"` + k + `","query":"` + plain + `"}`, `{"query":"x"} "` + k + `"`,
			`{"query":"` + k + `\ud800"}`, "{\"query\":\"" + plain + "\xff\"}", `{"query":"` + plain + `\u0000"}`,
			`{"query":"x","a":` + strings.Repeat("[", 20) + `"` + k + `"` + strings.Repeat("]", 20) + `}`,
			`{"query":"x","cache":{"ttl":"` + plain + `"}}`, `{"query":"` + k + "\t" + `"}`}
		for _, body := range append(strict, `{"query":"`+k+`"}`, `{"query":"x","colour":"`+plain+`"}`, `{"query":`+k) {
			bodies = append(bodies, do(t, ts, request("POST", "/v1/networks/browser/ai-overview", k, body)).Body)
		}
		req := request("GET", "/v1/knowledgebase", "", "")
		req.Header.Set("Authorization", "Basic "+k)
		bodies = append(bodies, do(t, ts, req).Body)
		req = request("GET", "/v1/knowledgebase", "", "")
		req.Header.Set("Authorization", "Bearer "+k+"x")
		bodies = append(bodies, do(t, ts, req).Body)
		req = request("GET", "/test/panic-with-key", k, "")
		req.Header.Set("X-Request-Id", k)
		bodies = append(bodies, do(t, ts, req).Body)
		// Any token is a method: the key sent as one reaches no log and no label.
		bodies = append(bodies, do(t, ts, request(k, "/v1/knowledgebase", k, "")).Body)
	}
	// The metrics, last, carry every label the requests above made.
	metrics := request(http.MethodGet, "/metrics", "", "")
	metrics.Header.Set("Authorization", "Bearer "+testAdminToken)
	bodies = append(bodies, do(t, ts, metrics).Body)
	if !strings.Contains(bodies[len(bodies)-1], `method="other"`) {
		t.Errorf("no request counted under method=\"other\":\n%s", bodies[len(bodies)-1])
	}
	if bodies[0] == "" || !strings.Contains(bodies[0], MaskedValue) {
		t.Fatalf("the secret was not read: %s", bodies[0])
	}
	logs := ts.logs.String()
	if n := len(ts.logs.logLines(t)); n < len(bodies) {
		t.Fatalf("%d log lines for %d requests: logs not captured", n, len(bodies))
	}
	for _, s := range append(keys, plain) {
		if strings.Contains(logs, s) {
			t.Errorf("logs contain %q", s)
		}
		for _, b := range bodies {
			if strings.Contains(b, s) {
				t.Errorf("a response body contains %q: %s", s, b)
			}
		}
	}
}

// TestSaneRequestID: the hand-written check keeps exactly the ids the
// pattern ^[A-Za-z0-9._:-]{1,128}$ keeps, byte by byte and at the length
// bounds.
func TestSaneRequestID(t *testing.T) {
	pattern := regexp.MustCompile(`^[A-Za-z0-9._:-]{1,128}$`)
	ids := []string{"", strings.Repeat("a", 128), strings.Repeat("a", 129), "req-42.a:b_c", "idé", "a b"}
	for b := range 256 {
		ids = append(ids, string([]byte{byte(b)}), "x"+string([]byte{byte(b)})+"y")
	}
	for _, id := range ids {
		if got, want := saneRequestID(id), pattern.MatchString(id); got != want {
			t.Errorf("saneRequestID(%q) = %v, the pattern says %v", id, got, want)
		}
	}
}
