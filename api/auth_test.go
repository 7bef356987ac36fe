package api

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/uuid"

	"github.com/kisa-dev/kisa/apikey"
	"github.com/kisa-dev/kisa/storage"
)

const (
	bodyMissing   = `{"status":false,"error":"authorization header is missing"}`
	bodyNotBearer = `{"status":false,"error":"authorization header must be \"Bearer <API key>\""}`
	bodyInvalid   = `{"status":false,"error":"invalid API key"}`
	body2FA       = `{"status":false,"error":"two-factor authentication is required to use the API: enable 2FA in the dashboard","docs":"https://docs.kisa.test/errors#2fa-required"}`
)

func TestAuthentication(t *testing.T) {
	ts := newTestServer(t, 0)
	ctx := context.Background()
	acc, key := newCaller(t, ts.db)
	body := strings.TrimPrefix(key, testPrefix+"_")
	revoked, revokedID := newKey(t, ts.db, acc, apikey.AllScopes()...)
	if err := ts.db.RevokeAPIKey(ctx, revokedID); err != nil {
		t.Fatal(err)
	}
	no2FA, _ := newKey(t, ts.db, newAccount(t, ts.db, false), apikey.AllScopes()...)
	readKB, _ := newKey(t, ts.db, acc, apikey.ScopeKnowledgebaseRead)
	noScopes, _ := newKey(t, ts.db, acc)
	unknown, err := apikey.New(testPrefix)
	if err != nil {
		t.Fatal(err)
	}
	// The right lookup part with another secret part.
	wrongSecret := key[:len(testPrefix)+1+16] + strings.TrimPrefix(unknown.Plain, testPrefix+"_")[16:]

	tests := []struct {
		name     string
		header   string // "" sends no Authorization header
		path     string
		want     int
		wantBody string
	}{
		{name: "no header", want: 401, wantBody: bodyMissing},
		{name: "Basic scheme", header: "Basic " + key, want: 401, wantBody: bodyNotBearer},
		{name: "Token scheme", header: "Token " + key, want: 401, wantBody: bodyNotBearer},
		{name: "key without scheme", header: key, want: 401, wantBody: bodyNotBearer},
		{name: "Bearer without key", header: "Bearer", want: 401, wantBody: bodyNotBearer},
		{name: "Bearer and blanks", header: "Bearer   ", want: 401, wantBody: bodyNotBearer},
		{name: "wrong prefix", header: "Bearer other_" + body, want: 401, wantBody: bodyInvalid},
		{name: "prefix in upper case", header: "Bearer KISA_" + body, want: 401, wantBody: bodyInvalid},
		{name: "no prefix", header: "Bearer " + body, want: 401, wantBody: bodyInvalid},
		{name: "truncated", header: "Bearer " + key[:len(key)-1], want: 401, wantBody: bodyInvalid},
		{name: "one character too many", header: "Bearer " + key + "A", want: 401, wantBody: bodyInvalid},
		{name: "lookup in upper case", header: "Bearer kisa_" + strings.ToUpper(body[:16]) + body[16:], want: 401, wantBody: bodyInvalid},
		{name: "not base64url", header: "Bearer " + key[:len(key)-1] + "+", want: 401, wantBody: bodyInvalid},
		{name: "unknown key", header: "Bearer " + unknown.Plain, want: 401, wantBody: bodyInvalid},
		{name: "known lookup, wrong secret", header: "Bearer " + wrongSecret, want: 401, wantBody: bodyInvalid},
		{name: "revoked key", header: "Bearer " + revoked, want: 401, wantBody: bodyInvalid},
		{name: "account without 2FA", header: "Bearer " + no2FA, want: 403, wantBody: body2FA},
		{name: "account without 2FA, wrong secret", header: "Bearer " + no2FA[:len(no2FA)-2] + "AA", want: 401, wantBody: bodyInvalid},
		{name: "key lacks the scope", header: "Bearer " + readKB, path: "/v1/integrations",
			want: 403, wantBody: `{"status":false,"error":"this API key lacks the scope \"integrations:read\""}`},
		{name: "key lacks the secrets scope", header: "Bearer " + readKB, path: "/v1/secrets/" + acc.String(),
			want: 403, wantBody: `{"status":false,"error":"this API key lacks the scope \"secrets:read\""}`},
		{name: "key without scopes", header: "Bearer " + noScopes,
			want: 403, wantBody: `{"status":false,"error":"this API key lacks the scope \"knowledgebase:read\""}`},
		{name: "scoped key on its scope", header: "Bearer " + readKB, want: 200, wantBody: `{"status":true,"data":[]}`},
		{name: "scheme in lower case", header: "bearer " + key, want: 200, wantBody: `{"status":true,"data":[]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.path == "" {
				tt.path = "/v1/knowledgebase"
			}
			req := request("GET", tt.path, "", "")
			if tt.header != "" {
				req.Header.Set("Authorization", tt.header)
			}
			checkJSON(t, do(t, ts, req), tt.want, tt.wantBody)
		})
	}
}

// TestKeyCacheTTL proves that a change to a key or its account is seen
// within KeyCacheTTL, and not before: the key is served from the cache.
func TestKeyCacheTTL(t *testing.T) {
	const ttl = 30 * time.Second
	ctx := context.Background()
	tests := []struct {
		name     string
		change   func(ts *testServer, acc, keyID uuid.UUID) error
		wantBody string
		want     int
	}{
		{name: "key revoked", want: 401, wantBody: bodyInvalid,
			change: func(ts *testServer, _, keyID uuid.UUID) error { return ts.db.RevokeAPIKey(ctx, keyID) }},
		{name: "2FA turned off", want: 403, wantBody: body2FA,
			change: func(ts *testServer, acc, _ uuid.UUID) error { return ts.db.SetTwoFactor(ctx, acc, false) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := newTestServer(t, ttl)
			acc := newAccount(t, ts.db, true)
			key, keyID := newKey(t, ts.db, acc, apikey.AllScopes()...)
			const ok = `{"status":true,"data":[]}`
			checkJSON(t, get(t, ts, "/v1/knowledgebase", key), 200, ok)
			if err := tt.change(ts, acc, keyID); err != nil {
				t.Fatal(err)
			}
			checkJSON(t, get(t, ts, "/v1/knowledgebase", key), 200, ok)
			ts.clock.Advance(ttl - time.Millisecond)
			checkJSON(t, get(t, ts, "/v1/knowledgebase", key), 200, ok)
			ts.clock.Advance(time.Millisecond)
			checkJSON(t, get(t, ts, "/v1/knowledgebase", key), tt.want, tt.wantBody)
			ts.clock.Advance(time.Hour)
			checkJSON(t, get(t, ts, "/v1/knowledgebase", key), tt.want, tt.wantBody)
		})
		t.Run(tt.name+" without cache", func(t *testing.T) {
			ts := newTestServer(t, 0)
			acc := newAccount(t, ts.db, true)
			key, keyID := newKey(t, ts.db, acc, apikey.AllScopes()...)
			checkJSON(t, get(t, ts, "/v1/knowledgebase", key), 200, `{"status":true,"data":[]}`)
			if err := tt.change(ts, acc, keyID); err != nil {
				t.Fatal(err)
			}
			checkJSON(t, get(t, ts, "/v1/knowledgebase", key), tt.want, tt.wantBody)
		})
	}
}

// TestKeyCacheChecksSecret makes sure a cached key still needs its own
// secret part: knowing the lookup part of a cached key is not enough.
func TestKeyCacheChecksSecret(t *testing.T) {
	ts := newTestServer(t, time.Minute)
	_, key := newCaller(t, ts.db)
	checkJSON(t, get(t, ts, "/v1/knowledgebase", key), 200, `{"status":true,"data":[]}`)
	forged := key[:len(key)-3] + "AAA"
	if forged == key {
		forged = key[:len(key)-3] + "BBB"
	}
	checkJSON(t, get(t, ts, "/v1/knowledgebase", forged), 401, bodyInvalid)
}

// TestKeyCacheLoadsOnce: requests for a key that is not cached share one
// load; one that leaves while it runs stops waiting at once with its
// context's error, without cutting the load short for the others.
func TestKeyCacheLoadsOnce(t *testing.T) {
	synctest.Test(t, testKeyCacheLoadsOnce)
}

func testKeyCacheLoadsOnce(t *testing.T) {
	cache := newKeyCache(time.Minute, time.Now)
	want := storage.APIKey{ID: uuid.New()}
	var loads atomic.Int32
	gate := make(chan struct{})
	release := sync.OnceFunc(func() { close(gate) })
	t.Cleanup(release)
	load := func(ctx context.Context, _ string) (storage.APIKey, error) {
		loads.Add(1)
		<-gate
		return want, ctx.Err()
	}
	gone, leave := context.WithCancel(context.Background())
	left := make(chan error, 1)
	go func() {
		_, err := cache.get(gone, "lookup", load)
		left <- err
	}()
	const waiting = 50
	errs := make(chan error, waiting)
	for range waiting {
		go func() {
			got, err := cache.get(context.Background(), "lookup", load)
			if err == nil && got.key.ID != want.ID {
				err = fmt.Errorf("got key %s, want %s", got.key.ID, want.ID)
			}
			errs <- err
		}()
	}
	synctest.Wait() // every request waits for the one load
	leave()
	select {
	case err := <-left:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("the request that left got %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the request that left still waits for the load")
	}
	release()
	for range waiting {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if n := loads.Load(); n != 1 {
		t.Errorf("%d loads for %d requests at once, want 1", n, waiting+1)
	}
	if _, err := cache.get(context.Background(), "lookup", load); err != nil || loads.Load() != 1 {
		t.Errorf("after the load: err %v, %d loads; want the cached key", err, loads.Load())
	}
}
