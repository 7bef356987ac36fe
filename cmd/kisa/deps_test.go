package main

import (
	"context"
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/kisa-dev/kisa/config"
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

// TestLoggerWarnsOfOldNames: a renamed variable set under its old name is
// read, and the process's log starts with a warning naming both names.
func TestLoggerWarnsOfOldNames(t *testing.T) {
	cfg, err := config.Load(func(k string) string {
		return map[string]string{"KISA_JOB_TIMEOUT": "20s"}[k]
	})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.VisitTimeout != 20*time.Second {
		t.Errorf("VisitTimeout = %s, want 20s read from KISA_JOB_TIMEOUT", cfg.VisitTimeout)
	}
	var out strings.Builder
	newLogger(&out, cfg)
	var line struct{ Level, Msg, Old, New string }
	if err := json.Unmarshal([]byte(out.String()), &line); err != nil {
		t.Fatalf("log %q: %v", out.String(), err)
	}
	if line.Level != "WARN" || line.Old != "KISA_JOB_TIMEOUT" || line.New != "KISA_VISIT_TIMEOUT" ||
		!strings.HasPrefix(line.Msg, "environment variable renamed") {
		t.Errorf("log line %+v, want a warning naming KISA_JOB_TIMEOUT and KISA_VISIT_TIMEOUT", line)
	}
	out.Reset()
	newLogger(&out, config.Config{LogLevel: "info"})
	if out.Len() != 0 {
		t.Errorf("without old names the logger wrote %q", out.String())
	}
}
