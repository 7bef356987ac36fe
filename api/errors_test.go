package api

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

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
			`{"status":false,"error":"the job queue is unavailable; try again shortly"}`},
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
		{"API error as it is", Errorf(CodeNotFound, "no such thing"), 404, "",
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
