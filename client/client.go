// Package client is the Go client of the kisa API: typed requests and
// responses for every endpoint, context-aware calls, bounded retries of
// 429 and 503 answers that honour Retry-After, and errors that carry what
// the API said (status, message, field errors, docs URL, request id).
//
// It is written by hand rather than generated from api/openapi.yaml: the
// envelope ({"status","data"} / {"status","error","errors","docs"}), the
// retry rules and the server-sent events of streamed completions are
// where a client earns its keep, and a generator (oapi-codegen) would
// wrap each of them in a layer of generated types to unwrap by hand
// anyway. The API's own tests keep the two honest: the end-to-end tests
// call the service through this package, and TestOpenAPIResponses checks
// every real answer against the document.
//
// It is a library for integrators: `kisa client` uses only part of it, so
// deadcode run on ./cmd/... lists the rest (ListClusters, Overview,
// Complete, SubmitBatch, VerifySignature, ...). They are kept on purpose
// and exercised by this package's tests and the end-to-end tests.
package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Client calls one kisa API with one API key. It is safe for concurrent use.
type Client struct {
	base       string
	key        string
	http       *http.Client
	maxRetries int
	maxWait    time.Duration
	userAgent  string
}

// Option changes a Client made by New.
type Option func(*Client)

// WithHTTPClient makes the Client send its requests through h.
func WithHTTPClient(h *http.Client) Option { return func(c *Client) { c.http = h } }

// WithRetries sets how often a 429 or 503 answer is retried (0: never;
// default 3) and the longest single wait (default 30s): an answer that
// asks for a longer wait through Retry-After is returned at once.
func WithRetries(n int, maxWait time.Duration) Option {
	return func(c *Client) { c.maxRetries, c.maxWait = n, maxWait }
}

// New returns a Client for the API at baseURL (e.g.
// "http://127.0.0.1:8080") that authenticates with key
// ("<prefix>_<key>").
func New(baseURL, key string, opts ...Option) *Client {
	c := &Client{base: strings.TrimRight(baseURL, "/"), key: key, http: http.DefaultClient,
		maxRetries: 3, maxWait: 30 * time.Second, userAgent: "kisa-go-client"}
	for _, o := range opts {
		o(c)
	}
	return c
}

// Response is one answer of the API as received: its status, headers
// (X-Request-Id, RateLimit-*, Location, Retry-After) and raw body.
type Response struct {
	StatusCode int
	Header     http.Header
	Body       []byte
}

// RequestID is the answer's X-Request-Id, to quote in a support request.
func (r *Response) RequestID() string { return r.Header.Get("X-Request-Id") }

// Error is an answer of the API that is not a success.
type Error struct {
	Status     int               `json:"status"`              // HTTP status
	Message    string            `json:"error"`               // the envelope's error
	Fields     map[string]string `json:"errors,omitempty"`    // the envelope's errors: field path -> problem (422)
	Docs       string            `json:"docs,omitempty"`      // the envelope's docs URL, when given (403 2FA)
	RequestID  string            `json:"requestId,omitempty"` // X-Request-Id of the answer
	RetryAfter time.Duration     `json:"-"`                   // Retry-After, when given (429, 503)
}

// Error describes e as "kisa: 422 validation failed (query: is required)".
func (e *Error) Error() string {
	s := fmt.Sprintf("kisa: %d %s", e.Status, e.Message)
	if len(e.Fields) > 0 {
		parts := make([]string, 0, len(e.Fields))
		for k, v := range e.Fields {
			parts = append(parts, k+": "+v)
		}
		s += " (" + strings.Join(slices.Sorted(slices.Values(parts)), "; ") + ")"
	}
	if e.RequestID != "" {
		s += " [request " + e.RequestID + "]"
	}
	return s
}

// StatusOf returns the HTTP status of an *Error in err's chain, or 0.
func StatusOf(err error) int {
	var e *Error
	if errors.As(err, &e) {
		return e.Status
	}
	return 0
}

// envelope is the API's body: success or failure.
type envelope struct {
	Status bool              `json:"status"`
	Data   json.RawMessage   `json:"data"`
	Error  string            `json:"error"`
	Errors map[string]string `json:"errors"`
	Docs   string            `json:"docs"`
}

