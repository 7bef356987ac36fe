package api

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/kisa-dev/kisa"
)

// Code classifies an application error; codeStatus maps it to HTTP.
type Code string

// The error codes of the API (spec section 7).
const (
	CodeBadRequest       Code = "bad_request"
	CodeUnauthorized     Code = "unauthorized"
	CodeForbidden        Code = "forbidden"
	CodeNotFound         Code = "not_found"
	CodeMethodNotAllowed Code = "method_not_allowed"
	CodeTooLarge         Code = "too_large"
	CodeValidation       Code = "validation"
	CodeRateLimited      Code = "rate_limited"
	CodeUnavailable      Code = "unavailable"
	CodeInternal         Code = "internal"
)

var codeStatus = map[Code]int{
	CodeBadRequest:       http.StatusBadRequest,
	CodeUnauthorized:     http.StatusUnauthorized,
	CodeForbidden:        http.StatusForbidden,
	CodeNotFound:         http.StatusNotFound,
	CodeMethodNotAllowed: http.StatusMethodNotAllowed,
	CodeTooLarge:         http.StatusRequestEntityTooLarge,
	CodeValidation:       http.StatusUnprocessableEntity,
	CodeRateLimited:      http.StatusTooManyRequests,
	CodeUnavailable:      http.StatusServiceUnavailable,
	CodeInternal:         http.StatusInternalServerError,
}

// Error is an application error: what the client is told. Anything that
// is not an *Error is answered as a 500 with an incident phrase only.
type Error struct {
	Code    Code
	Message string
	// Fields maps a request field path to what is wrong with it (422).
	Fields map[string]string
	// Docs is a documentation URL for the error, when there is one.
	Docs string
	// RetryAfter, in seconds, is sent as the Retry-After header when set.
	RetryAfter int
}

// Error describes e for logs: its code and message.
func (e *Error) Error() string { return string(e.Code) + ": " + e.Message }

// Errorf returns an *Error with a formatted message.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// errorBody is the failure envelope of spec section 1.
type errorBody struct {
	Status bool              `json:"status"`
	Error  string            `json:"error"`
	Errors map[string]string `json:"errors,omitempty"`
	Docs   string            `json:"docs,omitempty"`
}

// dataBody is the success envelope of spec section 1.
type dataBody struct {
	Status bool `json:"status"`
	Data   any  `json:"data"`
}

// writeData answers 200 with data in the success envelope.
func writeData(c *gin.Context, data any) {
	writeJSON(c, http.StatusOK, dataBody{Status: true, Data: data})
}

// writeJSON answers status with v as JSON. URLs keep their & and < as they
// are (no \u0026 escapes), and no newline follows the value.
func writeJSON(c *gin.Context, status int, v any) {
	buf := jsonBuffers.Get().(*bytes.Buffer)
	defer putJSONBuffer(buf)
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		writeJSONBytes(c, http.StatusInternalServerError, []byte(`{"status":false,"error":"internal error"}`))
		return
	}
	writeJSONBytes(c, status, bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
}

// jsonContentType is the Content-Type of every JSON answer, one slice
// shared by all of them (header values are replaced, never changed in
// place), as gin's own JSON renderer does.
var jsonContentType = []string{"application/json; charset=utf-8"}

// writeJSONBytes answers status with b, which is JSON.
func writeJSONBytes(c *gin.Context, status int, b []byte) {
	c.Writer.Header()["Content-Type"] = jsonContentType
	c.Status(status)
	c.Writer.Write(b)
}

// jsonBuffers keeps writeJSON's buffers between answers: writing copies
// the bytes out before the buffer is put back, and a buffer grown past
// maxPooledJSON (a long list, say) is left to the collector.
var jsonBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

const maxPooledJSON = 64 << 10

func putJSONBuffer(buf *bytes.Buffer) {
	if buf.Cap() > maxPooledJSON {
		return
	}
	buf.Reset()
	jsonBuffers.Put(buf)
}

