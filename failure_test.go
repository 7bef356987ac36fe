package kisa_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/kisa-dev/kisa"
)

func TestFailureOf(t *testing.T) {
	cause := errors.New("connection refused")
	tests := []struct {
		name     string
		err      error
		wantF    kisa.Failure
		wantPart kisa.Part
	}{
		{"nil", nil, "", ""},
		{"plain error is internal", cause, kisa.Internal, ""},
		{"context error is internal", context.Canceled, kisa.Internal, ""},
		{"wrapped failure", fmt.Errorf("%w: navigate: %w", kisa.Unavailable, cause), kisa.Unavailable, ""},
		{"blocked deep down", fmt.Errorf("visit: %w", fmt.Errorf("%w: /sorry/", kisa.Blocked)), kisa.Blocked, ""},
		{"error with part", kisa.Fail(kisa.Unavailable, kisa.PartCache, cause), kisa.Unavailable, kisa.PartCache},
		{"wrapped error with part", fmt.Errorf("run: %w", kisa.Fail(kisa.TimedOut, kisa.PartBrowser, nil)), kisa.TimedOut, kisa.PartBrowser},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, part := kisa.FailureOf(tt.err)
			if f != tt.wantF || part != tt.wantPart {
				t.Errorf("FailureOf(%v) = %q, %q; want %q, %q", tt.err, f, part, tt.wantF, tt.wantPart)
			}
		})
	}
}

func TestErrorUnwrapsToFailureAndCause(t *testing.T) {
	cause := errors.New("dial tcp: refused")
	err := kisa.Fail(kisa.Unavailable, kisa.PartStorage, cause)
	if !errors.Is(err, kisa.Unavailable) || !errors.Is(err, cause) || errors.Is(err, kisa.Blocked) {
		t.Errorf("errors.Is on %v: want Unavailable and the cause only", err)
	}
	if got, want := err.Error(), "unavailable (screenshot storage): dial tcp: refused"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

// TestDescribe checks the message and the retryability of each failure
// that the API and a failed job tell, and that a part stored by an older
// release (its name, not its code) is still told.
func TestDescribe(t *testing.T) {
	tests := []struct {
		name      string
		f         kisa.Failure
		part      kisa.Part
		want      string
		retryable bool
	}{
		{"blocked", kisa.Blocked, kisa.PartBrowser, "the search engine refused the request (CAPTCHA); try again later", true},
		{"blocked by an assistant", kisa.Blocked, kisa.PartAssistant, "the AI assistant refused the visit (a human check, a sign-in wall or a usage limit); try again later", true},
		{"an assistant's own error", kisa.Unavailable, kisa.PartAssistant, "the AI assistant is unavailable; try again shortly", true},
		{"cache down", kisa.Unavailable, kisa.PartCache, "the result cache is unavailable; try again shortly", true},
		{"queue down", kisa.Unavailable, kisa.PartQueue, "the task queue is unavailable; try again shortly", true},
		{"storage down", kisa.Unavailable, kisa.PartStorage, "screenshot storage is unavailable; try again shortly", true},
		{"part unknown", kisa.Unavailable, "", "a backing service is unavailable; try again shortly", true},
		{"part of an older release", kisa.Unavailable, "the result cache", "the result cache is unavailable; try again shortly", true},
		{"queue full", kisa.Overloaded, kisa.PartQueue, "too many requests are waiting for a browser; try again in a minute", true},
		{"timed out", kisa.TimedOut, kisa.PartBrowser, "the browser did not finish in time; try again shortly", true},
		{"job not found", kisa.NotFound, kisa.PartJob, "job not found", false},
		{"invalid", kisa.Invalid, "", "validation failed", false},
		{"unrecognised", kisa.Unrecognised, "", "internal error", false},
		{"internal", kisa.Internal, "", "internal error", false},
		{"a failure of no known kind", kisa.Failure("gone"), "", "internal error", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := kisa.Describe(tt.f, tt.part); got != tt.want {
				t.Errorf("Describe(%q, %q) = %q, want %q", tt.f, tt.part, got, tt.want)
			}
			if got := tt.f.Retryable(); got != tt.retryable {
				t.Errorf("%q.Retryable() = %v, want %v", tt.f, got, tt.retryable)
			}
		})
	}
}

// TestErrorOf checks what a caller is told of an error: its own message
// when it has one, else its failure's, and Internal for a plain error.
func TestErrorOf(t *testing.T) {
	cause := errors.New("dial tcp: refused")
	tests := []struct {
		name  string
		err   error
		wantF kisa.Failure
		want  string
	}{
		{"own message", fmt.Errorf("list: %w", kisa.Failf(kisa.NotFound, "no such file")), kisa.NotFound, "no such file"},
		{"failure's message", kisa.Fail(kisa.NotFound, kisa.PartBatch, nil), kisa.NotFound, "batch not found"},
		{"bare failure", fmt.Errorf("%w: x", kisa.Overloaded), kisa.Overloaded, "too many requests are waiting for a browser; try again in a minute"},
		{"plain error", cause, kisa.Internal, "internal error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := kisa.ErrorOf(tt.err)
			if e.Failure != tt.wantF || e.Told() != tt.want {
				t.Errorf("ErrorOf(%v) = %q telling %q; want %q telling %q", tt.err, e.Failure, e.Told(), tt.wantF, tt.want)
			}
		})
	}
	if kisa.ErrorOf(nil) != nil {
		t.Error("ErrorOf(nil) is not nil")
	}
}
