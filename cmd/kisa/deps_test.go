package main

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/kisa-dev/kisa/testenv"
)

// viaProxy returns the test database's URL through p.
func viaProxy(tb testing.TB, p *testenv.Proxy) string {
	tb.Helper()
	u, err := url.Parse(testenv.DatabaseURL())
	if err != nil {
		tb.Fatal(err)
	}
	u.Host = p.Addr()
	return u.String()
}

// TestConnectDBWaitsForPostgres: a Postgres that only answers after a
// while (a proxy that starts forwarding late) is waited for; one that
// never answers fails after the bound with a hint.
func TestConnectDBWaitsForPostgres(t *testing.T) {
	testenv.Postgres(t)
	u, err := url.Parse(testenv.DatabaseURL())
	if err != nil {
		t.Fatal(err)
	}
	target := u.Host

	t.Run("late server is waited for", func(t *testing.T) {
		p := testenv.NewProxy(t, target, false)
		time.AfterFunc(1500*time.Millisecond, p.Restore)
		db, err := connectDB(context.Background(), viaProxy(t, p), 20*time.Second)
		if err != nil {
			t.Fatalf("connectDB: %v", err)
		}
		db.Close()
	})
	t.Run("absent server fails after the bound", func(t *testing.T) {
		p := testenv.NewProxy(t, target, false)
		_, err := connectDB(context.Background(), viaProxy(t, p), time.Second)
		if err == nil || !strings.Contains(err.Error(), "make services") {
			t.Fatalf("err = %v, want a failure that says how to start PostgreSQL", err)
		}
	})
}