// Retry-After values, in seconds, of the answers that say "try again".
const (
	// RetryAfterBlocked: the search engine showed its CAPTCHA; asking again
	// at once would only prolong the block.
	RetryAfterBlocked = 300
	// RetryAfterUnavailable: a backing service or the browser did not
	// answer; most such blips pass within seconds.
	RetryAfterUnavailable = 15
	// RetryAfterOverloaded: the queue holds about two minutes of work;
	// half a minute lets part of it drain.
	RetryAfterOverloaded = 30
	// RetryAfterTimedOut: the job is still running or queued; its result
	// is cached when it ends, so a retry soon is often answered at once.
	RetryAfterTimedOut = 10
)

// failureError is the one table from a failure of the overview path
// (kisa.Failure, and the part that failed) to what the client is told. A
// nil result means an incident: a 500 whose cause is only logged.
func failureError(f kisa.Failure, part kisa.Part) *Error {
	switch f {
	case kisa.Blocked:
		return &Error{Code: CodeUnavailable, RetryAfter: RetryAfterBlocked,
			Message: "the search engine refused the request (CAPTCHA); try again later"}
	case kisa.Unavailable:
		if part == "" {
			part = "a backing service"
		}
		return &Error{Code: CodeUnavailable, RetryAfter: RetryAfterUnavailable,
			Message: string(part) + " is unavailable; try again shortly"}
	case kisa.Overloaded:
		return &Error{Code: CodeUnavailable, RetryAfter: RetryAfterOverloaded,
			Message: "too many requests are waiting for a browser; try again in a minute"}
	case kisa.TimedOut:
		return &Error{Code: CodeUnavailable, RetryAfter: RetryAfterTimedOut,
			Message: "the browser did not finish in time; try again shortly"}
	}
	return nil
}

// upstreamError is the one table from an answer of the completions
// upstream that is not a success (its status, its own message, its
// Retry-After in seconds) to what the client is told: the upstream's
// rate limit is the client's 429, a refusal of the request a 400 with the
// upstream's reason, anything else (its refusal of our credentials, its
// own failures) a 503.
func upstreamError(status int, detail string, retryAfter int) *Error {
	reason := ""
	if detail != "" {
		reason = ": " + detail
	}
	switch {
	case status == http.StatusTooManyRequests:
		return &Error{Code: CodeRateLimited, RetryAfter: max(retryAfter, 1),
			Message: "the completions upstream is rate limiting this service; retry later" + reason}
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return &Error{Code: CodeUnavailable, RetryAfter: RetryAfterBlocked,
			Message: "the completions upstream refused this service's credentials; completions are unavailable"}
	case status >= 400 && status < 500:
		return &Error{Code: CodeBadRequest,
			Message: fmt.Sprintf("the completions upstream rejected the request (HTTP %d)%s", status, reason)}
	}
	return &Error{Code: CodeUnavailable, RetryAfter: RetryAfterUnavailable,
		Message: fmt.Sprintf("the completions upstream failed (HTTP %d); try again shortly", status)}
}

// errUpstreamNotJSON is told when the completions upstream answers a
// success whose body is not JSON (or is over 8 MiB).
var errUpstreamNotJSON = &Error{Code: CodeUnavailable, RetryAfter: RetryAfterUnavailable,
	Message: "the completions upstream answered with something that is not JSON; try again shortly"}

// upstreamFailure is what the client is told when the completions
// upstream could not be reached or read (err, kept for the log): 503,
// saying whether it was too slow (ctx was cancelled by the time-out).
func upstreamFailure(ctx context.Context, timeout time.Duration, err error) error {
	e := &Error{Code: CodeUnavailable, RetryAfter: RetryAfterUnavailable,
		Message: "the completions upstream is unavailable; try again shortly"}
	if errors.Is(context.Cause(ctx), errUpstreamTimeout) {
		e = &Error{Code: CodeUnavailable, RetryAfter: RetryAfterTimedOut,
			Message: fmt.Sprintf("the completions upstream did not answer within %s; try again shortly", timeout)}
	}
	return fmt.Errorf("%w: %w", e, err)
}

