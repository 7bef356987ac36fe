package storage_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/rand"
	"encoding/hex"
	"image"
	"image/color"
	"image/png"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
	"github.com/minio/minio-go/v7/pkg/lifecycle"

	"github.com/kisa-dev/kisa/storage"
)

// s3TestConfig returns the MinIO settings from the KISA_S3_* variables,
// with local defaults; missing keys are read from the machine-wide
// credentials file that scripts/services.sh writes. Bucket is left empty.
func s3TestConfig(tb testing.TB) storage.S3Config {
	tb.Helper()
	cfg := storage.S3Config{
		Endpoint:  s3Getenv("KISA_S3_ENDPOINT", "127.0.0.1:9000"),
		AccessKey: os.Getenv("KISA_S3_ACCESS_KEY"),
		SecretKey: os.Getenv("KISA_S3_SECRET_KEY"),
		Region:    s3Getenv("KISA_S3_REGION", "us-east-1"),
		UseSSL:    os.Getenv("KISA_S3_USE_SSL") == "true",
	}
	if cfg.AccessKey == "" || cfg.SecretKey == "" {
		creds := minioCredentialsFile()
		user, pass, err := readMinioCredentials(creds)
		if err != nil {
			tb.Fatalf("MinIO credentials: KISA_S3_ACCESS_KEY/KISA_S3_SECRET_KEY unset and %v: run \"make services\"", err)
		}
		cfg.AccessKey, cfg.SecretKey = user, pass
	}
	return cfg
}

