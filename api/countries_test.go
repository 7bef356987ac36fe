package api

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"github.com/kisa-dev/kisa/apikey"
	"github.com/kisa-dev/kisa/jobs"
	"github.com/kisa-dev/kisa/overview"
	"github.com/kisa-dev/kisa/proxies"
	"github.com/kisa-dev/kisa/storage"
	"github.com/kisa-dev/kisa/testenv"
)

// TestCountries checks the countries a deployment with proxies serves: a
// request for another country is a 422 on countryCode before anything is
// queued, and GET /v1/networks/browser/countries lists them for any key.
func TestCountries(t *testing.T) {
	set, err := proxies.Parse("de=http://h:1,at=http://user:pw-secret@h:2")
	if err != nil {
		t.Fatal(err)
	}
	rdb := testenv.Redis(t)
	shots, err := storage.NewArtifacts(testenv.S3(t))
	if err != nil {
		t.Fatal(err)
	}
	inspector := asynq.NewInspectorFromRedisClient(rdb)
	srv := newTestServer(t, 0, func(o *Options) {
		o.Countries = set
		o.Overviews = overview.New(overview.Options{
			Results: testenv.Results(t, rdb, testResultsPrefix), Client: asynq.NewClientFromRedisClient(rdb),
			Inspector: inspector, Artifacts: shots,
			Timing: overview.Timing{Wait: time.Second, Visit: time.Minute, MaxRetry: 1}, Logger: o.Logger,
		})
	})
	acc := newAccount(t, srv.db, true)
	runKey, _ := newKey(t, srv.db, acc, apikey.ScopeOverviewRun)
	otherKey, _ := newKey(t, srv.db, acc, apikey.ScopeSecretsRead)

	tests := []struct {
		name, body, want string
	}{
		{"country without proxy, upper case", `{"query":"a","countryCode":"FR"}`,
			`{"status":false,"error":"validation failed","errors":{"countryCode":"this deployment does not serve country fr (see GET /v1/networks/browser/countries)"}}`},
		{"another country", `{"query":"a","countryCode":"us","languageCode":"en"}`,
			`{"status":false,"error":"validation failed","errors":{"countryCode":"this deployment does not serve country us (see GET /v1/networks/browser/countries)"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := do(t, srv, request(http.MethodPost, "/v1/networks/browser/ai-overview", runKey, tt.body))
			checkJSON(t, res, 422, tt.want)
		})
	}
	if info, err := inspector.GetQueueInfo(jobs.QueueOverview); err == nil && info.Size > 0 {
		t.Errorf("%d tasks queued, want none", info.Size)
	}
	for _, key := range []string{runKey, otherKey} {
		checkJSON(t, get(t, srv, "/v1/networks/browser/countries", key), 200,
			`{"status":true,"data":{"countries":["at","de"],"all":false}}`)
	}
	if res := get(t, srv, "/v1/networks/browser/countries", ""); res.Status != 401 {
		t.Errorf("without a key: status %d, want 401", res.Status)
	}
	if strings.Contains(srv.logs.String(), "pw-secret") {
		t.Error("a log line shows the proxy password")
	}
}

// TestCountriesWithoutProxies checks that without proxies every country
// is served.
func TestCountriesWithoutProxies(t *testing.T) {
	srv := newTestServer(t, 0)
	_, key := newCaller(t, srv.db)
	checkJSON(t, get(t, srv, "/v1/networks/browser/countries", key), 200,
		`{"status":true,"data":{"countries":[],"all":true}}`)
}
