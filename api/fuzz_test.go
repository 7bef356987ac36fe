package api

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/apikey"
	"github.com/kisa-dev/kisa/overview"
	"github.com/kisa-dev/kisa/proxies"
)

// The fuzz targets run their committed seeds (testdata/fuzz) with every
// go test; `make fuzz` runs each for FUZZCOUNT inputs, `make test` for
// FUZZCOUNT_SHORT. Their servers log nowhere: a fuzzer makes millions of requests.

func quiet(o *Options) { o.Logger = slog.New(slog.DiscardHandler) }

// FuzzOverviewRequest: whatever the body, the decoder and validator never
// panic and the router never answers 500; a rejection is a 400, 413 or
// 422 envelope, and a body the parser accepts is a valid request.
func FuzzOverviewRequest(f *testing.F) {
	ts := newTestServer(f, time.Hour, quiet)
	_, key := newCaller(f, ts.db)
	f.Add([]byte(`{"query":"coffee","cache":{"ttl":60},"fields":{"sources":["url"]}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		req, err := parseOverviewRequest(body, proxies.Set{})
		checkParsed(t, req, err)
		res := postOverview(t, ts, key, string(body))
		switch {
		case len(body) > MaxBodyBytes:
			checkEnvelope(t, res, http.StatusRequestEntityTooLarge)
		case err == nil:
			checkEnvelope(t, res, http.StatusServiceUnavailable)
		default:
			checkEnvelope(t, res, kindAnswers[err.(*kisa.Error).Failure].status)
		}
	})
}

// checkParsed fails unless err is a 400 or 422 *kisa.Error, or req keeps
// every rule of the request.
func checkParsed(tb testing.TB, req overview.Request, err error) {
	tb.Helper()
	var e *kisa.Error
	switch {
	case err != nil && (!errors.As(err, &e) || error(e) != err):
		tb.Fatalf("parse error %v (%T) is not a *kisa.Error", err, err)
	case err != nil && e.Failure != kisa.BadRequest && e.Failure != kisa.Invalid:
		tb.Fatalf("parse error failure %q, want bad_request or invalid", e.Failure)
	case err != nil && e.Failure == kisa.Invalid && len(e.Fields) == 0:
		tb.Fatalf("422 without field paths: %v", e)
	case err != nil:
		return
	}
	n := utf8.RuneCountInString(req.Query)
	if n == 0 || n > maxQueryChars || hasControl(req.Query) || strings.Join(strings.Fields(req.Query), " ") != req.Query {
		tb.Fatalf("accepted query %q (%d characters)", req.Query, n)
	}
	if !validCountry(req.Country) || !validLanguage(req.Language) || req.CacheTTL < 1 || req.CacheTTL > maxCacheTTL {
		tb.Fatalf("accepted request %+v", req)
	}
}

// checkEnvelope fails unless res has status and the failure envelope:
// status false, an error message, field paths exactly on a 422.
func checkEnvelope(tb testing.TB, res response, status int) {
	tb.Helper()
	if res.Status != status {
		tb.Fatalf("status = %d, want %d; body %s", res.Status, status, res.Body)
	}
	var env struct {
		Status *bool             `json:"status"`
		Error  string            `json:"error"`
		Errors map[string]string `json:"errors"`
	}
	if err := json.Unmarshal([]byte(res.Body), &env); err != nil || env.Status == nil || *env.Status || env.Error == "" {
		tb.Fatalf("not a failure envelope: %v: %s", err, res.Body)
	}
	if (status == http.StatusUnprocessableEntity) != (len(env.Errors) > 0) {
		tb.Fatalf("status %d with field errors %v", status, env.Errors)
	}
}

// authKeys are the keys FuzzAuthorization substitutes for placeholders in
// its input, so that the fuzzer works near real keys of every kind.
type authKeys struct {
	good, no2FA, noScope, revoked string
}

func newAuthKeys(tb testing.TB, ts *testServer) authKeys {
	tb.Helper()
	acc, good := newCaller(tb, ts.db)
	noScope, _ := newKey(tb, ts.db, acc, apikey.ScopeSecretsRead)
	revoked, revokedID := newKey(tb, ts.db, acc, apikey.AllScopes()...)
	if err := ts.db.RevokeAPIKey(context.Background(), revokedID); err != nil {
		tb.Fatal(err)
	}
	no2FA, _ := newKey(tb, ts.db, newAccount(tb, ts.db, false), apikey.AllScopes()...)
	return authKeys{good: good, no2FA: no2FA, noScope: noScope, revoked: revoked}
}

func (k authKeys) expand(s string) string {
	return strings.NewReplacer("$KEY", k.good, "$NO2FA", k.no2FA, "$NOSCOPE", k.noScope, "$REVOKED", k.revoked).Replace(s)
}

// FuzzAuthorization: whatever the Authorization header, the router on a
// real database never panics nor answers 500; it answers 401, 403 or 200,
// and 200 only to a header holding the valid key.
func FuzzAuthorization(f *testing.F) {
	ts := newTestServer(f, time.Minute, quiet)
	keys := newAuthKeys(f, ts)
	if res := get(f, ts, "/v1/knowledgebase", keys.expand("$KEY")); res.Status != http.StatusOK {
		f.Fatalf("the valid key is refused: %d %s", res.Status, res.Body)
	}
	f.Add("Bearer $KEY")
	f.Fuzz(func(t *testing.T, header string) {
		header = keys.expand(header)
		req := request(http.MethodGet, "/v1/knowledgebase", "", "")
		if header != "" {
			req.Header["Authorization"] = []string{header}
		}
		res := do(t, ts, req)
		switch {
		case res.Status == http.StatusOK && strings.Contains(header, keys.good):
			checkJSON(t, res, http.StatusOK, `{"status":true,"data":[]}`)
		case slices.Contains([]int{http.StatusUnauthorized, http.StatusForbidden}, res.Status):
			checkEnvelope(t, res, res.Status)
		default:
			t.Fatalf("Authorization %q: status %d, body %s", header, res.Status, res.Body)
		}
	})
}
