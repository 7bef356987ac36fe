package kisa

import (
	"errors"
	"fmt"
	"time"
)

// Failure is the one vocabulary of what can go wrong, for every layer and
// both processes: storage says NotFound, the API's parsers BadRequest and
// Invalid, the limits Limited, the visit path Blocked, Unavailable,
// Overloaded, TimedOut and Unrecognised, and anything else is Internal.
// Lower layers wrap it into their errors
// (fmt.Errorf("%w: navigate: %w", kisa.Unavailable, err), or Fail), the
// worker records it in a visit's outcome, an async job tells its message
// (Describe), and the API maps each kind to a status and a Retry-After in
// one table (api/errors.go). Its value is also the label that metrics and
// logs use. Nobody re-classifies error strings.
type Failure string

// The failures a caller acts on, from the most specific to the least.
const (
	// BadRequest: the request cannot be read (not JSON, not an object, a
	// body that cannot be read), or a service it was forwarded to refused
	// it as such.
	BadRequest Failure = "bad_request"
	// Unauthorized: the request carries no valid credentials.
	Unauthorized Failure = "unauthorized"
	// Forbidden: the credentials are valid but may not do this.
	Forbidden Failure = "forbidden"
	// NotFound: the thing named (Part) does not exist, or belongs to
	// another account; the two cannot be told apart, by design.
	NotFound Failure = "not_found"
	// MethodNotAllowed: the resource exists but not with this method.
	MethodNotAllowed Failure = "method_not_allowed"
	// TooLarge: the request body is larger than the service reads.
	TooLarge Failure = "too_large"
	// Invalid: the request was read but breaks a rule; Error.Fields says
	// what is wrong with each field.
	Invalid Failure = "invalid"
	// Limited: a budget of the caller is spent (requests per minute, or
	// requests waiting at once); Error.RetryAfter says when to try again.
	Limited Failure = "limited"
	// Blocked: the search engine answered with its CAPTCHA ("unusual
	// traffic") page instead of results. Retrying at once does not help.
	Blocked Failure = "blocked"
	// Unavailable: a part the request needs (the result cache, the task
	// queue, the browser, screenshot storage, the database) did not answer.
	Unavailable Failure = "unavailable"
	// Overloaded: more visits wait for a browser than the workers can
	// start soon (the queue is full); a new one is refused at once.
	Overloaded Failure = "overloaded"
	// TimedOut: the browser or the visit did not finish within its deadline.
	TimedOut Failure = "timed_out"
	// Unrecognised: the page shows an overview that no known page
	// generation can read.
	Unrecognised Failure = "unrecognised"
	// Internal: anything else, a bug; its cause is logged, never told.
	Internal Failure = "internal"
)

// failures lists every Failure in the order FailureOf looks for them.
var failures = []Failure{BadRequest, Unauthorized, Forbidden, NotFound, MethodNotAllowed, TooLarge, Invalid,
	Limited, Blocked, Overloaded, TimedOut, Unrecognised, Unavailable, Internal}

// Error makes a Failure an error, so that it can be wrapped and found
// with errors.Is.
func (f Failure) Error() string { return string(f) }

// Retryable reports whether the same request may succeed later: the
// failures of a part that is busy, down or blocked for now, and a spent
// budget. The others fail again until the request or the code changes.
func (f Failure) Retryable() bool {
	switch f {
	case Limited, Blocked, Unavailable, Overloaded, TimedOut:
		return true
	}
	return false
}

// Part names what failed, or what was not found: a code such as "cache"
// or "job", stored with a failed job and published with a visit's
// outcome. Name is how a message says it.
type Part string

// The parts of the service a failure can be told about.
const (
	PartCache    Part = "cache"
	PartQueue    Part = "queue"
	PartBrowser  Part = "browser"
	PartStorage  Part = "storage"
	PartDatabase Part = "database"
	PartService  Part = "service"
	// PartAssistant is an AI assistant's site (ChatGPT, Perplexity,
	// Gemini, Copilot): it refused a visit (Blocked) or answered with
	// its own error (Unavailable).
	PartAssistant Part = "assistant"
)

// The things a NotFound failure can name.
const (
	PartAccount     Part = "account"
	PartAPIKey      Part = "api_key"
	PartIntegration Part = "integration"
	PartSecret      Part = "secret"
	PartJob         Part = "job"
	PartBatch       Part = "batch"
	PartMonitor     Part = "monitor"
	PartTarget      Part = "target"
	PartRun         Part = "run"
	PartReading     Part = "reading"
)

