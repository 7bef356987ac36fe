package api

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

const testAdminToken = "admin-token-for-tests-0123456789"

// family returns the metric family name gathered from reg, or nil.
func family(tb testing.TB, reg *prometheus.Registry, name string) *dto.MetricFamily {
	tb.Helper()
	fams, err := reg.Gather()
	if err != nil {
		tb.Fatal(err)
	}
	for _, f := range fams {
		if f.GetName() == name {
			return f
		}
	}
	return nil
}

// counterValue is the value of the counter name{labels}, 0 when absent.
func counterValue(tb testing.TB, reg *prometheus.Registry, name string, labels map[string]string) float64 {
	tb.Helper()
	f := family(tb, reg, name)
	if f == nil {
		return 0
	}
next:
	for _, m := range f.GetMetric() {
		for _, lp := range m.GetLabel() {
			if v, ok := labels[lp.GetName()]; ok && v != lp.GetValue() {
				continue next
			}
		}
		return m.GetCounter().GetValue()
	}
	return 0
}

// TestMetricsBoundedSeries: made-up methods and paths count as "other"
// and "unmatched", so that 1,000 of them make a handful of series; routes
// are counted by template, never by path.
func TestMetricsBoundedSeries(t *testing.T) {
	ts := newTestServer(t, 0)
	_, key := newCaller(t, ts.db)
	for i := range 1000 {
		path := fmt.Sprintf("/v1/integrations/made-up-%d", i)
		if i%2 == 0 {
			path = fmt.Sprintf("/made-up/%d", i)
		}
		do(t, ts, request(fmt.Sprintf("MADEUP%d", i), path, "", ""))
	}
	for range 3 {
		get(t, ts, "/v1/integrations/00000000-0000-0000-0000-000000000001", key)
	}
	f := family(t, ts.opts.Registry, "kisa_http_requests_total")
	var series []string
	for _, m := range f.GetMetric() {
		var labels []string
		for _, lp := range m.GetLabel() {
			labels = append(labels, lp.GetName()+"="+lp.GetValue())
		}
		series = append(series, fmt.Sprintf("%s %v", strings.Join(labels, ","), m.GetCounter().GetValue()))
	}
	if len(series) > 4 {
		t.Errorf("%d series after 1,000 made-up methods, want a handful:\n%s", len(series), strings.Join(series, "\n"))
	}
	want := map[string]bool{
		"method=GET,route=/v1/integrations/:id,status=404 3": true,
	}
	for _, s := range series {
		delete(want, s)
	}
	if len(want) > 0 {
		t.Errorf("missing series %v in:\n%s", want, strings.Join(series, "\n"))
	}
	other := counterValue(t, ts.opts.Registry, "kisa_http_requests_total", map[string]string{"method": "other"})
	if other == 0 {
		t.Errorf("no request counted with method other:\n%s", strings.Join(series, "\n"))
	}
}

// TestAdminRoutes: /metrics answers only with the admin token, as a
// bearer token or a basic password with any user name; without a token
// configured it does not exist.
func TestAdminRoutes(t *testing.T) {
	withToken := newTestServer(t, 0, func(o *Options) { o.AdminToken = testAdminToken })
	without := newTestServer(t, 0)
	unauthorized := `{"status":false,"error":"the admin token is required (Authorization: Bearer <KISA_ADMIN_TOKEN>, or basic authentication with it as the password)"}`
	tests := []struct {
		name      string
		srv       *testServer
		auth      func(*http.Request)
		want      int
		wantBody  string // exact JSON, or "" for the metrics text
		challenge bool
	}{
		{name: "no credential", srv: withToken, auth: func(*http.Request) {}, want: 401, wantBody: unauthorized, challenge: true},
		{name: "wrong bearer", srv: withToken, auth: bearer("not-the-token-0123456789"), want: 401, wantBody: unauthorized, challenge: true},
		{name: "wrong basic password", srv: withToken, auth: basic("admin", "nope"), want: 401, wantBody: unauthorized, challenge: true},
		{name: "API key is not the admin token", srv: withToken, auth: bearer("kisa_abc"), want: 401, wantBody: unauthorized, challenge: true},
		{name: "bearer", srv: withToken, auth: bearer(testAdminToken), want: 200},
		{name: "basic, any user", srv: withToken, auth: basic("anyone", testAdminToken), want: 200},
		{name: "no token configured", srv: without, auth: bearer(testAdminToken), want: 404,
			wantBody: `{"status":false,"error":"no such endpoint"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := request(http.MethodGet, "/metrics", "", "")
			tt.auth(req)
			res := do(t, tt.srv, req)
			if tt.wantBody != "" {
				checkJSON(t, res, tt.want, tt.wantBody)
			} else if res.Status != tt.want || !strings.Contains(res.Body, "# TYPE kisa_http_requests_total counter") {
				t.Errorf("got %d, want %d with the metrics text:\n%.400s", res.Status, tt.want, res.Body)
			}
			if got := res.Header.Get("WWW-Authenticate"); tt.challenge != strings.HasPrefix(got, "Basic ") {
				t.Errorf("WWW-Authenticate = %q, want a Basic challenge: %v", got, tt.challenge)
			}
		})
	}
}

func bearer(token string) func(*http.Request) {
	return func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+token) }
}

func basic(user, pass string) func(*http.Request) {
	return func(r *http.Request) { r.SetBasicAuth(user, pass) }
}

// TestProfiler: /debug/pprof/ answers only with the admin token, and does
// not exist without one.
func TestProfiler(t *testing.T) {
	withToken := newTestServer(t, 0, func(o *Options) { o.AdminToken = testAdminToken })
	without := newTestServer(t, 0)
	tests := []struct {
		name     string
		srv      *testServer
		path     string
		auth     func(*http.Request)
		want     int
		contains string
	}{
		{name: "index with the token", srv: withToken, path: "/debug/pprof/", auth: bearer(testAdminToken), want: 200, contains: "goroutine"},
		{name: "heap with the token", srv: withToken, path: "/debug/pprof/heap?debug=1", auth: bearer(testAdminToken), want: 200, contains: "heap profile"},
		{name: "no credential", srv: withToken, path: "/debug/pprof/", auth: func(*http.Request) {}, want: 401, contains: "admin token is required"},
		{name: "API key is not the admin token", srv: withToken, path: "/debug/pprof/heap", auth: bearer("kisa_abc"), want: 401, contains: "admin token is required"},
		{name: "no token configured", srv: without, path: "/debug/pprof/", auth: bearer(testAdminToken), want: 404, contains: "no such endpoint"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := request(http.MethodGet, tt.path, "", "")
			tt.auth(req)
			res := do(t, tt.srv, req)
			if res.Status != tt.want || !strings.Contains(res.Body, tt.contains) {
				t.Errorf("GET %s: %d, want %d containing %q:\n%.300s", tt.path, res.Status, tt.want, tt.contains, res.Body)
			}
		})
	}
}
