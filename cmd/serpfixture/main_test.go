package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"net/http"
	"strings"
	"testing"
)

func TestHelp(t *testing.T) {
	var out, errOut bytes.Buffer
	err := run(context.Background(), []string{"--help"}, &out, &errOut)
	if !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("run --help: %v, want flag.ErrHelp", err)
	}
	for _, want := range []string{"Usage: serpfixture [flags]", "-addr string", "-consent", "-delay duration"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("help lacks %q:\n%s", want, out.String())
		}
	}
}

func TestBadArguments(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{name: "unknown flag", args: []string{"--nope"}, want: "flag provided but not defined: -nope"},
		{name: "stray argument", args: []string{"serve"}, want: `unexpected argument "serve"`},
		{name: "bad address", args: []string{"--addr", "127.0.0.1:notaport"}, want: "--addr:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			err := run(context.Background(), tt.args, &out, io.Discard)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("run %v: %v, want an error containing %q", tt.args, err, tt.want)
			}
			if out.Len() > 0 {
				t.Errorf("stdout: %q, want nothing", out.String())
			}
		})
	}
}

// TestServes runs the command on port 0, reads its address from the log,
// fetches a page and stops it.
func TestServes(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	logs := newLineWriter()
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"--addr", "127.0.0.1:0", "--consent=false"}, io.Discard, logs) }()
	var url string
	select {
	case line := <-logs.lines:
		_, rest, ok := strings.Cut(line, `"url":"`)
		url, _, _ = strings.Cut(rest, `"`)
		if !ok || url == "" {
			t.Errorf("first log line has no url: %s", line)
		}
	case err := <-done:
		cancel()
		t.Fatalf("run returned before serving: %v", err)
	}
	if url != "" {
		checkPage(t, url+"?q=why+is+the+sky+blue&hl=en&final=1", "Why is the sky blue")
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("run after cancel: %v", err)
	}
}

// checkPage fetches url and checks that the page holds want.
func checkPage(tb testing.TB, url, want string) {
	tb.Helper()
	resp, err := http.Get(url)
	if err != nil {
		tb.Errorf("GET %s: %v", url, err)
		return
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK || !strings.Contains(string(body), want) {
		tb.Errorf("GET %s: status %d, error %v, page holds %q: %t", url, resp.StatusCode, err, want, strings.Contains(string(body), want))
	}
}

// lineWriter sends each write (slog writes one line per call) to lines,
// dropping what nobody waits for.
type lineWriter struct{ lines chan string }

func newLineWriter() *lineWriter { return &lineWriter{lines: make(chan string, 16)} }

func (w *lineWriter) Write(p []byte) (int, error) {
	select {
	case w.lines <- string(p):
	default:
	}
	return len(p), nil
}
