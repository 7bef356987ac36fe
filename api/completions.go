package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/gin-gonic/gin"

	"github.com/kisa-dev/kisa"
)

// completionsPath is the route of chat completions (spec 4.6), which
// spend the AI budget like overviews.
const completionsPath = "/v1/completions"

// Completions is the OpenAI-compatible upstream that POST /v1/completions
// forwards to.
type Completions struct {
	URL string // the upstream's chat-completions endpoint; empty: the route answers 503
	Key string // bearer key sent upstream; empty: none
	// Timeout bounds the wait for the upstream's answer and, when
	// streaming, the gap between two chunks.
	Timeout time.Duration
	Client  *http.Client // nil: http.DefaultClient (deadlines come from Timeout)
}

// maxUpstreamBody is the largest non-streamed answer read from upstream.
const maxUpstreamBody = 8 << 20

// errUpstreamTimeout is the cause of a cancelled upstream call whose
// answer, or next chunk, took longer than Completions.Timeout.
var errUpstreamTimeout = errors.New("completions upstream timed out")

// completions answers POST /v1/completions: it validates the body, then
// forwards it unchanged to the upstream and answers its JSON in the
// envelope, or relays its server-sent events as they come when the
// request asks for "stream": true.
func (s *Server) completions(c *gin.Context) {
	body, err := io.ReadAll(c.Request.Body)
	if err != nil {
		s.writeError(c, readError(err))
		return
	}
	stream, err := parseCompletionRequest(body)
	if err != nil {
		s.writeError(c, err)
		return
	}
	up := s.opts.Completions
	if up.URL == "" {
		s.writeError(c, kisa.Failf(kisa.Unavailable, "completions are not enabled on this server"))
		return
	}
	ctx, cancel := context.WithCancelCause(c.Request.Context())
	defer cancel(nil)
	watchdog := time.AfterFunc(up.Timeout, func() { cancel(errUpstreamTimeout) })
	defer watchdog.Stop()
	res, err := s.callUpstream(ctx, c, body, stream)
	if err != nil {
		s.writeError(c, upstreamFailure(ctx, up.Timeout, err))
		return
	}
	defer res.Body.Close()
	if res.StatusCode < 200 || res.StatusCode > 299 {
		s.writeError(c, upstreamRefusal(res))
		return
	}
	if stream && isEventStream(res.Header) {
		s.relayEvents(c, ctx, res, watchdog, up.Timeout)
		return
	}
	s.answerUpstreamJSON(c, ctx, res, up.Timeout)
}

// callUpstream POSTs body, unchanged, to the upstream.
func (s *Server) callUpstream(ctx context.Context, c *gin.Context, body []byte, stream bool) (*http.Response, error) {
	up := s.opts.Completions
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, up.URL, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", map[bool]string{true: "text/event-stream", false: "application/json"}[stream])
	req.Header.Set("X-Request-Id", requestID(c))
	if up.Key != "" {
		req.Header.Set("Authorization", "Bearer "+up.Key)
	}
	client := up.Client
	if client == nil {
		client = http.DefaultClient
	}
	return client.Do(req)
}

// answerUpstreamJSON answers the upstream's JSON as the envelope's data.
func (s *Server) answerUpstreamJSON(c *gin.Context, ctx context.Context, res *http.Response, timeout time.Duration) {
	b, err := io.ReadAll(io.LimitReader(res.Body, maxUpstreamBody+1))
	if err != nil {
		s.writeError(c, upstreamFailure(ctx, timeout, err))
		return
	}
	if len(b) > maxUpstreamBody || !json.Valid(b) {
		s.writeError(c, fmt.Errorf("%w: %d bytes", errUpstreamNotJSON, len(b)))
		return
	}
	writeData(c, json.RawMessage(b))
}

// relayEvents copies the upstream's event stream to the client unchanged,
// flushing each chunk as it comes; a chunk later than timeout ends it.
func (s *Server) relayEvents(c *gin.Context, ctx context.Context, res *http.Response, watchdog *time.Timer, timeout time.Duration) {
	c.Header("Content-Type", res.Header.Get("Content-Type"))
	c.Header("Cache-Control", "no-cache")
	c.Header("X-Accel-Buffering", "no")
	c.Status(http.StatusOK)
	c.Writer.WriteHeaderNow()
	c.Writer.Flush()
	rc := http.NewResponseController(c.Writer)
	buf := make([]byte, 32<<10)
	for {
		_ = rc.SetWriteDeadline(time.Now().Add(timeout))
		n, err := res.Body.Read(buf)
		if n > 0 {
			watchdog.Reset(timeout)
			if _, werr := c.Writer.Write(buf[:n]); werr != nil {
				return
			}
			c.Writer.Flush()
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				s.log.WarnContext(ctx, "completions stream ended early", "request_id", requestID(c),
					"error", err, "cause", context.Cause(ctx))
			}
			return
		}
	}
}

// isEventStream reports whether h declares server-sent events.
func isEventStream(h http.Header) bool {
	return strings.HasPrefix(strings.ToLower(h.Get("Content-Type")), "text/event-stream")
}

