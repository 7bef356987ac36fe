package ops

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"
)

const token = "ops-test-token-0123456789"

// answer is what a client sees of a response.
type answer struct {
	Status    int
	Challenge string // WWW-Authenticate
	Body      string // the JSON body, or "metrics" for the Prometheus text
}

func serve(tb testing.TB, h http.Handler, method, path string, auth func(*http.Request)) answer {
	tb.Helper()
	req := httptest.NewRequest(method, path, nil)
	auth(req)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	body := rec.Body.String()
	if strings.Contains(body, "# TYPE test_counter_total counter") {
		body = "metrics"
	}
	return answer{Status: rec.Code, Challenge: rec.Header().Get("WWW-Authenticate"), Body: body}
}

// TestMux: the worker's listener answers liveness whatever its
// dependencies, readiness naming the failing ones, and metrics only with
// the token, or not at all without one configured.
func TestMux(t *testing.T) {
	reg := prometheus.NewRegistry()
	c := prometheus.NewCounter(prometheus.CounterOpts{Name: "test_counter_total", Help: "A counter."})
	reg.MustRegister(c)
	c.Inc()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	down := Checks{"redis": func(context.Context) error { return nil }, "browser": func(context.Context) error { return errors.New("chromium is restarting") }}
	none := func(*http.Request) {}
	bearer := func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+token) }
	basic := func(r *http.Request) { r.SetBasicAuth("anyone", token) }
	wrong := func(r *http.Request) { r.SetBasicAuth("anyone", token+"x") }
	challenge := `Basic realm="kisa admin", charset="UTF-8"`
	refused := `{"status":false,"error":"the admin token is required (Authorization: Bearer <KISA_ADMIN_TOKEN>, or basic authentication with it as the password)"}`
	tests := []struct {
		name  string
		token string
		path  string
		auth  func(*http.Request)
		want  answer
	}{
		{name: "live with a dependency down", token: token, path: "/livez", auth: none,
			want: answer{Status: 200, Body: `{"status":true,"data":{"process":"ok"}}`}},
		{name: "not ready", token: token, path: "/readyz", auth: none, want: answer{Status: 503,
			Body: `{"status":false,"error":"not ready: browser unavailable","errors":{"browser":"unavailable","redis":"ok"}}`}},
		{name: "healthz is readyz", token: token, path: "/healthz", auth: none, want: answer{Status: 503,
			Body: `{"status":false,"error":"not ready: browser unavailable","errors":{"browser":"unavailable","redis":"ok"}}`}},
		{name: "metrics with a bearer token", token: token, path: "/metrics", auth: bearer, want: answer{Status: 200, Body: "metrics"}},
		{name: "metrics with basic, any user", token: token, path: "/metrics", auth: basic, want: answer{Status: 200, Body: "metrics"}},
		{name: "metrics without credential", token: token, path: "/metrics", auth: none,
			want: answer{Status: 401, Challenge: challenge, Body: refused}},
		{name: "metrics with a wrong token", token: token, path: "/metrics", auth: wrong,
			want: answer{Status: 401, Challenge: challenge, Body: refused}},
		{name: "no token configured: no metrics", token: "", path: "/metrics", auth: bearer,
			want: answer{Status: 404, Body: "404 page not found\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := serve(t, Mux(down, reg, tt.token, log), http.MethodGet, tt.path, tt.auth)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("GET %s (-want +got):\n%s", tt.path, diff)
			}
		})
	}
}

// TestAdminOnlyEmptyToken: a handler guarded by an empty token lets no
// one in, not even a request with an empty password.
func TestAdminOnlyEmptyToken(t *testing.T) {
	h := AdminOnly("", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusTeapot) }))
	for _, auth := range []func(*http.Request){func(*http.Request) {}, func(r *http.Request) { r.SetBasicAuth("admin", "") }} {
		if got := serve(t, h, http.MethodGet, "/", auth); got.Status != http.StatusUnauthorized {
			t.Errorf("status %d, want 401", got.Status)
		}
	}
}
