package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/kisa-dev/kisa/testenv"
)

// e2eAdminToken opens /metrics and the dashboard of the end-to-end stack.
const e2eAdminToken = "e2e-admin-token-0123456789"

// scrape GETs url with the admin token (as a basic password) and returns
// status and body.
func scrape(tb testing.TB, url string, token bool) (int, string) {
	tb.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		tb.Fatal(err)
	}
	if token {
		req.SetBasicAuth("prometheus", e2eAdminToken)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatalf("GET %s: %v", url, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// checkOperations runs after overview requests went through the stack:
// web counts its requests, the worker its jobs and the queue (exported by
// the worker only); both answer their health endpoints and kisa
// healthcheck; API answers carry their RateLimit headers.
func (s *stack) checkOperations(t *testing.T) {
	for _, url := range []string{s.base + "/metrics", s.worker + "/metrics"} {
		if status, _ := scrape(t, url, false); status != http.StatusUnauthorized {
			t.Errorf("GET %s without the admin token: %d, want 401", url, status)
		}
	}
	tests := []struct {
		name      string
		url       string
		want, not []string
	}{
		{name: "web metrics", url: s.base + "/metrics", want: []string{
			`kisa_http_requests_total{method="POST",route="/v1/networks/browser/ai-overview",status="200"}`,
			`kisa_http_request_duration_seconds_bucket{method="POST",route="/v1/networks/browser/ai-overview",le="+Inf"}`,
			`kisa_overview_cache_requests_total{result="hit",surface="ai-overview"}`, `kisa_overview_cache_requests_total{result="miss",surface="ai-overview"}`,
			`kisa_ratelimit_decisions_total{budget="ai",decision="allowed"}`,
			`kisa_ratelimit_decisions_total{budget="concurrent",decision="allowed"}`,
			"go_goroutines ", "process_resident_memory_bytes ",
		}, not: []string{"kisa_queue_tasks", "kisa_worker_tasks_total"}},
		{name: "worker metrics", url: s.worker + "/metrics", want: []string{
			`kisa_worker_tasks_total{outcome="ok",surface="ai-overview"}`, `kisa_worker_task_duration_seconds_count{outcome="ok",surface="ai-overview"}`,
			`kisa_queue_tasks{queue="overview",state="pending"}`, `kisa_queue_up{queue="overview"} 1`,
			`kisa_queue_tasks{queue="assistants",state="pending"}`, `kisa_queue_up{queue="monitors"} 1`, `kisa_queue_up{queue="webhooks"} 1`,
			"kisa_browser_launches_total 1", "kisa_browser_tabs 3", "kisa_browser_tabs_busy ", // 2 + 1 of the assistants
			"go_goroutines ", "process_resident_memory_bytes ",
		}, not: []string{"kisa_http_requests_total"}},
		{name: "web live", url: s.base + "/livez", want: []string{`{"status":true,"data":{"process":"ok"}}`}},
		{name: "web ready", url: s.base + "/readyz", want: []string{`{"status":true,"data":{"minio":"ok","postgres":"ok","redis":"ok"}}`}},
		{name: "worker live", url: s.worker + "/livez", want: []string{`{"status":true,"data":{"process":"ok"}}`}},
		{name: "worker ready", url: s.worker + "/readyz", want: []string{`{"status":true,"data":{"browser":"ok","minio":"ok","postgres":"ok","redis":"ok"}}`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := scrape(t, tt.url, true)
			if status != http.StatusOK {
				t.Fatalf("GET %s: %d %s", tt.url, status, body)
			}
			for _, w := range tt.want {
				if !strings.Contains(body, w) {
					t.Errorf("%s lacks %q", tt.url, w)
				}
			}
			for _, n := range tt.not {
				if strings.Contains(body, n) {
					t.Errorf("%s has %q", tt.url, n)
				}
			}
		})
	}
	s.checkHealthcheck(t)
	req, _ := http.NewRequest(http.MethodGet, s.base+"/v1/knowledgebase", nil)
	req.Header.Set("Authorization", "Bearer "+s.key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.Header.Get("RateLimit-Limit") != "450" || res.Header.Get("RateLimit-Remaining") == "" || res.Header.Get("RateLimit-Reset") == "" {
		t.Errorf("RateLimit headers = %q, %q, %q; want 450 and the rest", res.Header.Get("RateLimit-Limit"),
			res.Header.Get("RateLimit-Remaining"), res.Header.Get("RateLimit-Reset"))
	}
}

// checkHealthcheck runs kisa healthcheck against the stack's web and
// worker, and against a port where nothing listens.
func (s *stack) checkHealthcheck(t *testing.T) {
	u, err := url.Parse(s.base)
	if err != nil {
		t.Fatal(err)
	}
	live := testenv.Environ(append(s.environ, "PORT="+u.Port(), "KISA_WORKER_ADDR="+strings.TrimPrefix(s.worker, "http://"))...)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := fmt.Sprint(ln.Addr().(*net.TCPAddr).Port)
	ln.Close()
	tests := []struct {
		name    string
		args    []string
		env     func(string) string
		wantOut string
		wantErr string
	}{
		{name: "web", args: []string{"healthcheck"}, env: live, wantOut: `{"status":true,`},
		{name: "worker", args: []string{"healthcheck", "--worker"}, env: live, wantOut: `"browser":"ok"`},
		{name: "nothing listening", args: []string{"healthcheck"},
			env: testenv.Environ(append(s.environ, "PORT="+closed)...), wantErr: "healthcheck: "},
	}
	for _, tt := range tests {
		t.Run("healthcheck "+tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := run(context.Background(), tt.args, tt.env, strings.NewReader(""), &stdout, &stderr)
			switch {
			case tt.wantErr != "" && (err == nil || !strings.HasPrefix(err.Error(), tt.wantErr)):
				t.Errorf("error = %v, want one starting %q", err, tt.wantErr)
			case tt.wantErr == "" && err != nil:
				t.Errorf("error = %v (stderr %s)", err, stderr.String())
			case !strings.Contains(stdout.String(), tt.wantOut):
				t.Errorf("stdout = %q, want it to contain %q", stdout.String(), tt.wantOut)
			}
		})
	}
}
