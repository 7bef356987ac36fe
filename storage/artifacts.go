package storage

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"sync"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
	"github.com/minio/minio-go/v7/pkg/lifecycle"
)

// ScreenshotExpiryDays is how many days the bucket's lifecycle rule keeps
// a screenshot object; see EnsureBucket for why it is two.
const ScreenshotExpiryDays = 2

// screenshotRuleID names the lifecycle rule EnsureBucket writes for the
// objects of results (screenshots, raw HTML).
const screenshotRuleID = "kisa-expire-screenshots"

// ResultPrefix starts the key of every object of a result: its keys begin
// with the UTC date ("2026-11-23/..."), so the prefix "2" holds them all
// and leaves EvidencePrefix alone.
const ResultPrefix = "2"

// EvidencePrefix starts the keys of the evidence of pages the worker did
// not recognise (their HTML and a full-page screenshot), for operators:
// evidence/<date>/<task>/... Its objects live EvidenceExpiryDays.
const EvidencePrefix = "evidence/"

// EvidenceExpiryDays is how many days evidence objects are kept: long
// enough for an operator to add the page's generation from them.
const EvidenceExpiryDays = 7

// evidenceRuleID names the lifecycle rule of EvidencePrefix.
const evidenceRuleID = "kisa-expire-evidence"

// S3Config locates the S3-compatible store (MinIO) that keeps the artifacts.
type S3Config struct {
	Endpoint  string // host:port the service talks to, e.g. 127.0.0.1:9000
	AccessKey string
	SecretKey string
	Bucket    string
	Region    string // signing region; "us-east-1" when empty
	UseSSL    bool   // https to Endpoint
	// PublicURL is the base users fetch screenshots from (KISA_CDN_URL), a
	// scheme and host only, e.g. https://cdn.example.com. Presigned URLs are
	// signed for this host; "" means the Endpoint itself.
	PublicURL string
}

// Artifacts is the bucket of what visits leave behind: a result's
// screenshots (PNG) and page HTML, and the evidence of pages the worker
// did not recognise. It stores objects and hands out presigned GET URLs
// for them.
type Artifacts struct {
	client *minio.Client // talks to Endpoint
	signer *minio.Client // signs URLs for the PublicURL host; never dials
	bucket string
	region string
	now    func() time.Time

	mu     sync.Mutex
	shared map[sharedKey]sharedURL // SharedURL's signatures
}

// URLReuse is how long SharedURL hands out the same signature again.
const URLReuse = time.Minute

// sharedMax bounds SharedURL's memory; past it, stale entries are dropped.
const sharedMax = 20000

type sharedKey struct {
	key string
	ttl time.Duration
}

type sharedURL struct {
	url    string
	signed time.Time
}

// NewArtifacts builds the store from cfg without contacting the server.
// It returns an error naming the bad setting when cfg is incomplete or
// PublicURL is not a bare http(s) base URL.
func NewArtifacts(cfg S3Config) (*Artifacts, error) {
	if cfg.Endpoint == "" || cfg.Bucket == "" || cfg.AccessKey == "" || cfg.SecretKey == "" {
		return nil, errors.New("screenshots: S3 endpoint, bucket, access key and secret key are required")
	}
	if cfg.Region == "" {
		cfg.Region = "us-east-1"
	}
	public, err := publicBase(cfg)
	if err != nil {
		return nil, err
	}
	client, err := newS3Client(cfg, cfg.Endpoint, cfg.UseSSL)
	if err != nil {
		return nil, err
	}
	// A presigned URL's signature covers the Host header, so it must be
	// made for the host users fetch from, never rewritten afterwards. With
	// Region set, minio-go signs locally instead of asking for the
	// bucket's location over the network.
	signer, err := newS3Client(cfg, public.Host, public.Scheme == "https")
	if err != nil {
		return nil, err
	}
	return &Artifacts{client: client, signer: signer, bucket: cfg.Bucket, region: cfg.Region,
		now: time.Now, shared: map[sharedKey]sharedURL{}}, nil
}

