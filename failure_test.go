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
