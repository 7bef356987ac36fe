package api

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"
)

// TestRequestLogFields: a request's log line names its route template,
// never its path, and a known method or "other"; ids from the path and
// made-up paths or methods stay out of the logs.
func TestRequestLogFields(t *testing.T) {
	ts := newTestServer(t, 0)
	acc, key := newCaller(t, ts.db)
	id := uuid.NewString()
	tests := []struct {
		name   string
		req    *http.Request
		want   map[string]any // of the line's fields
		absent []string       // must not appear in any log line
	}{
		{name: "route template with an account", req: request(http.MethodGet, "/v1/integrations/"+id, key, ""),
			want:   map[string]any{"method": "GET", "route": "/v1/integrations/:id", "status": float64(404), "account": acc.String()},
			absent: []string{id}},
		{name: "unmatched path, made-up method", req: request("PROPFINDX", "/private-path-4711/x", "", ""),
			want:   map[string]any{"method": "other", "route": "unmatched", "status": float64(404)},
			absent: []string{"private-path-4711", "PROPFINDX"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(ts.logs.logLines(t))
			do(t, ts, tt.req)
			lines := ts.logs.logLines(t)[before:]
			var got map[string]any
			for _, l := range lines {
				if l["msg"] == "request" {
					got = map[string]any{}
					for k := range tt.want {
						got[k] = l[k]
					}
					if l["request_id"] == "" || l["duration"] == nil {
						t.Errorf("request line lacks its id or duration: %v", l)
					}
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("request log line (-want +got):\n%s", diff)
			}
			for _, a := range tt.absent {
				if strings.Contains(ts.logs.String(), a) {
					t.Errorf("logs contain %q", a)
				}
			}
		})
	}
}
