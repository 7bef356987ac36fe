package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kisa-dev/kisa/testenv"
)

// cliRun runs the program as main does and returns what it printed.
func cliRun(tb testing.TB, getenv func(string) string, stdin string, args ...string) (stdout, stderr string, err error) {
	tb.Helper()
	var out, errOut bytes.Buffer
	err = run(context.Background(), args, getenv, strings.NewReader(stdin), &out, &errOut)
	return out.String(), errOut.String(), err
}

func TestHelp(t *testing.T) {
	noEnv := testenv.Environ()
	tests := []struct {
		name     string
		args     []string
		wantErr  error
		wantOuts []string // lines stdout must hold
	}{
		{name: "kisa --help", args: []string{"--help"}, wantOuts: []string{
			"Usage: kisa <command> [flags]",
			"  web           run the HTTP API",
			"  worker        run a browser worker",
			"  migrate       apply the database migrations",
			"  admin         manage accounts, keys and resources (kisa admin --help)",
			"  healthcheck   exit 0 when the local web (or, with --worker, worker) is ready",
		}},
		{name: "kisa help", args: []string{"help"}, wantOuts: []string{"Usage: kisa <command> [flags]"}},
		{name: "kisa admin --help", args: []string{"admin", "--help"}, wantOuts: []string{
			"Usage: kisa admin <command> [flags]",
			"  account create       create an account",
			"  account set-2fa      record whether an account has 2FA enabled",
			"  account set-limits   set the per-minute budgets of an account's keys",
			"  key create           create an API key",
			"  key revoke           revoke an API key",
			"  cluster create       create a knowledge-base cluster",
			"  integration create   create an integration",
			"  secret create        store a secret (encrypted)",
			"  secret rotate-key    re-encrypt every secret under KISA_SECRETS_KEY",
			"  demo                 create (or reuse) the demo account",
		}},
		{name: "kisa admin key create --help", args: []string{"admin", "key", "create", "--help"}, wantErr: flag.ErrHelp,
			wantOuts: []string{
				"Usage: kisa admin key create [flags]",
				"  -account value",
				"    \taccount id (required)",
				"  -scopes string",
				"    \tcomma-separated scopes (default all: knowledgebase:read,integrations:read,secrets:read,overview:run,completions:run,monitors,observations:read,usage:read)",
			}},
		{name: "kisa admin secret create -h", args: []string{"admin", "secret", "create", "-h"}, wantErr: flag.ErrHelp,
			wantOuts: []string{"  -account value", "  -name string", "  -value string",
				"    \tsecret value; - reads it from standard input (required)"}},
		{name: "kisa admin secret rotate-key -h", args: []string{"admin", "secret", "rotate-key", "-h"}, wantErr: flag.ErrHelp,
			wantOuts: []string{"  -old-key string",
				"    \t- reads the old key (base64) once from standard input (required); the new key is KISA_SECRETS_KEY"}},
		{name: "kisa admin cluster create --help", args: []string{"admin", "cluster", "create", "--help"}, wantErr: flag.ErrHelp,
			wantOuts: []string{"  -account value", "  -metadata string", "  -name string", "  -type string"}},
		{name: "kisa web --help", args: []string{"web", "--help"}, wantErr: flag.ErrHelp,
			wantOuts: []string{"Usage: kisa web [flags]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, err := cliRun(t, noEnv, "", tt.args...)
			if !errors.Is(err, tt.wantErr) || (err == nil) != (tt.wantErr == nil) {
				t.Errorf("error = %v, want %v", err, tt.wantErr)
			}
			lines := strings.Split(stdout, "\n")
			for _, want := range tt.wantOuts {
				if !containsPrefix(lines, want) {
					t.Errorf("help lacks a line starting %q:\n%s", want, stdout)
				}
			}
			if stderr != "" {
				t.Errorf("help wrote to stderr: %q", stderr)
			}
		})
	}
}

func containsPrefix(lines []string, prefix string) bool {
	for _, l := range lines {
		if strings.HasPrefix(l, prefix) {
			return true
		}
	}
	return false
}

func TestBadInvocation(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		want       string
		wantStdout bool // usage on stdout is expected
	}{
		{name: "no command", args: nil, want: "no command given", wantStdout: true},
		{name: "unknown command", args: []string{"frobnicate"}, want: `unknown command "frobnicate"`},
		{name: "unknown admin command", args: []string{"admin", "key", "rotate"}, want: `admin: unknown command "key rotate"`},
		{name: "admin without command", args: []string{"admin"}, want: "admin: no command given", wantStdout: true},
		{name: "stray argument", args: []string{"migrate", "now"}, want: `migrate: unexpected argument "now"`},
		{name: "unknown flag", args: []string{"admin", "cluster", "create", "--colour", "red"}, want: "flag provided but not defined: -colour"},
	}
	// After a bad flag the help goes to stderr, with the error.
	_, stderr, _ := cliRun(t, testenv.Environ(), "", "admin", "key", "create", "--account", "x")
	if !strings.HasPrefix(stderr, "invalid value \"x\" for flag -account: must be a UUID\nUsage: kisa admin key create [flags]") {
		t.Errorf("stderr after a bad flag = %q, want the error and then the help", stderr)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, _, err := cliRun(t, testenv.Environ(), "", tt.args...)
			if err == nil || err.Error() != tt.want {
				t.Errorf("error = %v, want %q", err, tt.want)
			}
			if !tt.wantStdout && stdout != "" {
				t.Errorf("stdout = %q, want nothing", stdout)
			}
		})
	}
}

// TestConfigErrors: a bad setting stops a command with an error that
// names the variable, before anything is written.
func TestConfigErrors(t *testing.T) {
	db := testenv.Postgres(t)
	good := []string{"DATABASE_URL=" + testenv.DatabaseURL(), "KISA_SECRETS_KEY=" + testenv.SecretsKey()}
	tests := []struct {
		name string
		env  []string
		want string
	}{
		{name: "PORT=abc", env: []string{"PORT=abc"}, want: `PORT: "abc" is not a whole number`},
		{name: "short secrets key", env: []string{"KISA_SECRETS_KEY=short"},
			want: "KISA_SECRETS_KEY: must be 32 bytes encoded in base64 (try: head -c32 /dev/urandom | base64)"},
		{name: "no secrets key", env: []string{"KISA_SECRETS_KEY="},
			want: "KISA_SECRETS_KEY: must be set to 32 bytes encoded in base64 (try: head -c32 /dev/urandom | base64)"},
		{name: "SSL maybe", env: []string{"KISA_S3_USE_SSL=maybe"}, want: `KISA_S3_USE_SSL: "maybe" is not true or false`},
		{name: "MySQL", env: []string{"DATABASE_URL=mysql://x"}, want: "DATABASE_URL: must be a postgres:// URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := "cfg-test-" + testenv.RandomHex(6)
			getenv := testenv.Environ(append(append([]string{}, good...), tt.env...)...)
			stdout, _, err := cliRun(t, getenv, "", "admin", "account", "create", "--name", name)
			if err == nil {
				t.Fatalf("accepted")
			}
			if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			if stdout != "" {
				t.Errorf("stdout = %q, want nothing", stdout)
			}
			if n := countRows(t, db, `SELECT count(*) FROM accounts WHERE name = $1`, name); n != 0 {
				t.Errorf("%d accounts created", n)
			}
		})
	}
}
