// Package testenv finds the real backing services for integration tests:
// PostgreSQL, Redis, MinIO and Chromium, through environment variables with
// local defaults. A missing service fails the test with a message saying
// how to start it; nothing is skipped.
package testenv

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
	"github.com/redis/go-redis/v9"

	"github.com/kisa-dev/kisa/migrations"
	"github.com/kisa-dev/kisa/storage"
	"github.com/kisa-dev/kisa/testenv/redisdb"
)

const startHint = `start the backing services with "make services" (or run "make test")`

// Get returns the environment variable name, or def when it is unset.
func Get(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// DatabaseURL is the test database (TEST_DATABASE_URL).
func DatabaseURL() string {
	return Get("TEST_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/kisa_test?sslmode=disable")
}

// RedisURL is the test Redis server (TEST_REDIS_URL); tests choose their
// own database number on it.
func RedisURL() string { return Get("TEST_REDIS_URL", "redis://127.0.0.1:6379/15") }

var migrateOnce sync.Once
var migrateErr error

// Postgres connects to the test database, migrated, and closes it when
// the test ends. Tests isolate their rows by creating accounts of their own.
func Postgres(tb testing.TB) *storage.DB {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	db, err := storage.Open(ctx, DatabaseURL())
	if err != nil {
		tb.Fatalf("PostgreSQL at TEST_DATABASE_URL=%s: %v; %s", DatabaseURL(), err, startHint)
	}
	tb.Cleanup(func() { db.Close() })
	migrateOnce.Do(func() { _, migrateErr = migrations.Up(ctx, db.SQL()) })
	if migrateErr != nil {
		tb.Fatalf("migrate test database: %v", migrateErr)
	}
	return db
}

// Redis hands the test a database of the test Redis server of its own,
// emptied, and gives it back when the test ends. Databases 1 to 15 are
// handed out by redisdb (claims kept in database 0, which no test uses),
// so tests of every package, run at once in several processes, and
// `make bench` never share one; a claim expires by itself if its process
// dies.
func Redis(tb testing.TB) *redis.Client {
	tb.Helper()
	opt, err := redis.ParseURL(RedisURL())
	if err != nil {
		tb.Fatalf("TEST_REDIS_URL: %v", err)
	}
	opt.DB = claimRedisDB(tb, *opt)
	rdb := redis.NewClient(opt)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := rdb.FlushDB(ctx).Err(); err != nil {
		tb.Fatalf("Redis at %s: %v; %s", opt.Addr, err, startHint)
	}
	tb.Cleanup(func() { rdb.Close() })
	return rdb
}

// RedisURLOf is the URL of rdb's server and database, for processes that
// a test starts.
func RedisURLOf(tb testing.TB, rdb *redis.Client) string {
	tb.Helper()
	u, err := url.Parse(RedisURL())
	if err != nil {
		tb.Fatalf("TEST_REDIS_URL: %v", err)
	}
	u.Path = fmt.Sprintf("/%d", rdb.Options().DB)
	return u.String()
}

// claimRedisDB takes a free database number from 1 to 15, waiting up to
// two minutes for one, and releases it when the test ends.
func claimRedisDB(tb testing.TB, opt redis.Options) int {
	tb.Helper()
	lease, err := redisdb.Claim(context.Background(), opt, 2*time.Minute)
	if err != nil {
		tb.Fatalf("%v; %s", err, startHint)
	}
	tb.Cleanup(lease.Release)
	return lease.DB
}

// S3 returns the MinIO settings (KISA_S3_*) with a bucket name of the
// test's own, so that tests do not see each other's objects. Whatever
// creates the bucket, it is removed with its objects when the test ends.
func S3(tb testing.TB) storage.S3Config {
	tb.Helper()
	access, secret := os.Getenv("KISA_S3_ACCESS_KEY"), os.Getenv("KISA_S3_SECRET_KEY")
	if access == "" || secret == "" {
		tb.Fatalf("KISA_S3_ACCESS_KEY and KISA_S3_SECRET_KEY are not set: MinIO's credentials come from the env file; %s", startHint)
	}
	cfg := storage.S3Config{
		Endpoint:  Get("KISA_S3_ENDPOINT", "127.0.0.1:9000"),
		AccessKey: access, SecretKey: secret,
		Bucket:    "kisa-test-" + RandomHex(4),
		Region:    Get("KISA_S3_REGION", "us-east-1"),
		PublicURL: Get("KISA_CDN_URL", "http://127.0.0.1:9000"),
	}
	tb.Cleanup(func() { removeBucket(tb, cfg) })
	return cfg
}

// removeBucket deletes cfg's bucket and every object in it, if it exists.
func removeBucket(tb testing.TB, cfg storage.S3Config) {
	tb.Helper()
	mc, err := minio.New(cfg.Endpoint, &minio.Options{
		Creds: credentials.NewStaticV4(cfg.AccessKey, cfg.SecretKey, ""), Region: cfg.Region})
	if err != nil {
		tb.Errorf("remove test bucket %s: %v", cfg.Bucket, err)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if ok, err := mc.BucketExists(ctx, cfg.Bucket); err != nil || !ok {
		return // never created, or MinIO is gone (the test has said so)
	}
	objects := mc.ListObjects(ctx, cfg.Bucket, minio.ListObjectsOptions{Recursive: true})
	for res := range mc.RemoveObjects(ctx, cfg.Bucket, objects, minio.RemoveObjectsOptions{}) {
		tb.Errorf("remove test object %s/%s: %v", cfg.Bucket, res.ObjectName, res.Err)
	}
	if err := mc.RemoveBucket(ctx, cfg.Bucket); err != nil {
		tb.Errorf("remove test bucket %s: %v", cfg.Bucket, err)
	}
}

// Chromium returns the browser binary (KISA_CHROME_PATH or chromium on
// PATH), failing the test when there is none.
func Chromium(tb testing.TB) string {
	tb.Helper()
	if p := os.Getenv("KISA_CHROME_PATH"); p != "" {
		return p
	}
	p, err := exec.LookPath("chromium")
	if err != nil {
		tb.Fatalf("Chromium not found: apt-get install chromium (or set KISA_CHROME_PATH); %s", startHint)
	}
	return p
}

// RandomHex returns n random bytes in hex, for names of a test's own.
func RandomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// SecretsKey returns a fresh random 32-byte key in base64.
func SecretsKey() string {
	b := make([]byte, 32)
	rand.Read(b)
	return base64.StdEncoding.EncodeToString(b)
}

// Environ builds a getenv func from "NAME=value" pairs, for run(...).
func Environ(pairs ...string) func(string) string {
	m := map[string]string{}
	for _, p := range pairs {
		k, v, _ := strings.Cut(p, "=")
		m[k] = v
	}
	return func(k string) string { return m[k] }
}

// Buffer is a bytes.Buffer safe for concurrent writes, to capture the
// logs of a server under test.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p.
func (l *Buffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// String returns what was written so far.
func (l *Buffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// ValidForADay reports whether a presigned URL is valid for 24 hours, as
// every screenshot URL must be when handed out (spec 4.5 rule 2): signed
// for at least 24 h and at most a few minutes more (URLs signed a little
// longer are reused for a minute).
func ValidForADay(rawURL string) bool {
	u, err := url.Parse(rawURL)
	if err != nil {
		return false
	}
	secs, err := strconv.Atoi(u.Query().Get("X-Amz-Expires"))
	return err == nil && secs >= 86400 && secs <= 86400+300
}

// Results is storage.NewResults for a test: a failure fails tb.
func Results(tb testing.TB, rdb *redis.Client, prefix string) *storage.Results {
	tb.Helper()
	r, err := storage.NewResults(rdb, prefix)
	if err != nil {
		tb.Fatal(err)
	}
	return r
}
