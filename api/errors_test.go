package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/kisa-dev/kisa"
)

// TestFailureTable checks every row of the table from a failure of the
// overview path to what the client sees: status, Retry-After and body.
func TestFailureTable(t *testing.T) {
	cause := errors.New("dial tcp 127.0.0.1:6379: connection refused")
	tests := []struct {
		name           string
		err            error
		wantStatus     int
		wantRetryAfter string
		wantBody       string
	}{
		{"CAPTCHA", kisa.Fail(kisa.Blocked, kisa.PartBrowser, cause), 503, "300",
			`{"status":false,"error":"the search engine refused the request (CAPTCHA); try again later"}`},
		{"cache down", kisa.Fail(kisa.Unavailable, kisa.PartCache, cause), 503, "15",
			`{"status":false,"error":"the result cache is unavailable; try again shortly"}`},
		{"queue down", kisa.Fail(kisa.Unavailable, kisa.PartQueue, cause), 503, "15",
			`{"status":false,"error":"the task queue is unavailable; try again shortly"}`},
		{"browser down", kisa.Fail(kisa.Unavailable, kisa.PartBrowser, cause), 503, "15",
			`{"status":false,"error":"the browser is unavailable; try again shortly"}`},
		{"storage down", kisa.Fail(kisa.Unavailable, kisa.PartStorage, cause), 503, "15",
			`{"status":false,"error":"screenshot storage is unavailable; try again shortly"}`},
		{"unavailable, part unknown", fmt.Errorf("%w: x", kisa.Unavailable), 503, "15",
			`{"status":false,"error":"a backing service is unavailable; try again shortly"}`},
		{"queue full", kisa.Fail(kisa.Overloaded, kisa.PartQueue, cause), 503, "30",
			`{"status":false,"error":"too many requests are waiting for a browser; try again in a minute"}`},
		{"timed out", kisa.Fail(kisa.TimedOut, kisa.PartBrowser, cause), 503, "10",
			`{"status":false,"error":"the browser did not finish in time; try again shortly"}`},
		{"internal", kisa.Fail(kisa.Internal, "", cause), 500, "", ""},
		{"plain error", cause, 500, "", ""},
		{"API error as it is", kisa.Failf(kisa.NotFound, "no such thing"), 404, "",
			`{"status":false,"error":"no such thing"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newTestServer(t, 0)
			srv.router.GET("/fail", func(c *gin.Context) { srv.writeError(c, tt.err) })
			res := do(t, srv, request(http.MethodGet, "/fail", "", ""))
			if res.Status != tt.wantStatus || res.Header.Get("Retry-After") != tt.wantRetryAfter {
				t.Fatalf("status %d, Retry-After %q; want %d, %q", res.Status, res.Header.Get("Retry-After"), tt.wantStatus, tt.wantRetryAfter)
			}
			if tt.wantStatus == 500 {
				checkIncident(t, srv, res, cause.Error())
				return
			}
			checkJSON(t, res, tt.wantStatus, tt.wantBody)
		})
	}
}

// checkIncident fails unless res is a 500 telling only an incident phrase,
// and the phrase is logged with the cause.
func checkIncident(tb testing.TB, srv *testServer, res response, cause string) {
	tb.Helper()
	m := incidentBody.FindStringSubmatch(res.Body)
	if m == nil {
		tb.Fatalf("body = %s, want only an incident phrase", res.Body)
	}
	for _, l := range srv.logs.logLines(tb) {
		if l["msg"] == "internal error" && l["incident"] == m[1] {
			if logged, _ := l["error"].(string); !strings.Contains(logged, cause) {
				tb.Errorf("incident %s logged with %q, want the cause %q", m[1], logged, cause)
			}
			return
		}
	}
	tb.Errorf("incident %s not logged", m[1])
}

// TestUnrecognisedIsIncident checks that a page not recognised is the
// incident 500, logged with where the worker stored the page's evidence
// (as jobs.Outcome.Err names it).
func TestUnrecognisedIsIncident(t *testing.T) {
	const evidence = "page evidence stored at evidence/2026-11-23/ov1-abc/0f/"
	srv := newTestServer(t, 0)
	srv.router.GET("/fail", func(c *gin.Context) {
		srv.writeError(c, kisa.Fail(kisa.Unrecognised, "", errors.New(evidence)))
	})
	res := do(t, srv, request(http.MethodGet, "/fail", "", ""))
	if res.Status != http.StatusInternalServerError {
		t.Fatalf("status %d, want 500", res.Status)
	}
	checkIncident(t, srv, res, evidence)
}

// TestClientGone: a read whose client closed the connection before its
// answer was ready is recorded as 499 in the request log and the metrics,
// not as an incident (its query was cancelled); TestOverviewClientGone
// does the same for an overview's wait. A cancellation the client did not
// cause stays an incident.
func TestClientGone(t *testing.T) {
	srv := newTestServer(t, time.Minute)
	acc, key := newCaller(t, srv.db)
	in, err := srv.db.CreateIntegration(context.Background(), acc, "google-looker-studio", []byte(`{"email":"a@b.c"}`))
	if err != nil {
		t.Fatal(err)
	}
	path := "/v1/integrations/" + in.String()
	if res := get(t, srv, path, key); res.Status != http.StatusOK { // the key is cached from here on
		t.Fatalf("read: status %d, body %s", res.Status, res.Body)
	}
	srv.router.GET("/own-cancel", func(c *gin.Context) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		srv.writeError(c, fmt.Errorf("a call of the server's own: %w", ctx.Err()))
	})
	gone, leave := context.WithCancel(context.Background()) // as net/http does when the connection closes
	leave()
	do(t, srv, request(http.MethodGet, path, key, "").WithContext(gone))
	checkClientGone(t, srv, "/v1/integrations/:id")
	res := do(t, srv, request(http.MethodGet, "/own-cancel", "", ""))
	if res.Status != http.StatusInternalServerError {
		t.Fatalf("own cancellation: status %d, want 500", res.Status)
	}
	checkIncident(t, srv, res, "a call of the server's own")
}

// checkClientGone fails unless the one request to route that did not
// succeed is counted and logged as 499, with its cause at debug level and
// neither an incident nor a warning.
func checkClientGone(tb testing.TB, srv *testServer, route string) {
	tb.Helper()
	labels := map[string]string{"route": route, "status": strconv.Itoa(statusClientClosed)}
	if n := counterValue(tb, srv.opts.Registry, "kisa_http_requests_total", labels); n != 1 {
		tb.Errorf("%v requests to %s counted with status 499, want 1", n, route)
	}
	var logged bool
	for _, l := range srv.logs.logLines(tb) {
		switch {
		case l["msg"] == "internal error" || l["msg"] == "request failed":
			tb.Errorf("a request whose client left is logged as %q: %v", l["msg"], l)
		case l["msg"] == "request" && l["route"] == route && l["status"] != float64(http.StatusOK):
			logged = true
			if l["status"] != float64(statusClientClosed) {
				tb.Errorf("request logged with status %v, want %d: %v", l["status"], statusClientClosed, l)
			}
		}
	}
	if !logged {
		tb.Errorf("no request line logged for %s", route)
	}
	if !hasLog(tb, srv.logs, "client closed the request", "level", "DEBUG") {
		tb.Error("the cause of a request whose client left is not logged at debug level")
	}
}