var partNames = map[Part]string{
	PartCache: "the result cache", PartQueue: "the task queue", PartBrowser: "the browser",
	PartStorage: "screenshot storage", PartDatabase: "the database", PartService: "the overview service", PartAssistant: "the AI assistant",
	PartAccount: "account", PartAPIKey: "API key", PartIntegration: "integration", PartSecret: "secret",
	PartJob: "job", PartBatch: "batch", PartMonitor: "monitor", PartTarget: "target", PartRun: "run", PartReading: "reading",
}

// Name is how a message names p, e.g. "the result cache". A part it does
// not know (a job failed by an older release stored the name itself) is
// named as it is.
func (p Part) Name() string {
	if n, ok := partNames[p]; ok {
		return n
	}
	return string(p)
}

// Describe is the message that tells a failure f of part: what the API
// answers and what a failed job says, unless the error carries a message
// of its own (Error.Message).
func Describe(f Failure, part Part) string {
	switch f {
	case BadRequest:
		return "bad request"
	case Unauthorized:
		return "unauthorized"
	case Forbidden:
		return "forbidden"
	case NotFound:
		if part == "" {
			return "not found"
		}
		return part.Name() + " not found"
	case MethodNotAllowed:
		return "method not allowed"
	case TooLarge:
		return "request body is too large"
	case Invalid:
		return "validation failed"
	case Limited:
		return "rate limit exceeded; retry later"
	case Blocked:
		if part == PartAssistant {
			return "the AI assistant refused the visit (a human check, a sign-in wall or a usage limit); try again later"
		}
		return "the search engine refused the request (CAPTCHA); try again later"
	case Unavailable:
		name := "a backing service"
		if part != "" {
			name = part.Name()
		}
		return name + " is unavailable; try again shortly"
	case Overloaded:
		return "too many requests are waiting for a browser; try again in a minute"
	case TimedOut:
		return "the browser did not finish in time; try again shortly"
	}
	return "internal error"
}

// Error is a failure with what is known about it: the part that failed,
// what the caller is told, and the cause (for logs only). errors.Is(err,
// kisa.Unavailable) holds for an *Error of that failure.
type Error struct {
	Failure Failure
	Part    Part
	// Message is what the caller is told; "" tells Describe(Failure, Part).
	Message string
	// Fields maps a request field path to what is wrong with it (Invalid).
	Fields map[string]string
	// Docs is a documentation URL for the failure, when there is one.
	Docs string
	// RetryAfter is when the caller may try again, when the failure knows
	// better than its kind (a spent budget's own wait); 0 otherwise.
	RetryAfter time.Duration
	// Err is the cause, logged and never told.
	Err error
}

// Fail returns an *Error of failure f in part, caused by err (may be nil).
func Fail(f Failure, part Part, err error) error {
	return &Error{Failure: f, Part: part, Err: err}
}

// Failf returns an *Error of failure f that tells a formatted message.
func Failf(f Failure, format string, args ...any) *Error {
	return &Error{Failure: f, Message: fmt.Sprintf(format, args...)}
}

// InvalidFields returns the Invalid failure of a request whose fields
// break its rules: fields maps each field path to what is wrong with it.
func InvalidFields(fields map[string]string) *Error {
	return &Error{Failure: Invalid, Message: Describe(Invalid, ""), Fields: fields}
}

// Error describes e for logs: failure, part, message and cause.
func (e *Error) Error() string {
	s := string(e.Failure)
	if e.Part != "" {
		s += " (" + e.Part.Name() + ")"
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the failure and the cause, for errors.Is and errors.As.
func (e *Error) Unwrap() []error {
	if e.Err == nil {
		return []error{e.Failure}
	}
	return []error{e.Failure, e.Err}
}

// Told is what the caller is told of e: its Message, else the failure's.
func (e *Error) Told() string {
	if e.Message != "" {
		return e.Message
	}
	return Describe(e.Failure, e.Part)
}

// FailureOf returns the failure err carries, and the part when an *Error
// names one: the first Failure found in err's tree, Internal when there is
// none, "" for a nil err.
func FailureOf(err error) (Failure, Part) {
	if err == nil {
		return "", ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Failure, e.Part
	}
	for _, f := range failures {
		if errors.Is(err, f) {
			return f, ""
		}
	}
	return Internal, ""
}

// ErrorOf returns the *Error err carries, or one of the failure it
// carries (Internal when none) with err as its cause; nil for a nil err.
func ErrorOf(err error) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	f, _ := FailureOf(err)
	return &Error{Failure: f, Err: err}
}