func s3Getenv(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// minioCredentialsFile is where scripts/services.sh keeps the local
// MinIO's root credentials.
func minioCredentialsFile() string {
	dir := os.Getenv("KISA_STATE_DIR")
	if dir == "" {
		home, _ := os.UserHomeDir()
		dir = filepath.Join(home, ".local", "share", "kisa")
	}
	return filepath.Join(dir, "minio", "credentials.env")
}

// readMinioCredentials reads MINIO_ROOT_USER and MINIO_ROOT_PASSWORD
// from a KEY=value file.
func readMinioCredentials(path string) (user, pass string, err error) {
	f, err := os.Open(path)
	if err != nil {
		return "", "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, _ := strings.Cut(strings.TrimSpace(sc.Text()), "=")
		switch k {
		case "MINIO_ROOT_USER":
			user = v
		case "MINIO_ROOT_PASSWORD":
			pass = v
		}
	}
	if user == "" || pass == "" {
		return "", "", &os.PathError{Op: "read", Path: path, Err: os.ErrNotExist}
	}
	return user, pass, sc.Err()
}

// newTestArtifacts returns a store on a fresh bucket of its own (not yet
// created) and an admin client for checks; the bucket and its objects are
// removed when the test ends. An unreachable MinIO fails the test.
func newTestArtifacts(tb testing.TB, publicURL string) (*storage.Artifacts, storage.S3Config, *minio.Client) {
	tb.Helper()
	cfg := s3TestConfig(tb)
	cfg.Bucket = "kisa-test-" + s3RandomHex(tb, 6)
	cfg.PublicURL = publicURL
	admin, err := minio.New(cfg.Endpoint, &minio.Options{
		Creds:  credentials.NewStaticV4(cfg.AccessKey, cfg.SecretKey, ""),
		Secure: cfg.UseSSL,
		Region: cfg.Region,
	})
	if err != nil {
		tb.Fatalf("admin client: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := admin.ListBuckets(ctx); err != nil {
		tb.Fatalf("MinIO not reachable at %s: run \"make services\" (%v)", cfg.Endpoint, err)
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		err := admin.RemoveBucketWithOptions(ctx, cfg.Bucket, minio.RemoveBucketOptions{ForceDelete: true})
		if err != nil && minio.ToErrorResponse(err).Code != minio.NoSuchBucket {
			tb.Errorf("remove bucket %s: %v", cfg.Bucket, err)
		}
	})
	s, err := storage.NewArtifacts(cfg)
	if err != nil {
		tb.Fatalf("NewArtifacts: %v", err)
	}
	return s, cfg, admin
}

func s3RandomHex(tb testing.TB, n int) string {
	tb.Helper()
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		tb.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// testPNG encodes a small image with a random pixel, so each call differs.
func testPNG(tb testing.TB) []byte {
	tb.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 4, 3))
	seed := s3RandomHex(tb, 2)
	img.Set(1, 1, color.RGBA{R: seed[0], G: seed[1], B: seed[2], A: 255})
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// putShot creates the bucket, stores a fresh PNG under key and returns
// its bytes.
func putShot(tb testing.TB, s *storage.Artifacts, key string) []byte {
	tb.Helper()
	ctx := context.Background()
	if err := s.EnsureBucket(ctx); err != nil {
		tb.Fatalf("EnsureBucket: %v", err)
	}
	body := testPNG(tb)
	if err := s.Put(ctx, key, body); err != nil {
		tb.Fatalf("Put: %v", err)
	}
	return body
}

type shotResponse struct {
	Status      int
	ContentType string
	Body        []byte
}

func fetchShot(tb testing.TB, rawURL string) shotResponse {
	tb.Helper()
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Get(rawURL)
	if err != nil {
		tb.Fatalf("GET %s: %v", rawURL, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatalf("read %s: %v", rawURL, err)
	}
	return shotResponse{Status: resp.StatusCode, ContentType: resp.Header.Get("Content-Type"), Body: body}
}

func TestArtifactsEnsureBucket(t *testing.T) {
	s, cfg, admin := newTestArtifacts(t, "")
	ctx := context.Background()
	if err := s.Ping(ctx); err == nil {
		t.Fatal("Ping before EnsureBucket: got nil error for a missing bucket")
	}
	want := []lifecycle.Rule{{
		ID:         "kisa-expire-screenshots",
		Status:     "Enabled",
		RuleFilter: lifecycle.Filter{Prefix: storage.ResultPrefix},
		Expiration: lifecycle.Expiration{Days: storage.ScreenshotExpiryDays},
	}, {
		ID:         "kisa-expire-evidence",
		Status:     "Enabled",
		RuleFilter: lifecycle.Filter{Prefix: storage.EvidencePrefix},
		Expiration: lifecycle.Expiration{Days: storage.EvidenceExpiryDays},
	}}
	for i := range 2 { // the second call must be a no-op, not an error
		if err := s.EnsureBucket(ctx); err != nil {
			t.Fatalf("EnsureBucket call %d: %v", i+1, err)
		}
		got, err := admin.GetBucketLifecycle(ctx, cfg.Bucket)
		if err != nil {
			t.Fatalf("GetBucketLifecycle after call %d: %v", i+1, err)
		}
		opts := cmp.Options{cmp.FilterPath(func(p cmp.Path) bool {
			return p.Last().String() == ".XMLName"
		}, cmp.Ignore())}
		if diff := cmp.Diff(want, got.Rules, opts); diff != "" {
			t.Errorf("lifecycle rules after call %d (-want +got):\n%s", i+1, diff)
		}
	}
	if storage.ScreenshotExpiryDays < 2 {
		t.Errorf("ScreenshotExpiryDays = %d; a 24h URL on a 24h-old cached result needs >= 2", storage.ScreenshotExpiryDays)
	}
	if err := s.Ping(ctx); err != nil {
		t.Errorf("Ping after EnsureBucket: %v", err)
	}
}

func TestArtifactsPutAndURL(t *testing.T) {
	s, cfg, _ := newTestArtifacts(t, "")
	body := putShot(t, s, "overviews/2026/abc def.png")
	raw, err := s.URL(context.Background(), "overviews/2026/abc def.png", time.Minute)
	if err != nil {
		t.Fatalf("URL: %v", err)
	}
	if u, _ := url.Parse(raw); u == nil || u.Host != cfg.Endpoint {
		t.Errorf("URL host = %v, want the endpoint %s (no PublicURL set)", u, cfg.Endpoint)
	}
	want := shotResponse{Status: http.StatusOK, ContentType: "image/png", Body: body}
	if diff := cmp.Diff(want, fetchShot(t, raw)); diff != "" {
		t.Errorf("GET presigned URL (-want +got):\n%s", diff)
	}
}

// TestArtifactsURLSignedForPublicHost checks that URLs are signed for the
// public host: they work there, and the same URL moved to another name of
// the same server is refused.
func TestArtifactsURLSignedForPublicHost(t *testing.T) {
	cfg := s3TestConfig(t)
	host, port, err := net.SplitHostPort(cfg.Endpoint)
	if err != nil {
		t.Fatalf("KISA_S3_ENDPOINT %q: %v", cfg.Endpoint, err)
	}
	publicHost, otherHost := "localhost", "127.0.0.1"
	if host == "localhost" {
		publicHost, otherHost = otherHost, publicHost
	}
	scheme := "http"
	if cfg.UseSSL {
		scheme = "https"
	}
	s, _, _ := newTestArtifacts(t, scheme+"://"+net.JoinHostPort(publicHost, port))
	body := putShot(t, s, "shot.png")
	raw, err := s.URL(context.Background(), "shot.png", time.Minute)
	if err != nil {
		t.Fatalf("URL: %v", err)
	}
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatalf("parse %q: %v", raw, err)
	}
	if want := net.JoinHostPort(publicHost, port); u.Host != want {
		t.Fatalf("URL host = %q, want %q", u.Host, want)
	}
	want := shotResponse{Status: http.StatusOK, ContentType: "image/png", Body: body}
	if diff := cmp.Diff(want, fetchShot(t, raw)); diff != "" {
		t.Errorf("GET at the public host (-want +got):\n%s", diff)
	}
	u.Host = net.JoinHostPort(otherHost, port)
	if got := fetchShot(t, u.String()).Status; got != http.StatusForbidden {
		t.Errorf("GET with the host rewritten to %s: status %d, want 403", otherHost, got)
	}
}

func TestArtifactsURLRefused(t *testing.T) {
	s, _, _ := newTestArtifacts(t, "")
	putShot(t, s, "a.png")
	putShot(t, s, "b.png")
	ctx := context.Background()
	sign := func(key string, ttl time.Duration) *url.URL {
		raw, err := s.URL(ctx, key, ttl)
		if err != nil {
			t.Fatalf("URL: %v", err)
		}
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		return u
	}
	// Signed in a bubble, whose clock starts in 2000: valid for a second
	// then, expired long ago.
	var signed string
	synctest.Test(t, func(t *testing.T) {
		var err error
		if signed, err = s.URL(ctx, "a.png", time.Second); err != nil {
			t.Fatalf("URL: %v", err)
		}
	})
	expired, err := url.Parse(signed)
	if err != nil {
		t.Fatal(err)
	}
	const badSignature = "<Code>SignatureDoesNotMatch</Code>"
	tests := []struct {
		name string
		url  func() *url.URL
		want string // in MinIO's answer: why it refuses
	}{
		{name: "expired", url: func() *url.URL { return expired }, want: "<Message>Request has expired</Message>"},
		{name: "tampered signature", want: badSignature, url: func() *url.URL {
			u := sign("a.png", time.Minute)
			q := u.Query()
			sig := []byte(q.Get("X-Amz-Signature"))
			if sig[0] == '0' {
				sig[0] = '1'
			} else {
				sig[0] = '0'
			}
			q.Set("X-Amz-Signature", string(sig))
			u.RawQuery = q.Encode()
			return u
		}},
		{name: "other object", want: badSignature, url: func() *url.URL {
			u := sign("a.png", time.Minute)
			u.Path = strings.Replace(u.Path, "a.png", "b.png", 1)
			return u
		}},
		{name: "longer expiry", want: badSignature, url: func() *url.URL {
			u := sign("a.png", time.Minute)
			q := u.Query()
			q.Set("X-Amz-Expires", "604800")
			u.RawQuery = q.Encode()
			return u
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := fetchShot(t, tt.url().String())
			if got.Status != http.StatusForbidden || !bytes.Contains(got.Body, []byte(tt.want)) {
				t.Errorf("status %d, body %s; want 403 saying %s", got.Status, got.Body, tt.want)
			}
		})
	}
}

// TestArtifactsURLIsOffline checks that signing never dials: the public
// host and the endpoint both point at a closed port.
func TestArtifactsURLIsOffline(t *testing.T) {
	s, err := storage.NewArtifacts(storage.S3Config{
		Endpoint: "127.0.0.1:1", AccessKey: "k", SecretKey: "secret-key", Bucket: "shots",
		PublicURL: "https://127.0.0.1:2",
	})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := s.URL(context.Background(), "x/y.png", 24*time.Hour)
	if err != nil {
		t.Fatalf("URL: %v", err)
	}
	if !strings.HasPrefix(raw, "https://127.0.0.1:2/shots/x/y.png?") || !strings.Contains(raw, "X-Amz-Expires=86400") {
		t.Errorf("URL = %q, want https://127.0.0.1:2/shots/x/y.png?...X-Amz-Expires=86400...", raw)
	}
}

func TestNewArtifactsRejects(t *testing.T) {
	ok := storage.S3Config{Endpoint: "127.0.0.1:9000", AccessKey: "k", SecretKey: "secret-key", Bucket: "shots"}
	tests := []struct {
		name   string
		change func(*storage.S3Config)
	}{
		{name: "no endpoint", change: func(c *storage.S3Config) { c.Endpoint = "" }},
		{name: "no bucket", change: func(c *storage.S3Config) { c.Bucket = "" }},
		{name: "no secret", change: func(c *storage.S3Config) { c.SecretKey = "" }},
		{name: "public URL with a path", change: func(c *storage.S3Config) { c.PublicURL = "https://cdn.example.com/shots" }},
		{name: "public URL without scheme", change: func(c *storage.S3Config) { c.PublicURL = "cdn.example.com" }},
		{name: "public URL ftp", change: func(c *storage.S3Config) { c.PublicURL = "ftp://cdn.example.com" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := ok
			tt.change(&cfg)
			if _, err := storage.NewArtifacts(cfg); err == nil {
				t.Errorf("NewArtifacts(%+v): got nil error", cfg)
			}
		})
	}
	if _, err := storage.NewArtifacts(ok); err != nil {
		t.Errorf("NewArtifacts(valid): %v", err)
	}
}

// TestArtifactsPutGzipHTML checks that a page stored as gzip HTML
// downloads through its presigned URL with the headers that let a browser
// show it, and unpacks to the page.
func TestArtifactsPutGzipHTML(t *testing.T) {
	s, _, _ := newTestArtifacts(t, "")
	ctx := context.Background()
	const page = "<!doctype html><title>é</title><p>Seite</p>"
	if err := s.EnsureBucket(ctx); err != nil {
		t.Fatalf("EnsureBucket: %v", err)
	}
	if err := s.PutGzipHTML(ctx, "2026-01-01/k/page.html.gz", page); err != nil {
		t.Fatalf("PutGzipHTML: %v", err)
	}
	raw, err := s.URL(ctx, "2026-01-01/k/page.html.gz", time.Minute)
	if err != nil {
		t.Fatalf("URL: %v", err)
	}
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, raw, nil)
	req.Header.Set("Accept-Encoding", "gzip") // set by hand: the transport leaves the body packed
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET: %v", err)
	}
	defer resp.Body.Close()
	got := []string{resp.Header.Get("Content-Type"), resp.Header.Get("Content-Encoding")}
	if diff := cmp.Diff([]string{"text/html; charset=utf-8", "gzip"}, got); diff != "" {
		t.Errorf("headers (-want +got):\n%s", diff)
	}
	zr, err := gzip.NewReader(resp.Body)
	if err != nil {
		t.Fatalf("gzip: %v", err)
	}
	body, err := io.ReadAll(zr)
	if err != nil || string(body) != page {
		t.Errorf("body = %q, %v; want the page", body, err)
	}
}

