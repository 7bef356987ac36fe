package api

import (
	"net/http"
	"testing"
	"time"

	"github.com/kisa-dev/kisa/apikey"
)

// TestRateLimit checks that each key gets its burst, then 429 with
// Retry-After until its bucket refills, and that keys do not share one.
func TestRateLimit(t *testing.T) {
	srv := newTestServer(t, time.Minute, func(o *Options) { o.RateLimit, o.RateBurst = 1, 2 })
	account := newAccount(t, srv.db, true)
	first, _ := newKey(t, srv.db, account, apikey.ScopeKnowledgebaseRead)
	second, _ := newKey(t, srv.db, account, apikey.ScopeKnowledgebaseRead)
	for i := range 2 {
		if res := get(t, srv, "/v1/knowledgebase", first); res.Status != http.StatusOK {
			t.Fatalf("request %d within the burst: status %d", i+1, res.Status)
		}
	}
	res := get(t, srv, "/v1/knowledgebase", first)
	checkJSON(t, res, http.StatusTooManyRequests, `{"status":false,"error":"rate limit exceeded; slow down and retry"}`)
	if got := res.Header.Get("Retry-After"); got != "1" {
		t.Errorf("Retry-After = %q, want 1", got)
	}
	if res := get(t, srv, "/v1/knowledgebase", second); res.Status != http.StatusOK {
		t.Errorf("another key: status %d, want 200", res.Status)
	}
	srv.clock.Advance(time.Second)
	if res := get(t, srv, "/v1/knowledgebase", first); res.Status != http.StatusOK {
		t.Errorf("after a second: status %d, want 200", res.Status)
	}
}
