package testenv

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/kisa-dev/kisa/migrations"
	"github.com/kisa-dev/kisa/storage"
)

// OwnPostgres creates a database of the test's own next to the test
// database, migrated, and drops it when the test ends: for a test that
// acts on every row of a table, which other tests' rows would disturb.
// It returns the store and the database's URL.
func OwnPostgres(tb testing.TB) (*storage.DB, string) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	main := Postgres(tb)
	u, err := url.Parse(DatabaseURL())
	if err != nil {
		tb.Fatalf("TEST_DATABASE_URL: %v", err)
	}
	name := strings.TrimPrefix(u.Path, "/") + "_own_" + RandomHex(4)
	quoted := `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
	if _, err := main.SQL().ExecContext(ctx, "CREATE DATABASE "+quoted); err != nil {
		tb.Fatalf("create database %s: %v", name, err)
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := main.SQL().ExecContext(ctx, "DROP DATABASE IF EXISTS "+quoted+" WITH (FORCE)"); err != nil {
			tb.Errorf("drop database %s: %v", name, err)
		}
	})
	u.Path = "/" + name
	db, err := storage.Open(ctx, u.String())
	if err != nil {
		tb.Fatalf("open database %s: %v", name, err)
	}
	tb.Cleanup(func() { db.Close() })
	if _, err := migrations.Up(ctx, db.SQL()); err != nil {
		tb.Fatalf("migrate database %s: %v", name, err)
	}
	return db, u.String()
}
