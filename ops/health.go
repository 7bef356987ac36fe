package ops

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// CheckTimeout bounds each readiness check.
const CheckTimeout = 2 * time.Second

// Checks name the dependencies a process needs to serve, each with a
// function that returns an error when it does not answer.
type Checks map[string]func(context.Context) error

// Run asks every dependency at once, each within CheckTimeout, and
// returns "ok" or "unavailable" by name, with the names that failed,
// sorted. Failures are logged with their cause.
func (c Checks) Run(ctx context.Context, log *slog.Logger) (map[string]string, []string) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	states := map[string]string{}
	var failed []string
	for name, check := range c {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cctx, cancel := context.WithTimeout(ctx, CheckTimeout)
			defer cancel()
			err := check(cctx)
			mu.Lock()
			defer mu.Unlock()
			states[name] = "ok"
			if err != nil {
				log.WarnContext(ctx, "readiness check failed", "check", name, "error", err)
				states[name] = "unavailable"
				failed = append(failed, name)
			}
		}()
	}
	wg.Wait()
	slices.Sort(failed)
	return states, failed
}

// Live answers /livez: 200 as long as the process serves HTTP. It asks no
// dependency, so a Redis blip does not get the process restarted.
func Live() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, dataBody{Status: true, Data: map[string]string{"process": "ok"}})
	})
}

// Ready answers /readyz: 200 with every check "ok", or 503 whose error
// names the dependencies that did not answer.
func Ready(checks Checks, log *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		states, failed := checks.Run(r.Context(), log)
		if len(failed) > 0 {
			writeJSON(w, http.StatusServiceUnavailable, errorBody{
				Error: "not ready: " + strings.Join(failed, ", ") + " unavailable", Errors: states})
			return
		}
		writeJSON(w, http.StatusOK, dataBody{Status: true, Data: states})
	})
}

// dataBody and errorBody are the API's envelopes (spec section 1).
type dataBody struct {
	Status bool `json:"status"`
	Data   any  `json:"data"`
}

type errorBody struct {
	Status bool              `json:"status"`
	Error  string            `json:"error"`
	Errors map[string]string `json:"errors,omitempty"`
}

// writeJSON answers status with v in the API's JSON style: no HTML
// escapes, no trailing newline.
func writeJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
}

// Mux is the listener of a process without an API (the worker): /livez,
// /readyz with /healthz as its alias, and /metrics behind token (absent,
// 404, when token is empty).
func Mux(checks Checks, reg *prometheus.Registry, token string, log *slog.Logger) *http.ServeMux {
	mux := http.NewServeMux()
	mux.Handle("GET /livez", Live())
	mux.Handle("GET /readyz", Ready(checks, log))
	mux.Handle("GET /healthz", Ready(checks, log))
	if token != "" {
		mux.Handle("GET /metrics", AdminOnly(token, MetricsHandler(reg, log)))
	}
	return mux
}