// upstreamError is the one table from an answer of the completions
// upstream that is not a success (its status, its own message, its
// Retry-After in seconds) to the failure the client is told: the
// upstream's rate limit is the client's Limited, a refusal of the request
// BadRequest with the upstream's reason, anything else (its refusal of our
// credentials, its own failures) Unavailable.
func upstreamError(status int, detail string, retryAfter int) *kisa.Error {
	reason := ""
	if detail != "" {
		reason = ": " + detail
	}
	switch {
	case status == http.StatusTooManyRequests:
		return &kisa.Error{Failure: kisa.Limited, RetryAfter: time.Duration(max(retryAfter, 1)) * time.Second,
			Message: "the completions upstream is rate limiting this service; retry later" + reason}
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return &kisa.Error{Failure: kisa.Unavailable, RetryAfter: RetryAfterBlocked * time.Second,
			Message: "the completions upstream refused this service's credentials; completions are unavailable"}
	case status >= 400 && status < 500:
		return kisa.Failf(kisa.BadRequest, "the completions upstream rejected the request (HTTP %d)%s", status, reason)
	}
	return kisa.Failf(kisa.Unavailable, "the completions upstream failed (HTTP %d); try again shortly", status)
}

// errUpstreamNotJSON is told when the completions upstream answers a
// success whose body is not JSON (or is over 8 MiB).
var errUpstreamNotJSON = kisa.Failf(kisa.Unavailable,
	"the completions upstream answered with something that is not JSON; try again shortly")

// upstreamFailure is what the client is told when the completions
// upstream could not be reached or read (err, kept for the log):
// Unavailable, or TimedOut when it was too slow (ctx was cancelled by the
// time-out).
func upstreamFailure(ctx context.Context, timeout time.Duration, err error) error {
	e := kisa.Failf(kisa.Unavailable, "the completions upstream is unavailable; try again shortly")
	if errors.Is(context.Cause(ctx), errUpstreamTimeout) {
		e = kisa.Failf(kisa.TimedOut, "the completions upstream did not answer within %s; try again shortly", timeout)
	}
	e.Err = err
	return e
}

// upstreamRefusal reads what the upstream said when it answered with a
// status that is not a success, and maps it through upstreamError.
func upstreamRefusal(res *http.Response) *kisa.Error {
	b, _ := io.ReadAll(io.LimitReader(res.Body, 64<<10))
	retry, _ := strconv.Atoi(strings.TrimSpace(res.Header.Get("Retry-After")))
	return upstreamError(res.StatusCode, upstreamMessage(b), retry)
}

// upstreamMessage is the upstream's own error message, when its body
// has one ({"error":{"message":...}} or {"error":"..."}), cleaned of
// control characters and cut to 300 characters.
func upstreamMessage(b []byte) string {
	var body struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(b, &body) != nil || body.Error == nil {
		return ""
	}
	var msg string
	var obj struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(body.Error, &msg) != nil && json.Unmarshal(body.Error, &obj) == nil {
		msg = obj.Message
	}
	msg = strings.Join(strings.FieldsFunc(msg, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }), " ")
	if r := []rune(msg); len(r) > 300 {
		msg = string(r[:300]) + "..."
	}
	return msg
}

// parseCompletionRequest validates a chat-completion request: a strict
// JSON object (decodeJSONObject; else 400) with a non-empty `model`, a non-empty `messages`
// array of objects that each have a `role` and a `content`, and `stream`,
// when given, a boolean (else 422 naming every field). Other fields go
// upstream untouched. It reports whether a stream was asked for.
func parseCompletionRequest(body []byte) (bool, error) {
	top, err := decodeJSONObject(body)
	if err != nil {
		return false, err
	}
	v := validation{}
	requireString(v, "model", top["model"])
	parseMessages(v, top["messages"])
	var stream bool
	if raw, ok := top["stream"]; ok {
		decodeAs(v, "stream", raw, &stream, "a boolean")
	}
	if len(v) > 0 {
		return false, v.err()
	}
	return stream, nil
}

// requireString records a problem at path unless raw is a string with
// something other than spaces in it.
func requireString(v validation, path string, raw json.RawMessage) {
	var s string
	switch {
	case raw == nil:
		v.add(path, "is required")
	case decodeAs(v, path, raw, &s, "a string") && strings.TrimSpace(s) == "":
		v.add(path, "must not be empty")
	}
}

// parseMessages checks the messages array, naming each bad element by
// its index (messages[1].content).
func parseMessages(v validation, raw json.RawMessage) {
	var items []json.RawMessage
	if raw == nil {
		v.add("messages", "is required")
		return
	}
	if !decodeAs(v, "messages", raw, &items, "an array of messages") {
		return
	}
	if len(items) == 0 {
		v.add("messages", "must hold at least one message")
	}
	for i, it := range items {
		p := fmt.Sprintf("messages[%d]", i)
		var msg map[string]json.RawMessage
		if !decodeAs(v, p, it, &msg, "an object with role and content") {
			continue
		}
		requireString(v, p+".role", msg["role"])
		switch content := bytes.TrimSpace(msg["content"]); {
		case content == nil || bytes.Equal(content, []byte("null")):
			v.add(p+".content", "is required")
		case content[0] != '"' && content[0] != '[':
			v.add(p+".content", "must be a string or an array of content parts")
		}
	}
}