// TestArtifactsSharedURL checks that SharedURL signs for two minutes
// more than asked, hands the same URL out again, and that the URL works.
func TestArtifactsSharedURL(t *testing.T) {
	s, _, _ := newTestArtifacts(t, "")
	body := putShot(t, s, "shared.png")
	ctx := context.Background()
	first, err := s.SharedURL(ctx, "shared.png", 24*time.Hour)
	if err != nil {
		t.Fatalf("SharedURL: %v", err)
	}
	again, err := s.SharedURL(ctx, "shared.png", 24*time.Hour)
	if err != nil {
		t.Fatalf("SharedURL again: %v", err)
	}
	other, err := s.SharedURL(ctx, "shared.png", time.Hour)
	if err != nil {
		t.Fatalf("SharedURL, another ttl: %v", err)
	}
	got := []bool{again == first, strings.Contains(first, "X-Amz-Expires=86520"), strings.Contains(other, "X-Amz-Expires=3720")}
	if diff := cmp.Diff([]bool{true, true, true}, got); diff != "" {
		t.Errorf("same URL again, 24h+2m, 1h+2m (-want +got):\n%s\nfirst %s\nagain %s\nother %s", diff, first, again, other)
	}
	want := shotResponse{Status: http.StatusOK, ContentType: "image/png", Body: body}
	if diff := cmp.Diff(want, fetchShot(t, first)); diff != "" {
		t.Errorf("GET shared URL (-want +got):\n%s", diff)
	}
}