// publicBase parses cfg.PublicURL, defaulting to the endpoint itself.
func publicBase(cfg S3Config) (*url.URL, error) {
	if cfg.PublicURL == "" {
		scheme := "http"
		if cfg.UseSSL {
			scheme = "https"
		}
		return &url.URL{Scheme: scheme, Host: cfg.Endpoint}, nil
	}
	u, err := url.Parse(cfg.PublicURL)
	if err != nil {
		return nil, fmt.Errorf("screenshots: public URL %q: %w", cfg.PublicURL, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
		(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.User != nil {
		return nil, fmt.Errorf("screenshots: public URL %q must be http(s)://host[:port] with no path", cfg.PublicURL)
	}
	return u, nil
}

func newS3Client(cfg S3Config, host string, secure bool) (*minio.Client, error) {
	c, err := minio.New(host, &minio.Options{
		Creds:  credentials.NewStaticV4(cfg.AccessKey, cfg.SecretKey, ""),
		Secure: secure,
		Region: cfg.Region,
	})
	if err != nil {
		return nil, fmt.Errorf("screenshots: S3 client for %s: %w", host, err)
	}
	return c, nil
}

// EnsureBucket creates the bucket if it is missing and (re)writes its
// lifecycle rules: an object of a result (under ResultPrefix) expires
// ScreenshotExpiryDays (2) days after it was written, one of evidence
// (under EvidencePrefix) EvidenceExpiryDays (7). Two, not one: a cached overview result (ttl <= 24h) may
// hand out a fresh 24h URL for a screenshot taken up to 24h earlier, so an
// object must live at least 48h. MinIO expires by whole days, so objects
// live 48-72h. Safe to call concurrently and repeatedly. It returns an
// error when the server is unreachable or refuses the request.
func (s *Artifacts) EnsureBucket(ctx context.Context) error {
	exists, err := s.client.BucketExists(ctx, s.bucket)
	if err != nil {
		return fmt.Errorf("screenshots: check bucket %q: %w", s.bucket, err)
	}
	if !exists {
		err := s.client.MakeBucket(ctx, s.bucket, minio.MakeBucketOptions{Region: s.region})
		if err != nil && minio.ToErrorResponse(err).Code != minio.BucketAlreadyOwnedByYou {
			return fmt.Errorf("screenshots: create bucket %q: %w", s.bucket, err)
		}
	}
	cfg := lifecycle.NewConfiguration()
	cfg.Rules = []lifecycle.Rule{{
		ID:         screenshotRuleID,
		Status:     "Enabled",
		RuleFilter: lifecycle.Filter{Prefix: ResultPrefix},
		Expiration: lifecycle.Expiration{Days: ScreenshotExpiryDays},
	}, {
		ID:         evidenceRuleID,
		Status:     "Enabled",
		RuleFilter: lifecycle.Filter{Prefix: EvidencePrefix},
		Expiration: lifecycle.Expiration{Days: EvidenceExpiryDays},
	}}
	if err := s.client.SetBucketLifecycle(ctx, s.bucket, cfg); err != nil {
		return fmt.Errorf("screenshots: set lifecycle on bucket %q: %w", s.bucket, err)
	}
	return nil
}

// Put stores png under key with Content-Type image/png. The real size is
// passed on, so the upload is one request with no large buffer. It returns
// an error when the upload fails.
func (s *Artifacts) Put(ctx context.Context, key string, png []byte) error {
	return s.PutObject(ctx, key, png, "image/png", "")
}

// PutGzipHTML stores page gzip-compressed under key, served with
// Content-Type text/html; charset=utf-8 and Content-Encoding gzip, so a
// browser or curl --compressed shows the page. It returns an error when
// the upload fails.
func (s *Artifacts) PutGzipHTML(ctx context.Context, key, page string) error {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write([]byte(page)); err != nil {
		return fmt.Errorf("screenshots: gzip %q: %w", key, err)
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("screenshots: gzip %q: %w", key, err)
	}
	return s.PutObject(ctx, key, buf.Bytes(), "text/html; charset=utf-8", "gzip")
}

// HTML returns the page PutGzipHTML stored under key, decompressed. It
// returns an error when the object cannot be read (the bucket's lifecycle
// removes it after ScreenshotExpiryDays, evidence after
// EvidenceExpiryDays) or is not gzip.
func (s *Artifacts) HTML(ctx context.Context, key string) (string, error) {
	obj, err := s.client.GetObject(ctx, s.bucket, key, minio.GetObjectOptions{})
	if err != nil {
		return "", fmt.Errorf("screenshots: get %q: %w", key, err)
	}
	defer obj.Close()
	zr, err := gzip.NewReader(obj)
	if err != nil {
		return "", fmt.Errorf("screenshots: get %q: %w", key, err)
	}
	page, err := io.ReadAll(zr)
	if err != nil {
		return "", fmt.Errorf("screenshots: get %q: %w", key, err)
	}
	return string(page), nil
}

// PutObject stores body under key with the given Content-Type and
// Content-Encoding ("" for none). It returns an error when the upload
// fails.
func (s *Artifacts) PutObject(ctx context.Context, key string, body []byte, contentType, encoding string) error {
	_, err := s.client.PutObject(ctx, s.bucket, key, bytes.NewReader(body), int64(len(body)),
		minio.PutObjectOptions{ContentType: contentType, ContentEncoding: encoding})
	if err != nil {
		return fmt.Errorf("screenshots: put %q: %w", key, err)
	}
	return nil
}

// URL returns a presigned GET URL for key on the public host, valid for
// ttl (1s to 7 days). It makes no network call and does not check that the
// object exists; it returns an error for an invalid key or ttl.
func (s *Artifacts) URL(ctx context.Context, key string, ttl time.Duration) (string, error) {
	u, err := s.signer.PresignedGetObject(ctx, s.bucket, key, ttl, nil)
	if err != nil {
		return "", fmt.Errorf("screenshots: presign %q: %w", key, err)
	}
	return u.String(), nil
}

// SharedURL is URL for hot paths: it signs for ttl+2*URLReuse and hands
// the same URL out again for URLReuse, so every URL it returns is still
// valid for at least ttl+URLReuse (a caller may keep handing it out for
// another URLReuse) and a cache hit costs no HMAC work. ttl+2*URLReuse
// must stay within 7 days. Errors are URL's.
func (s *Artifacts) SharedURL(ctx context.Context, key string, ttl time.Duration) (string, error) {
	k, now := sharedKey{key: key, ttl: ttl}, s.now()
	s.mu.Lock()
	e, ok := s.shared[k]
	s.mu.Unlock()
	if ok && now.Sub(e.signed) < URLReuse {
		return e.url, nil
	}
	u, err := s.URL(ctx, key, ttl+2*URLReuse)
	if err != nil {
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.shared) >= sharedMax {
		for k, e := range s.shared {
			if now.Sub(e.signed) >= URLReuse {
				delete(s.shared, k)
			}
		}
	}
	if len(s.shared) < sharedMax {
		s.shared[k] = sharedURL{url: u, signed: now}
	}
	return u, nil
}

// Ping reports whether the server answers, accepts the credentials and
// has the bucket. It returns an error otherwise.
func (s *Artifacts) Ping(ctx context.Context) error {
	exists, err := s.client.BucketExists(ctx, s.bucket)
	if err != nil {
		return fmt.Errorf("screenshots: ping %s: %w", s.client.EndpointURL().Host, err)
	}
	if !exists {
		return fmt.Errorf("screenshots: bucket %q does not exist", s.bucket)
	}
	return nil
}
