package api

import (
	"context"
	"encoding/json"
	"regexp"
	"testing"

	"github.com/google/uuid"

	"github.com/kisa-dev/kisa/apikey"
	"github.com/kisa-dev/kisa/overview"
	"github.com/kisa-dev/kisa/storage"
	"github.com/kisa-dev/kisa/testenv"
)

const (
	websiteMeta = `{"url":"https://www.example.com","title":"Example Inc.","pullType":"entire-website","excludeFooter":true,"excludeHeader":false}`
	lookerMeta  = `{"id":"108234567890123456789","email":"reports@example.com","name":"Example Reports","picture":"https://www.example.com/avatar.png"}`
)

// seeded is what seed stores for one account.
type seeded struct {
	account      uuid.UUID
	key          string
	clusters     []storage.Cluster
	integrations []storage.Integration
	secret       storage.Secret
	job          storage.Job // queued, in batch
	batch        uuid.UUID
	observation  storage.ObservedRequest // of an overview request, with its visits
}

// seed creates an account with a key, two clusters, two integrations and
// a secret, and reads them back as stored.
func seed(tb testing.TB, ts *testServer, tag string) seeded {
	tb.Helper()
	ctx := context.Background()
	acc := newAccount(tb, ts.db, true)
	key, keyID := newKey(tb, ts.db, acc, apikey.AllScopes()...)
	must := func(_ uuid.UUID, err error) {
		tb.Helper()
		if err != nil {
			tb.Fatal(err)
		}
	}
	must(ts.db.CreateCluster(ctx, acc, tag+" website", "website", json.RawMessage(websiteMeta)))
	must(ts.db.CreateCluster(ctx, acc, tag+" sitemap", "sitemap", json.RawMessage(`{}`)))
	must(ts.db.CreateIntegration(ctx, acc, "google-looker-studio", json.RawMessage(lookerMeta)))
	must(ts.db.CreateIntegration(ctx, acc, "slack", json.RawMessage(`{}`)))
	secretID, err := ts.secrets.Create(ctx, acc, tag+"_API_KEY", "value-of-"+tag)
	if err != nil {
		tb.Fatal(err)
	}
	s := seeded{account: acc, key: key}
	if s.clusters, err = ts.db.ListClusters(ctx, acc); err != nil {
		tb.Fatal(err)
	}
	if s.integrations, err = ts.db.ListIntegrations(ctx, acc); err != nil {
		tb.Fatal(err)
	}
	if s.secret, err = ts.secrets.Get(ctx, acc, secretID); err != nil {
		tb.Fatal(err)
	}
	s.batch = uuid.New()
	req, _ := json.Marshal(overview.Request{Query: tag + " job query", Country: "at", Language: "de"}.View())
	jobs, err := ts.db.CreateJobs(ctx, acc, s.batch, nil, []storage.NewJob{{ID: uuid.New(), Key: "seed-" + tag,
		Request: req, Status: storage.JobQueued}})
	if err != nil {
		tb.Fatal(err)
	}
	s.job = jobs[0]
	s.observation = seedObservation(tb, ts.db, acc, keyID, ts.clock.Now())
	if len(s.clusters) != 2 || len(s.integrations) != 2 {
		tb.Fatalf("seeded %d clusters and %d integrations, want 2 and 2", len(s.clusters), len(s.integrations))
	}
	return s
}

// Expected JSON of each resource, built from what was stored.
func wantCluster(c storage.Cluster, meta string) map[string]any {
	return map[string]any{"id": c.ID.String(), "name": c.Name, "type": c.Type, "metadata": json.RawMessage(meta),
		"created_at": wantStamp(c.CreatedAt), "updated_at": wantStamp(c.UpdatedAt)}
}

func wantIntegration(in storage.Integration, meta string) map[string]any {
	return map[string]any{"id": in.ID.String(), "provider": in.Provider, "metadata": json.RawMessage(meta),
		"created_at": wantStamp(in.CreatedAt)}
}

func wantData(tb testing.TB, data any) string {
	tb.Helper()
	return testenv.MustJSON(tb, map[string]any{"status": true, "data": data})
}

var stampField = regexp.MustCompile(`"(created_at|updated_at)":"([^"]*)"`)
var stampFormat = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$`)

// checkStamps fails unless every timestamp in body is YYYY-MM-DDTHH:MM:SS.mmmZ.
func checkStamps(tb testing.TB, body string, want int) {
	tb.Helper()
	found := stampField.FindAllStringSubmatch(body, -1)
	if len(found) != want {
		tb.Errorf("%d timestamps in %s, want %d", len(found), body, want)
	}
	for _, m := range found {
		if !stampFormat.MatchString(m[2]) {
			tb.Errorf("%s = %q, want YYYY-MM-DDTHH:MM:SS.mmmZ", m[1], m[2])
		}
	}
}

func TestReadResources(t *testing.T) {
	ts := newTestServer(t, 0)
	a := seed(t, ts, "A")
	b := seed(t, ts, "B") // another tenant: none of its rows may show
	_, empty := newCaller(t, ts.db)
	tests := []struct {
		name   string
		key    string
		path   string
		want   string
		stamps int
	}{
		{name: "clusters, oldest first", key: a.key, path: "/v1/knowledgebase", stamps: 4,
			want: wantData(t, []any{wantCluster(a.clusters[0], websiteMeta), wantCluster(a.clusters[1], `{}`)})},
		{name: "the other tenant's clusters", key: b.key, path: "/v1/knowledgebase", stamps: 4,
			want: wantData(t, []any{wantCluster(b.clusters[0], websiteMeta), wantCluster(b.clusters[1], `{}`)})},
		{name: "no clusters", key: empty, path: "/v1/knowledgebase", want: `{"status":true,"data":[]}`},
		{name: "integrations, no updated_at", key: a.key, path: "/v1/integrations", stamps: 2,
			want: wantData(t, []any{wantIntegration(a.integrations[0], lookerMeta), wantIntegration(a.integrations[1], `{}`)})},
		{name: "no integrations", key: empty, path: "/v1/integrations", want: `{"status":true,"data":[]}`},
		{name: "one integration", key: a.key, path: "/v1/integrations/" + a.integrations[0].ID.String(), stamps: 1,
			want: wantData(t, wantIntegration(a.integrations[0], lookerMeta))},
		{name: "integration with empty metadata", key: b.key, path: "/v1/integrations/" + b.integrations[1].ID.String(), stamps: 1,
			want: wantData(t, wantIntegration(b.integrations[1], `{}`))},
		{name: "secret, value masked", key: a.key, path: "/v1/secrets/" + a.secret.ID.String(), stamps: 2,
			want: wantData(t, map[string]any{"id": a.secret.ID.String(), "name": "A_API_KEY", "value": "********",
				"created_at": wantStamp(a.secret.CreatedAt), "updated_at": wantStamp(a.secret.UpdatedAt)})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := get(t, ts, tt.path, tt.key)
			checkJSON(t, res, 200, tt.want)
			checkStamps(t, res.Body, tt.stamps)
		})
	}
}
