package migrations_test

import (
	"context"
	"database/sql"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/kisa-dev/kisa/migrations"
	"github.com/kisa-dev/kisa/testenv"
)

// versions lists the versions of the migration files, in order.
func versions(t *testing.T) []int64 {
	t.Helper()
	names, err := filepath.Glob("*.sql")
	if err != nil {
		t.Fatal(err)
	}
	var out []int64
	for _, n := range names {
		v, err := strconv.ParseInt(strings.SplitN(n, "_", 2)[0], 10, 64)
		if err != nil {
			t.Fatalf("migration %s: %v", n, err)
		}
		out = append(out, v)
	}
	slices.Sort(out)
	return out
}

// freshDatabase creates an empty database of the test's own and returns
// its URL; it is dropped when the test ends.
func freshDatabase(t *testing.T) string {
	t.Helper()
	admin, err := sql.Open("pgx", testenv.DatabaseURL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close() })
	name := "kisa_migrate_" + testenv.RandomHex(4)
	if _, err := admin.Exec("CREATE DATABASE " + name); err != nil {
		t.Fatalf("create database (PostgreSQL at TEST_DATABASE_URL; run make services): %v", err)
	}
	t.Cleanup(func() { admin.Exec("DROP DATABASE " + name + " WITH (FORCE)") })
	u, err := url.Parse(testenv.DatabaseURL())
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}

// TestUpConcurrently runs four migrators at once on an empty database:
// the advisory lock lets one apply the schema, the others find it done.
func TestUpConcurrently(t *testing.T) {
	dsn := freshDatabase(t)
	const n = 4
	applied := make([][]int64, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			db, err := sql.Open("pgx", dsn)
			if err != nil {
				errs[i] = err
				return
			}
			defer db.Close()
			applied[i], errs[i] = migrations.Up(context.Background(), db)
		}()
	}
	wg.Wait()
	var all []int64
	for i, err := range errs {
		if err != nil {
			t.Errorf("migrator %d: %v", i, err)
		}
		all = append(all, applied[i]...)
	}
	slices.Sort(all)
	if diff := cmp.Diff(versions(t), all); diff != "" {
		t.Errorf("migrations applied in all, each once (-want +got):\n%s (by migrator: %v)", diff, applied)
	}
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var tables int
	err = db.QueryRow(`SELECT count(*) FROM information_schema.tables
		WHERE table_schema = 'public' AND table_name IN ('accounts','api_keys','clusters','integrations','secrets')`).Scan(&tables)
	if err != nil || tables != 5 {
		t.Errorf("tables = %d (%v), want 5", tables, err)
	}
}
