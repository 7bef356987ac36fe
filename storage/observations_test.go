package storage_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"

	"github.com/kisa-dev/kisa/storage"
	"github.com/kisa-dev/kisa/testenv"
)

// obs makes an observation of account by key at at.
func obs(account, key uuid.UUID, at time.Time, route string, status int) storage.ObservedRequest {
	id, _ := uuid.NewV7()
	return storage.ObservedRequest{ID: id, At: at, AccountID: account, KeyID: key, ClientIP: "192.0.2.1", UserAgent: "test",
		Method: "GET", Route: route, Path: route, Status: status, DurationUS: 1500, RequestID: "r-" + id.String(),
		Surface: "read"}
}

// TestObservationPartitions: a row whose day has no partition makes it;
// retention drops whole days past the cutoff and keeps the rest.
func TestObservationPartitions(t *testing.T) {
	db, _ := testenv.OwnPostgres(t)
	ctx := context.Background()
	acc, key := uuid.New(), uuid.New()
	now := time.Now().UTC().Truncate(time.Microsecond)
	old, future := now.AddDate(0, 0, -40), now.AddDate(0, 0, 10)
	rows := []storage.ObservedRequest{obs(acc, key, old, "/v1/a", 200), obs(acc, key, now, "/v1/b", 200), obs(acc, key, future, "/v1/c", 200)}
	if err := db.InsertObservations(ctx, rows); err != nil {
		t.Fatal(err)
	}
	visits := []storage.ObservedVisit{{Run: "r1", TaskKey: "k", StartedAt: old, Steps: []byte(`{"navigate":1}`)}}
	if err := db.InsertVisits(ctx, visits); err != nil {
		t.Fatal(err)
	}
	dropped, err := db.DropObservationsBefore(ctx, now.AddDate(0, 0, -30))
	if err != nil {
		t.Fatal(err)
	}
	day := old.Format("20060102")
	if diff := cmp.Diff([]string{"observation_visits_" + day, "observations_" + day}, dropped); diff != "" {
		t.Errorf("dropped (-want +got):\n%s", diff)
	}
	got, err := db.ListObservations(ctx, storage.ObservationFilter{Account: acc, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	var routes []string
	for _, o := range got {
		routes = append(routes, o.Route)
	}
	if diff := cmp.Diff([]string{"/v1/c", "/v1/b"}, routes); diff != "" {
		t.Errorf("left after retention (-want +got):\n%s", diff)
	}
	if err := db.CreateObservationPartitions(ctx, now, 3); err != nil {
		t.Errorf("making partitions that exist: %v", err)
	}
}

// TestListObservations: filters, order and the cursor; nothing of
// another account.
func TestListObservations(t *testing.T) {
	db := testenv.Postgres(t)
	ctx := context.Background()
	acc, other := uuid.New(), uuid.New()
	k1, k2 := uuid.New(), uuid.New()
	t0 := time.Now().UTC().Truncate(time.Second)
	rows := []storage.ObservedRequest{
		obs(acc, k1, t0.Add(-3*time.Second), "/v1/knowledgebase", 200),
		obs(acc, k2, t0.Add(-2*time.Second), "/v1/integrations/:id", 404),
		obs(acc, k1, t0.Add(-1*time.Second), "/v1/networks/browser/ai-overview", 503),
		obs(other, k1, t0, "/v1/knowledgebase", 200),
	}
	rows[2].Runs, rows[2].JoinedRuns = storage.StringList{"run-a"}, storage.StringList{"run-b"}
	if err := db.InsertObservations(ctx, rows); err != nil {
		t.Fatal(err)
	}
	list := func(f storage.ObservationFilter) []string {
		t.Helper()
		f.Account = acc
		if f.Limit == 0 {
			f.Limit = 10
		}
		got, err := db.ListObservations(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, o := range got {
			ids = append(ids, o.Route)
		}
		return ids
	}
	after := rows[1].At
	tests := []struct {
		name string
		f    storage.ObservationFilter
		want []string
	}{
		{name: "all, newest first", want: []string{"/v1/networks/browser/ai-overview", "/v1/integrations/:id", "/v1/knowledgebase"}},
		{name: "by key", f: storage.ObservationFilter{Key: &k2}, want: []string{"/v1/integrations/:id"}},
		{name: "5xx", f: storage.ObservationFilter{StatusMin: 500, StatusMax: 599}, want: []string{"/v1/networks/browser/ai-overview"}},
		{name: "200", f: storage.ObservationFilter{StatusMin: 200, StatusMax: 200}, want: []string{"/v1/knowledgebase"}},
		{name: "route", f: storage.ObservationFilter{Route: "/v1/knowledgebase"}, want: []string{"/v1/knowledgebase"}},
		{name: "from", f: storage.ObservationFilter{From: rows[1].At}, want: []string{"/v1/networks/browser/ai-overview", "/v1/integrations/:id"}},
		{name: "to", f: storage.ObservationFilter{To: rows[1].At}, want: []string{"/v1/knowledgebase"}},
		{name: "after a cursor", f: storage.ObservationFilter{AfterAt: &after, AfterID: rows[1].ID}, want: []string{"/v1/knowledgebase"}},
		{name: "limit", f: storage.ObservationFilter{Limit: 1}, want: []string{"/v1/networks/browser/ai-overview"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, list(tt.f)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	got, err := db.ListObservations(ctx, storage.ObservationFilter{Account: acc, Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(rows[2], got[0], cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) })); diff != "" {
		t.Errorf("read back (-want +got):\n%s", diff)
	}
}

// TestUsage: requests by surface and outcome, visits of the runs a key
// started, cache hits, joins, AI spent, and billable results.
func TestUsage(t *testing.T) {
	db := testenv.Postgres(t)
	ctx := context.Background()
	acc, key := uuid.New(), uuid.New()
	day := time.Now().UTC().Truncate(24 * time.Hour)
	at := day.Add(time.Hour)
	runA, runB, runC := uuid.NewString(), uuid.NewString(), uuid.NewString()
	sync := obs(acc, key, at, "/v1/networks/browser/ai-overview", 200)
	sync.Surface, sync.Items, sync.Runs, sync.AISpent = "overview", 1, storage.StringList{runA}, 1
	hit := obs(acc, key, at, "/v1/networks/browser/ai-overview", 200)
	hit.Surface, hit.Items, hit.CacheHits, hit.AISpent = "overview", 1, 1, 1
	failed := obs(acc, key, at, "/v1/networks/browser/ai-overview", 503)
	failed.Surface, failed.Items, failed.Runs, failed.AISpent = "overview", 1, storage.StringList{runC}, 1
	batch := obs(acc, key, at, "/v1/networks/browser/ai-overview/batch", 202)
	batch.Surface, batch.Items, batch.CacheHits, batch.Joins, batch.AISpent = "batch", 3, 1, 1, 3
	batch.Runs, batch.JoinedRuns = storage.StringList{runB}, storage.StringList{runA}
	read := obs(acc, key, at, "/v1/knowledgebase", 404)
	if err := db.InsertObservations(ctx, []storage.ObservedRequest{sync, hit, failed, batch, read}); err != nil {
		t.Fatal(err)
	}
	fail := "unavailable"
	visits := []storage.ObservedVisit{
		{Run: runA, TaskKey: "a", StartedAt: at.Add(time.Second)},
		{Run: runB, TaskKey: "b", StartedAt: at.Add(time.Second), Failure: &fail},
		{Run: runB, TaskKey: "b", Attempt: 1, StartedAt: at.Add(2 * time.Second)},
		{Run: runC, TaskKey: "c", StartedAt: at.Add(time.Second), Failure: &fail},
	}
	if err := db.InsertVisits(ctx, visits); err != nil {
		t.Fatal(err)
	}
	got, err := db.Usage(ctx, acc, nil, day, day.AddDate(0, 0, 1))
	if err != nil {
		t.Fatal(err)
	}
	row := func(surface, outcome string, n, hits, joins, ai, visits, billable int) storage.UsageRow {
		return storage.UsageRow{Day: day, KeyID: key, Surface: surface, Outcome: outcome, Requests: n, CacheHits: hits,
			Joins: joins, AISpent: ai, Visits: visits, Billable: billable}
	}
	want := []storage.UsageRow{
		row("batch", "success", 1, 1, 1, 3, 2, 3),
		row("overview", "server_error", 1, 0, 0, 1, 1, 0),
		row("overview", "success", 2, 1, 0, 2, 1, 2),
		row("read", "client_error", 1, 0, 0, 0, 0, 0),
	}
	if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) })); diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}
}