// publicError is what the client is told of err: an *Error as it is, a
// kisa.Failure through failureError, and nil for anything else.
func publicError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	if f, part := kisa.FailureOf(err); f != kisa.Internal {
		return failureError(f, part)
	}
	return nil
}

// statusClientClosed is the status recorded, in the request log and the
// metrics, for a request whose client closed the connection before its
// answer was ready (nginx's 499, Client Closed Request). No answer reaches
// that client; the code keeps such requests out of the 5xx counts, which
// are the service's own failures.
const statusClientClosed = 499

// clientGone reports whether err ended a request because its client left:
// the request's context is cancelled (net/http does so when the
// connection closes) and err is that cancellation.
func clientGone(c *gin.Context, err error) bool {
	return errors.Is(err, context.Canceled) && errors.Is(c.Request.Context().Err(), context.Canceled)
}

// writeError answers err in the failure envelope. Application errors are
// told as they are; anything else is logged with the request id and
// answered with an incident phrase, its cause never echoed.
// A request whose client left is recorded as statusClientClosed, its
// cause logged at debug level only: it is neither an incident nor an
// unavailable part of the service.
func (s *Server) writeError(c *gin.Context, err error) {
	if clientGone(c, err) {
		s.log.DebugContext(c.Request.Context(), "client closed the request", slog.String("request_id", requestID(c)),
			slog.String("error", err.Error()))
		c.AbortWithStatus(statusClientClosed)
		return
	}
	e := publicError(err)
	if e != nil && error(e) != err {
		s.log.WarnContext(c.Request.Context(), "request failed", slog.String("request_id", requestID(c)),
			slog.String("error", err.Error()))
	}
	if e == nil {
		phrase := incidentPhrase()
		s.log.ErrorContext(c.Request.Context(), "internal error",
			slog.String("incident", phrase), slog.String("request_id", requestID(c)),
			slog.String("error", err.Error()))
		e = &Error{Code: CodeInternal, Message: "internal error, incident " + phrase}
	}
	if e.RetryAfter > 0 {
		c.Header("Retry-After", strconv.Itoa(e.RetryAfter))
	}
	status, ok := codeStatus[e.Code]
	if !ok {
		status = http.StatusInternalServerError
	}
	c.Abort()
	writeJSON(c, status, errorBody{Error: e.Message, Errors: e.Fields, Docs: e.Docs})
}

var (
	incidentAdjectives = []string{"amber", "brisk", "calm", "dusky", "eager", "faint", "gentle", "hollow", "icy", "jolly", "keen", "lucid", "mellow", "nimble", "olive", "pale", "quiet", "rusty", "silent", "tidy", "umber", "vivid", "wry", "young"}
	incidentNouns      = []string{"otter", "falcon", "badger", "heron", "lynx", "marten", "newt", "osprey", "puffin", "quail", "raven", "stoat", "tern", "viper", "walrus", "yak", "zebra", "bison", "crane", "dingo", "egret", "ferret", "gecko", "hare"}
)

// incidentPhrase makes the phrase that identifies one incident in the logs,
// e.g. "calm-otter-4821".
func incidentPhrase() string {
	pick := func(n int) int {
		v, err := rand.Int(rand.Reader, big.NewInt(int64(n)))
		if err != nil {
			return 0
		}
		return int(v.Int64())
	}
	return fmt.Sprintf("%s-%s-%04d", incidentAdjectives[pick(len(incidentAdjectives))],
		incidentNouns[pick(len(incidentNouns))], pick(10000))
}

// FailureMessage is what a job that failed with f in part tells its
// client, from the same table as the synchronous call's answer
// (failureError), and whether submitting it again may succeed (the
// answer would carry a Retry-After). Anything the table does not name
// is "internal error", not retryable.
func FailureMessage(f kisa.Failure, part kisa.Part) (message string, retryable bool) {
	if e := failureError(f, part); e != nil {
		return e.Message, e.RetryAfter > 0
	}
	return "internal error", false
}
