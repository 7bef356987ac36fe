package api

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"math/big"
	"net/http"
	"strconv"
	"sync"

	"github.com/gin-gonic/gin"

	"github.com/kisa-dev/kisa"
)

// kindAnswer is how the API answers one kind of failure: its status, and
// the Retry-After in seconds of the kinds that say "try again" (0: none).
// A failure that knows its own wait (kisa.Error.RetryAfter) tells that
// instead.
type kindAnswer struct {
	status     int
	retryAfter int
}

// kindAnswers is the one table from a kind of failure to HTTP. A kind it does
// not name (kisa.Unrecognised, kisa.Internal) is an incident: a 500 whose
// cause is only logged.
var kindAnswers = map[kisa.Failure]kindAnswer{
	kisa.BadRequest:       {http.StatusBadRequest, 0},
	kisa.Unauthorized:     {http.StatusUnauthorized, 0},
	kisa.Forbidden:        {http.StatusForbidden, 0},
	kisa.NotFound:         {http.StatusNotFound, 0},
	kisa.MethodNotAllowed: {http.StatusMethodNotAllowed, 0},
	kisa.TooLarge:         {http.StatusRequestEntityTooLarge, 0},
	kisa.Invalid:          {http.StatusUnprocessableEntity, 0},
	kisa.Limited:          {http.StatusTooManyRequests, 1},
	kisa.Blocked:          {http.StatusServiceUnavailable, RetryAfterBlocked},
	kisa.Unavailable:      {http.StatusServiceUnavailable, RetryAfterUnavailable},
	kisa.Overloaded:       {http.StatusServiceUnavailable, RetryAfterOverloaded},
	kisa.TimedOut:         {http.StatusServiceUnavailable, RetryAfterTimedOut},
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
	// RetryAfterTimedOut: the visit is still running or queued; its result
	// is cached when it ends, so a retry soon is often answered at once.
	RetryAfterTimedOut = 10
)

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

// writeError answers err in the failure envelope: its kind's status and
// Retry-After (kindAnswers) and what it tells (kisa.Error.Told). A kind the
// table does not name is logged with the request id and answered with an
// incident phrase, its cause never echoed; a failure with a cause is
// logged as a warning.
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
	noteFailure(c, err)
	e := kisa.ErrorOf(err)
	a, told := kindAnswers[e.Failure]
	switch {
	case !told:
		phrase := incidentPhrase()
		s.log.ErrorContext(c.Request.Context(), "internal error",
			slog.String("incident", phrase), slog.String("request_id", requestID(c)),
			slog.String("error", err.Error()))
		e = &kisa.Error{Failure: kisa.Internal, Message: "internal error, incident " + phrase}
		a = kindAnswer{status: http.StatusInternalServerError}
	case error(e) != err || e.Err != nil:
		s.log.WarnContext(c.Request.Context(), "request failed", slog.String("request_id", requestID(c)),
			slog.String("error", err.Error()))
	}
	if wait := retryAfter(e, a); wait > 0 {
		c.Header("Retry-After", strconv.Itoa(wait))
	}
	c.Abort()
	writeJSON(c, a.status, errorBody{Error: e.Told(), Errors: e.Fields, Docs: e.Docs})
}

// retryAfter is the Retry-After of e, in whole seconds: its own wait when
// it knows one, else its kind's (a); 0 for none.
func retryAfter(e *kisa.Error, a kindAnswer) int {
	if e.RetryAfter > 0 {
		return max(1, int(math.Ceil(e.RetryAfter.Seconds())))
	}
	return a.retryAfter
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
