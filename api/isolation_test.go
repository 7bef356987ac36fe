package api

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/kisa-dev/kisa/overview"
)

// scoped is one account-scoped endpoint. A list (path without %s) must
// show B none of A's objects; an item (path with %s for an id, of which
// own picks one of an account's objects) must answer B's request for A's
// object exactly as it answers a missing id and a malformed one.
type scoped struct {
	name   string
	method string
	path   string
	own    func(s seeded) string // nil for a list
}

// scopedEndpoints are every account-scoped endpoint; a new one is a row.
var scopedEndpoints = []scoped{
	{name: "knowledgebase list", method: http.MethodGet, path: "/v1/knowledgebase"},
	{name: "integrations list", method: http.MethodGet, path: "/v1/integrations"},
	{name: "integration get", method: http.MethodGet, path: "/v1/integrations/%s", own: func(s seeded) string { return s.integrations[0].ID.String() }},
	{name: "secret get", method: http.MethodGet, path: "/v1/secrets/%s", own: func(s seeded) string { return s.secret.ID.String() }},
	{name: "overview jobs list", method: http.MethodGet, path: "/v1/networks/browser/ai-overview/jobs"},
	{name: "overview job get", method: http.MethodGet, path: "/v1/networks/browser/ai-overview/jobs/%s", own: func(s seeded) string { return s.job.ID.String() }},
	{name: "overview batch get", method: http.MethodGet, path: "/v1/networks/browser/ai-overview/batches/%s", own: func(s seeded) string { return s.batch.String() }},
	{name: "observations list", method: http.MethodGet, path: "/v1/observations"},
	{name: "usage", method: http.MethodGet, path: "/v1/usage"},
}

// objectIDs are the ids of everything seed stored for an account.
func objectIDs(s seeded) []string {
	ids := []string{s.account.String(), s.secret.ID.String(), s.job.ID.String(), s.batch.String(),
		s.observation.ID.String(), s.observation.KeyID.String(), s.observation.RequestID}
	for _, c := range s.clusters {
		ids = append(ids, c.ID.String())
	}
	for _, in := range s.integrations {
		ids = append(ids, in.ID.String())
	}
	return ids
}

// objectNames are the names seed gave an account's objects.
func objectNames(s seeded) []string {
	var job overview.RequestView
	json.Unmarshal(s.job.Request, &job)
	names := []string{s.secret.Name, job.Query}
	for _, c := range s.clusters {
		names = append(names, c.Name)
	}
	return names
}

// TestTenantIsolation: with accounts A and B, B never sees A's objects
// and cannot tell A's id from one that does not exist.
func TestTenantIsolation(t *testing.T) {
	ts := newTestServer(t, 0, func(o *Options) {
		// Queued jobs need neither Redis nor the bucket to be read.
		o.Jobs = overview.NewJobs(overview.JobsOptions{DB: o.DB})
	})
	a, b := seed(t, ts, "A"), seed(t, ts, "B")
	call := func(t *testing.T, e scoped, key, id string) response {
		t.Helper()
		return do(t, ts, request(e.method, strings.Replace(e.path, "%s", id, 1), key, ""))
	}
	for _, e := range scopedEndpoints {
		t.Run(e.name, func(t *testing.T) {
			if e.own == nil {
				checkList(t, call(t, e, b.key, ""), objectIDs(b), append(objectIDs(a), objectNames(a)...))
				return
			}
			if res := call(t, e, a.key, e.own(a)); res.Status != http.StatusOK {
				t.Fatalf("A's own object: %d %s, want 200", res.Status, res.Body)
			}
			want := call(t, e, b.key, uuid.NewString())
			if want.Status != http.StatusNotFound {
				t.Fatalf("a missing id: %d %s, want 404", want.Status, want.Body)
			}
			checkJSONHeaders(t, want)
			ids := append([]string{"not-a-uuid", "42", strings.ToUpper(e.own(a))}, objectIDs(a)...)
			for _, id := range ids {
				res := call(t, e, b.key, id)
				if res.Status != want.Status || res.Body != want.Body {
					t.Errorf("B asking for %s: %d %s; a missing id: %d %s", id, res.Status, res.Body, want.Status, want.Body)
				}
			}
		})
	}
}

// checkList fails unless res is a 200 that shows every id of mine and
// none of theirs.
func checkList(tb testing.TB, res response, mine, theirs []string) {
	tb.Helper()
	if res.Status != http.StatusOK {
		tb.Fatalf("list: %d %s, want 200", res.Status, res.Body)
	}
	for _, id := range theirs {
		if strings.Contains(res.Body, id) {
			tb.Errorf("B's list shows A's %s: %s", id, res.Body)
		}
	}
	var shown int
	for _, id := range mine {
		if strings.Contains(res.Body, id) {
			shown++
		}
	}
	if shown == 0 {
		tb.Errorf("B's list shows none of B's own objects: %s", res.Body)
	}
}
