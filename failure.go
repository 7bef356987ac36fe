package kisa

import "errors"

// Failure is the one vocabulary of what can go wrong with an overview
// request. Lower layers wrap it into their errors
// (fmt.Errorf("%w: navigate: %w", kisa.Unavailable, err)), the worker
// records it in the job's outcome, and the API maps it to a status, a
// message and a Retry-After in one table (api/errors.go). Nobody
// re-classifies error strings.
type Failure string

// The failures, from the most specific to the least.
const (
	// Blocked: the search engine answered with its CAPTCHA ("unusual
	// traffic") page instead of results. Retrying at once does not help.
	Blocked Failure = "blocked"
	// Unavailable: a part the request needs (the result cache, the job
	// queue, the browser, screenshot storage, the database) did not answer.
	Unavailable Failure = "unavailable"
	// Overloaded: more visits wait for a browser than the workers can
	// start soon (the queue is full); a new one is refused at once.
	Overloaded Failure = "overloaded"
	// TimedOut: the browser or the job did not finish within its deadline.
	TimedOut Failure = "timed_out"
	// Unrecognised: the page shows an overview that no known page
	// generation can read.
	Unrecognised Failure = "unrecognised"
	// Internal: anything else, a bug; its cause is logged, never told.
	Internal Failure = "internal"
)

// Error makes a Failure an error, so that it can be wrapped and found
// with errors.Is.
func (f Failure) Error() string { return string(f) }

// Part names what failed, for the message a client is told, e.g. "the
// result cache". Error carries it.
type Part string

// The parts of the service a failure can be told about.
const (
	PartCache    Part = "the result cache"
	PartQueue    Part = "the job queue"
	PartBrowser  Part = "the browser"
	PartStorage  Part = "screenshot storage"
	PartDatabase Part = "the database"
	PartService  Part = "the overview service"
)

// Error is a failure of one part of the service with its cause (for logs
// only). errors.Is(err, kisa.Unavailable) holds for an *Error of that
// failure.
type Error struct {
	Failure Failure
	Part    Part
	Err     error
}

// Fail returns an *Error of failure f in part, caused by err (may be nil).
func Fail(f Failure, part Part, err error) error {
	return &Error{Failure: f, Part: part, Err: err}
}

// Error describes e for logs: failure, part and cause.
func (e *Error) Error() string {
	s := string(e.Failure)
	if e.Part != "" {
		s += " (" + string(e.Part) + ")"
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
	for _, f := range []Failure{Blocked, Overloaded, TimedOut, Unrecognised, Unavailable, Internal} {
		if errors.Is(err, f) {
			return f, ""
		}
	}
	return Internal, ""
}