// Do sends one request and decodes the envelope's data into out (unless
// out is nil). in is sent as JSON: a json.RawMessage or []byte as it is,
// anything else marshalled; nil sends no body. A 429 or 503 is retried as
// WithRetries allows. A non-success answer is returned as an *Error
// together with its Response; so is a success whose data does not decode.
func (c *Client) Do(ctx context.Context, method, path string, in, out any) (*Response, error) {
	body, err := encodeBody(in)
	if err != nil {
		return nil, err
	}
	for attempt := 0; ; attempt++ {
		res, err := c.once(ctx, method, path, body)
		if err != nil {
			return nil, err
		}
		apiErr := decodeAnswer(res, out)
		wait, retry := c.retryAfter(res, attempt)
		if apiErr == nil || !retry {
			return res, apiErr
		}
		if err := sleep(ctx, wait); err != nil {
			return res, apiErr
		}
	}
}

func encodeBody(in any) ([]byte, error) {
	switch v := in.(type) {
	case nil:
		return nil, nil
	case json.RawMessage:
		return v, nil
	case []byte:
		return v, nil
	}
	b, err := json.Marshal(in)
	if err != nil {
		return nil, fmt.Errorf("kisa: encode request: %w", err)
	}
	return b, nil
}

// once sends the request one time and reads the whole answer.
func (c *Client) once(ctx context.Context, method, path string, body []byte) (*Response, error) {
	res, err := c.send(ctx, method, path, body, "application/json")
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, fmt.Errorf("kisa: %s %s: read answer: %w", method, path, err)
	}
	return &Response{StatusCode: res.StatusCode, Header: res.Header, Body: b}, nil
}

// send sends one request and returns the open answer.
func (c *Client) send(ctx context.Context, method, path string, body []byte, accept string) (*http.Response, error) {
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, r)
	if err != nil {
		return nil, fmt.Errorf("kisa: %w", err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", accept)
	req.Header.Set("User-Agent", c.userAgent)
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	res, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("kisa: %s %s: %w", method, path, err)
	}
	return res, nil
}

// decodeAnswer returns nil for a success whose data decoded into out, and
// an *Error otherwise.
func decodeAnswer(res *Response, out any) error {
	var env envelope
	jsonErr := json.Unmarshal(res.Body, &env)
	if res.StatusCode >= 200 && res.StatusCode < 300 {
		if jsonErr != nil {
			return apiError(res, "the answer is not JSON: "+jsonErr.Error(), env)
		}
		if out != nil && len(env.Data) > 0 {
			if err := json.Unmarshal(env.Data, out); err != nil {
				return apiError(res, "the answer's data does not decode: "+err.Error(), env)
			}
		}
		return nil
	}
	msg := env.Error
	if jsonErr != nil || msg == "" {
		msg = http.StatusText(res.StatusCode)
	}
	return apiError(res, msg, env)
}

func apiError(res *Response, msg string, env envelope) *Error {
	wait, _ := parseRetryAfter(res.Header.Get("Retry-After"), time.Now())
	return &Error{Status: res.StatusCode, Message: msg, Fields: env.Errors, Docs: env.Docs,
		RequestID: res.RequestID(), RetryAfter: wait}
}

// retryAfter reports whether an answer is retried after attempt, and how
// long to wait first: 429 and 503 only, Retry-After when given (1, 2, 4 s
// ... otherwise), never longer than maxWait.
func (c *Client) retryAfter(res *Response, attempt int) (time.Duration, bool) {
	if res.StatusCode != http.StatusTooManyRequests && res.StatusCode != http.StatusServiceUnavailable || attempt >= c.maxRetries {
		return 0, false
	}
	wait, ok := parseRetryAfter(res.Header.Get("Retry-After"), time.Now())
	if !ok {
		wait = time.Second << min(attempt, 5)
	}
	return wait, wait <= c.maxWait
}

// parseRetryAfter reads Retry-After as seconds or as an HTTP date; ok is
// false when it is absent or unreadable.
func parseRetryAfter(v string, now time.Time) (d time.Duration, ok bool) {
	v = strings.TrimSpace(v)
	if n, err := strconv.Atoi(v); err == nil && n >= 0 {
		return time.Duration(n) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(0, t.Sub(now)), true
	}
	return 0, false
}

// sleep waits d, or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// escape is a path segment, escaped.
func escape(s string) string { return url.PathEscape(s) }
