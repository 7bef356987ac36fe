package api

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/kisa-dev/kisa/apikey"
	"github.com/kisa-dev/kisa/storage"
	"github.com/kisa-dev/kisa/testenv"
)

// Settings of the server under test.
const (
	testPrefix = "kisa"
	testDocs   = "https://docs.kisa.test"
)

// testServer is a Server on the test database with its logs captured and
// its clock under the test's control.
type testServer struct {
	*Server
	db      *storage.DB
	secrets *storage.Secrets
	logs    *syncBuffer
	clock   *fakeClock
}

// newTestServer builds the API on the test database; keyTTL is its key
// cache lifetime (0: no cache). Overviews stay nil; tweaks may change
// the other options before New.
func newTestServer(tb testing.TB, keyTTL time.Duration, tweaks ...func(*Options)) *testServer {
	tb.Helper()
	db := testenv.Postgres(tb)
	key, err := base64.StdEncoding.DecodeString(testenv.SecretsKey())
	if err != nil {
		tb.Fatal(err)
	}
	secrets, err := storage.NewSecrets(db, key)
	if err != nil {
		tb.Fatal(err)
	}
	logs := &syncBuffer{}
	clock := &fakeClock{t: time.Date(2025, 11, 3, 9, 30, 0, 0, time.UTC)}
	opts := Options{
		DB: db, Secrets: secrets, KeyPrefix: testPrefix, DocsURL: testDocs, KeyCacheTTL: keyTTL,
		Logger: slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Now:    clock.Now,
	}
	for _, tweak := range tweaks {
		tweak(&opts)
	}
	srv := New(opts)
	return &testServer{Server: srv, db: db, secrets: secrets, logs: logs, clock: clock}
}

// syncBuffer captures a server's logs.
type syncBuffer struct{ testenv.Buffer }

// logLines decodes every JSON log line written so far.
func (s *syncBuffer) logLines(tb testing.TB) []map[string]any {
	tb.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(s.String()), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			tb.Fatalf("log line is not JSON: %v: %s", err, line)
		}
		out = append(out, m)
	}
	return out
}

// fakeClock is the injected Options.Now.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// newAccount creates an account of the test's own.
func newAccount(tb testing.TB, db *storage.DB, twoFactor bool) uuid.UUID {
	tb.Helper()
	acc, err := db.CreateAccount(context.Background(), "api-test-"+testenv.RandomHex(6), twoFactor)
	if err != nil {
		tb.Fatal(err)
	}
	return acc.ID
}

// newKey creates a key with the given scopes and returns it in full.
func newKey(tb testing.TB, db *storage.DB, account uuid.UUID, scopes ...string) (string, uuid.UUID) {
	tb.Helper()
	k, err := apikey.New(testPrefix)
	if err != nil {
		tb.Fatal(err)
	}
	id, err := db.CreateAPIKey(context.Background(), account, k.Lookup, k.Hash, scopes)
	if err != nil {
		tb.Fatal(err)
	}
	return k.Plain, id
}

// newCaller creates an account with 2FA and a key with every scope.
func newCaller(tb testing.TB, db *storage.DB) (uuid.UUID, string) {
	tb.Helper()
	acc := newAccount(tb, db, true)
	key, _ := newKey(tb, db, acc, apikey.AllScopes()...)
	return acc, key
}

// response is what a client sees of an answer.
type response struct {
	Status int
	Header http.Header
	Body   string
}

// request builds a request; an empty key sends no Authorization header.
func request(method, path, key, body string) *http.Request {
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, path, r)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	return req
}

// do serves req and returns what the client sees.
func do(tb testing.TB, h http.Handler, req *http.Request) response {
	tb.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	res := rec.Result()
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		tb.Fatal(err)
	}
	return response{Status: res.StatusCode, Header: res.Header, Body: string(b)}
}

// get is do for a GET with a key.
func get(tb testing.TB, h http.Handler, path, key string) response {
	tb.Helper()
	return do(tb, h, request(http.MethodGet, path, key, ""))
}

// checkJSON fails unless res has status, a JSON content type, a request
// id, and a body that is exactly the JSON value wantBody.
func checkJSON(tb testing.TB, res response, status int, wantBody string) {
	tb.Helper()
	if res.Status != status {
		tb.Errorf("status = %d, want %d; body %s", res.Status, status, res.Body)
	}
	checkJSONHeaders(tb, res)
	if diff := testenv.JSONDiff(tb, wantBody, res.Body); diff != "" {
		tb.Errorf("body mismatch (-want +got):\n%s\ngot body: %s", diff, res.Body)
	}
}

// checkJSONHeaders fails unless res is declared JSON and carries a request id.
func checkJSONHeaders(tb testing.TB, res response) {
	tb.Helper()
	mt, params, err := mime.ParseMediaType(res.Header.Get("Content-Type"))
	if err != nil || mt != "application/json" || (params["charset"] != "" && !strings.EqualFold(params["charset"], "utf-8")) {
		tb.Errorf("Content-Type = %q, want application/json", res.Header.Get("Content-Type"))
	}
	if res.Header.Get("X-Request-Id") == "" {
		tb.Errorf("response has no X-Request-Id")
	}
}

// wantStamp is the spec's timestamp format, written out independently
// of the code under test.
func wantStamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }
