package main

import (
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"

	"github.com/kisa-dev/kisa/api"
	"github.com/kisa-dev/kisa/storage"
	"github.com/kisa-dev/kisa/testenv"
)

// cliEnv is the environment admin commands run in, with the stores they
// write to opened by the test.
type cliEnv struct {
	db      *storage.DB
	secrets *storage.Secrets // same key as the commands'
	key     string           // that key, base64
	getenv  func(string) string
}

func newCLIEnv(tb testing.TB, extra ...string) cliEnv {
	tb.Helper()
	db := testenv.Postgres(tb)
	key := testenv.SecretsKey()
	raw, err := base64.StdEncoding.DecodeString(key)
	if err != nil {
		tb.Fatal(err)
	}
	secrets, err := storage.NewSecrets(db, raw)
	if err != nil {
		tb.Fatal(err)
	}
	pairs := append([]string{"DATABASE_URL=" + testenv.DatabaseURL(), "KISA_SECRETS_KEY=" + key}, extra...)
	return cliEnv{db: db, secrets: secrets, key: key, getenv: testenv.Environ(pairs...)}
}

// ok runs an admin command that must succeed and returns the one JSON
// object it printed.
func (e cliEnv) ok(tb testing.TB, stdin string, args ...string) map[string]any {
	tb.Helper()
	stdout, stderr, err := cliRun(tb, e.getenv, stdin, append([]string{"admin"}, args...)...)
	if err != nil {
		tb.Fatalf("kisa admin %s: %v (stderr %q)", strings.Join(args, " "), err, stderr)
	}
	return oneObject(tb, stdout)
}

// oneObject fails unless stdout is exactly one JSON object on one line.
func oneObject(tb testing.TB, stdout string) map[string]any {
	tb.Helper()
	if strings.Count(stdout, "\n") != 1 || !strings.HasSuffix(stdout, "\n") {
		tb.Fatalf("stdout is not one line: %q", stdout)
	}
	dec := json.NewDecoder(strings.NewReader(stdout))
	var m map[string]any
	if err := dec.Decode(&m); err != nil || m == nil {
		tb.Fatalf("stdout is not a JSON object: %v: %q", err, stdout)
	}
	if dec.More() {
		tb.Fatalf("stdout has more than one JSON value: %q", stdout)
	}
	return m
}

// anyID in a wanted object stands for a freshly made UUID.
const anyID = "<any UUID>"

// checkOut compares an object printed by a command with want.
func checkOut(tb testing.TB, want, got map[string]any) {
	tb.Helper()
	want = maps(want)
	for k, v := range want {
		if v == anyID {
			if s, _ := got[k].(string); uuid.Validate(s) == nil && len(s) == 36 {
				want[k] = s
			}
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		tb.Errorf("printed object (-want +got):\n%s", diff)
	}
}

func maps(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func countRows(tb testing.TB, db *storage.DB, query string, args ...any) int {
	tb.Helper()
	var n int
	if err := db.SQL().QueryRowContext(context.Background(), query, args...).Scan(&n); err != nil {
		tb.Fatal(err)
	}
	return n
}

// rows is what an account holds, to show a failed command wrote nothing.
type rows struct {
	Keys, Clusters, Integrations, Secrets int
	TwoFactor                             bool
	Limits                                string // "ai,other", null for none
}

func snapshot(tb testing.TB, db *storage.DB, account uuid.UUID) rows {
	tb.Helper()
	r := rows{
		Keys:         countRows(tb, db, `SELECT count(*) FROM api_keys WHERE account_id = $1`, account),
		Clusters:     countRows(tb, db, `SELECT count(*) FROM clusters WHERE account_id = $1`, account),
		Integrations: countRows(tb, db, `SELECT count(*) FROM integrations WHERE account_id = $1`, account),
		Secrets:      countRows(tb, db, `SELECT count(*) FROM secrets WHERE account_id = $1`, account),
	}
	r.TwoFactor = countRows(tb, db, `SELECT count(*) FROM accounts WHERE id = $1 AND two_factor_enabled`, account) == 1
	err := db.SQL().QueryRowContext(context.Background(), `SELECT coalesce(limit_ai::text, 'null') || ',' || coalesce(limit_other::text, 'null')
		FROM accounts WHERE id = $1`, account).Scan(&r.Limits)
	if err != nil && err != sql.ErrNoRows {
		tb.Fatal(err)
	}
	return r
}

// newCLIAccount creates an account through the command line.
func (e cliEnv) newCLIAccount(tb testing.TB, twoFA bool) uuid.UUID {
	tb.Helper()
	args := []string{"account", "create", "--name", "cli-test-" + testenv.RandomHex(6)}
	if twoFA {
		args = append(args, "--2fa")
	}
	return uuid.MustParse(e.ok(tb, "", args...)["id"].(string))
}

func TestAdminGoodInput(t *testing.T) {
	e := newCLIEnv(t)
	acc := e.newCLIAccount(t, true)
	keyID := e.ok(t, "", "key", "create", "--account", acc.String())["id"].(string)
	websiteMeta := `{"url":"https://www.example.com","title":"Example","pullType":"entire-website","excludeFooter":true,"excludeHeader":false}`

	tests := []struct {
		name  string
		args  []string
		stdin string
		want  map[string]any
		check func(t *testing.T, out map[string]any) // what the database holds afterwards
	}{
		{name: "account create", args: []string{"account", "create", "--name", "  cli-test-named  "},
			want: map[string]any{"id": anyID},
			check: func(t *testing.T, out map[string]any) {
				n := countRows(t, e.db, `SELECT count(*) FROM accounts WHERE id = $1 AND name = 'cli-test-named' AND NOT two_factor_enabled`, out["id"])
				if n != 1 {
					t.Errorf("account not stored as named, trimmed, without 2FA")
				}
			}},
		{name: "account set-2fa false", args: []string{"account", "set-2fa", "--account", acc.String(), "--enabled=false"},
			want: map[string]any{"id": acc.String(), "two_factor_enabled": false},
			check: func(t *testing.T, _ map[string]any) {
				if snapshot(t, e.db, acc).TwoFactor {
					t.Errorf("2FA still on")
				}
			}},
		{name: "account set-2fa true", args: []string{"account", "set-2fa", "--account", acc.String(), "--enabled", "true"},
			want: map[string]any{"id": acc.String(), "two_factor_enabled": true},
			check: func(t *testing.T, _ map[string]any) {
				if !snapshot(t, e.db, acc).TwoFactor {
					t.Errorf("2FA still off")
				}
			}},
		{name: "account set-limits", args: []string{"account", "set-limits", "--account", acc.String(), "--ai", "5", "--other", "1000000000"},
			want:  map[string]any{"id": acc.String(), "limit_ai": 5.0, "limit_other": 1e9},
			check: limitsAre(e, acc, "5,1000000000")},
		{name: "account set-limits: other back to the default", args: []string{"account", "set-limits", "--account", acc.String(), "--other", "default"},
			want:  map[string]any{"id": acc.String(), "limit_ai": 5.0, "limit_other": nil},
			check: limitsAre(e, acc, "5,null")},
		{name: "account set-limits: 0 is no limit", args: []string{"account", "set-limits", "--account", acc.String(), "--ai", "0"},
			want:  map[string]any{"id": acc.String(), "limit_ai": 0.0, "limit_other": nil},
			check: limitsAre(e, acc, "0,null")},
		{name: "account store-queries true", args: []string{"account", "store-queries", "--account", acc.String(), "--enabled", "true"},
			want: map[string]any{"id": acc.String(), "store_queries": true},
			check: func(t *testing.T, _ map[string]any) {
				if n := countRows(t, e.db, `SELECT count(*) FROM accounts WHERE id = $1 AND store_queries`, acc); n != 1 {
					t.Errorf("store_queries still off")
				}
			}},
		{name: "key create with scopes", args: []string{"key", "create", "--account", acc.String(), "--scopes", "knowledgebase:read, overview:run"},
			want: map[string]any{"id": anyID, "key": "<checked below>"},
			check: func(t *testing.T, out map[string]any) {
				n := countRows(t, e.db, `SELECT count(*) FROM api_keys WHERE id = $1 AND scopes = '{knowledgebase:read,overview:run}'`, out["id"])
				if n != 1 {
					t.Errorf("key not stored with its two scopes")
				}
			}},
		{name: "key revoke", args: []string{"key", "revoke", "--id", keyID},
			want: map[string]any{"id": keyID, "revoked": true},
			check: func(t *testing.T, _ map[string]any) {
				if countRows(t, e.db, `SELECT count(*) FROM api_keys WHERE id = $1 AND revoked_at IS NOT NULL`, keyID) != 1 {
					t.Errorf("key not revoked")
				}
			}},
		{name: "cluster create", args: []string{"cluster", "create", "--account", acc.String(), "--name", "  Site ", "--type", " website", "--metadata", websiteMeta},
			want: map[string]any{"id": anyID},
			check: func(t *testing.T, out map[string]any) {
				n := countRows(t, e.db, `SELECT count(*) FROM clusters WHERE id = $1 AND account_id = $2 AND name = 'Site' AND type = 'website' AND metadata = $3::jsonb`,
					out["id"], acc, websiteMeta)
				if n != 1 {
					t.Errorf("cluster not stored as given, name and type trimmed")
				}
			}},
		{name: "cluster create without metadata", args: []string{"cluster", "create", "--account", acc.String(), "--name", "Map", "--type", "sitemap"},
			want: map[string]any{"id": anyID},
			check: func(t *testing.T, out map[string]any) {
				if countRows(t, e.db, `SELECT count(*) FROM clusters WHERE id = $1 AND metadata = '{}'::jsonb`, out["id"]) != 1 {
					t.Errorf("cluster metadata is not {}")
				}
			}},
		{name: "integration create", args: []string{"integration", "create", "--account", acc.String(), "--provider", " google-looker-studio ",
			"--metadata", `{"id":"1","email":"a@example.com","name":"A","picture":"https://example.com/a.png"}`},
			want: map[string]any{"id": anyID},
			check: func(t *testing.T, out map[string]any) {
				n := countRows(t, e.db, `SELECT count(*) FROM integrations WHERE id = $1 AND provider = 'google-looker-studio' AND metadata->>'email' = 'a@example.com'`, out["id"])
				if n != 1 {
					t.Errorf("integration not stored as given, provider trimmed")
				}
			}},
		{name: "secret create", args: []string{"secret", "create", "--account", acc.String(), "--name", "TOKEN", "--value", "flag-value"},
			want: map[string]any{"id": anyID}, check: revealed(e, acc, "flag-value")},
		{name: "secret create from stdin", args: []string{"secret", "create", "--account", acc.String(), "--name", "TOKEN", "--value", "-"},
			stdin: "stdin-value\n", want: map[string]any{"id": anyID}, check: revealed(e, acc, "stdin-value")},
		{name: "secret create from stdin, CRLF, inner newline kept", args: []string{"secret", "create", "--account", acc.String(), "--name", "PEM", "--value", "-"},
			stdin: "line one\nline two\r\n", want: map[string]any{"id": anyID}, check: revealed(e, acc, "line one\nline two")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, err := cliRun(t, e.getenv, tt.stdin, append([]string{"admin"}, tt.args...)...)
			if err != nil {
				t.Fatalf("error: %v (stderr %q)", err, stderr)
			}
			out := oneObject(t, stdout)
			want := tt.want
			if want["key"] != nil {
				key, _ := out["key"].(string)
				if !strings.HasPrefix(key, "kisa_") || len(key) != len("kisa_")+59 {
					t.Errorf("key = %q, want kisa_ and 59 characters", key)
				}
				want = maps(want)
				want["key"] = key
			}
			checkOut(t, want, out)
			if tt.check != nil {
				tt.check(t, out)
			}
		})
	}
}

// limitsAre checks the account's stored budget overrides ("ai,other").
func limitsAre(e cliEnv, account uuid.UUID, want string) func(*testing.T, map[string]any) {
	return func(t *testing.T, _ map[string]any) {
		t.Helper()
		if got := snapshot(t, e.db, account).Limits; got != want {
			t.Errorf("stored limits = %s, want %s", got, want)
		}
	}
}

// revealed checks that the printed secret holds value.
func revealed(e cliEnv, account uuid.UUID, value string) func(*testing.T, map[string]any) {
	return func(t *testing.T, out map[string]any) {
		t.Helper()
		id, err := uuid.Parse(fmt.Sprint(out["id"]))
		if err != nil {
			t.Fatal(err)
		}
		got, err := revealUnder(t, e.db, e.key, account, id)
		if err != nil || got != value {
			t.Errorf("stored value = %q, %v; want %q", got, err, value)
		}
	}
}

func TestAdminBadInput(t *testing.T) {
	e := newCLIEnv(t)
	acc := e.newCLIAccount(t, true)
	a := acc.String()
	unknown := uuid.NewString()
	allowed := "knowledgebase:read, integrations:read, secrets:read, overview:run, completions:run, monitors, observations:read, usage:read"
	metaHint := `must be a JSON object, e.g. '{"url":"https://example.com"}'`
	limitHint := "must be a whole number from 0 (no limit) to 1000000000, or default"
	tests := []struct {
		name  string
		args  []string
		stdin string
		want  string
	}{
		{name: "account create without name", args: []string{"account", "create"}, want: "admin account create: --name is required"},
		{name: "account create with blank name", args: []string{"account", "create", "--name", "  "}, want: "admin account create: --name is required"},
		{name: "account create with long name", args: []string{"account", "create", "--name", strings.Repeat("n", 201)},
			want: "admin account create: --name must be at most 200 characters"},
		{name: "account create with stray argument", args: []string{"account", "create", "--name", "x", "extra"},
			want: `admin account create: unexpected argument "extra"`},
		{name: "set-2fa maybe", args: []string{"account", "set-2fa", "--account", a, "--enabled=maybe"},
			want: "admin account set-2fa: --enabled must be true or false"},
		{name: "set-2fa without enabled", args: []string{"account", "set-2fa", "--account", a},
			want: "admin account set-2fa: --enabled must be true or false"},
		{name: "set-2fa without account", args: []string{"account", "set-2fa", "--enabled=false"},
			want: "admin account set-2fa: --account is required"},
		{name: "set-2fa unknown account", args: []string{"account", "set-2fa", "--account", unknown, "--enabled=false"},
			want: "admin account set-2fa: no account with id " + unknown},
		{name: "set-limits without a budget", args: []string{"account", "set-limits", "--account", a},
			want: "admin account set-limits: --ai or --other is required"},
		{name: "set-limits without account", args: []string{"account", "set-limits", "--ai", "5"},
			want: "admin account set-limits: --account is required"},
		{name: "set-limits negative", args: []string{"account", "set-limits", "--account", a, "--ai", "-1"},
			want: `invalid value "-1" for flag -ai: ` + limitHint},
		{name: "set-limits over 10^9", args: []string{"account", "set-limits", "--account", a, "--other", "1000000001"},
			want: `invalid value "1000000001" for flag -other: ` + limitHint},
		{name: "set-limits not a number", args: []string{"account", "set-limits", "--account", a, "--ai", "lots"},
			want: `invalid value "lots" for flag -ai: ` + limitHint},
		{name: "set-limits a fraction", args: []string{"account", "set-limits", "--account", a, "--ai", "1.5"},
			want: `invalid value "1.5" for flag -ai: ` + limitHint},
		{name: "set-limits unknown account", args: []string{"account", "set-limits", "--account", unknown, "--ai", "5"},
			want: "admin account set-limits: no account with id " + unknown},
		{name: "key create with bad UUID", args: []string{"key", "create", "--account", "not-a-uuid"},
			want: `invalid value "not-a-uuid" for flag -account: must be a UUID`},
		{name: "key create without account", args: []string{"key", "create"}, want: "admin key create: --account is required"},
		{name: "key create with unknown scope", args: []string{"key", "create", "--account", a, "--scopes", "knowledgebase:read,admin"},
			want: `admin key create: --scopes: unknown scope "admin"; allowed: ` + allowed},
		{name: "key create with empty scope", args: []string{"key", "create", "--account", a, "--scopes", "secrets:read,"},
			want: `admin key create: --scopes: unknown scope ""; allowed: ` + allowed},
		{name: "key create for unknown account", args: []string{"key", "create", "--account", unknown},
			want: "admin key create: no account with id " + unknown},
		{name: "key revoke without id", args: []string{"key", "revoke"}, want: "admin key revoke: --id is required"},
		{name: "key revoke with bad UUID", args: []string{"key", "revoke", "--id", "123"}, want: `invalid value "123" for flag -id: must be a UUID`},
		{name: "key revoke unknown", args: []string{"key", "revoke", "--id", unknown}, want: "admin key revoke: no key with id " + unknown},
		{name: "cluster metadata an array", args: []string{"cluster", "create", "--account", a, "--name", "S", "--type", "website", "--metadata", `[1]`},
			want: "admin cluster create: --metadata " + metaHint},
		{name: "cluster metadata null", args: []string{"cluster", "create", "--account", a, "--name", "S", "--type", "website", "--metadata", `null`},
			want: "admin cluster create: --metadata " + metaHint},
		{name: "cluster metadata not JSON", args: []string{"cluster", "create", "--account", a, "--name", "S", "--type", "website", "--metadata", `{"url":`},
			want: "admin cluster create: --metadata " + metaHint},
		{name: "cluster without type", args: []string{"cluster", "create", "--account", a, "--name", "S"},
			want: "admin cluster create: --type is required"},
		{name: "cluster for unknown account", args: []string{"cluster", "create", "--account", unknown, "--name", "S", "--type", "website"},
			want: "admin cluster create: no account with id " + unknown},
		{name: "cluster with unknown flag", args: []string{"cluster", "create", "--account", a, "--colour", "red"},
			want: "flag provided but not defined: -colour"},
		{name: "integration metadata a string", args: []string{"integration", "create", "--account", a, "--provider", "slack", "--metadata", `"x"`},
			want: "admin integration create: --metadata " + metaHint},
		{name: "integration without provider", args: []string{"integration", "create", "--account", a},
			want: "admin integration create: --provider is required"},
		{name: "integration for unknown account", args: []string{"integration", "create", "--account", unknown, "--provider", "slack"},
			want: "admin integration create: no account with id " + unknown},
		{name: "secret without value", args: []string{"secret", "create", "--account", a, "--name", "N"},
			want: "admin secret create: --value is required"},
		{name: "secret with empty stdin", args: []string{"secret", "create", "--account", a, "--name", "N", "--value", "-"}, stdin: "\n",
			want: "admin secret create: --value must be 1 byte to 64 KiB"},
		{name: "secret over 64 KiB on stdin", args: []string{"secret", "create", "--account", a, "--name", "N", "--value", "-"},
			stdin: strings.Repeat("v", 64<<10+1), want: "admin secret create: --value must be 1 byte to 64 KiB"},
		{name: "secret without name", args: []string{"secret", "create", "--account", a, "--value", "v"},
			want: "admin secret create: --name is required"},
		{name: "secret for unknown account", args: []string{"secret", "create", "--account", unknown, "--name", "N", "--value", "v"},
			want: "admin secret create: no account with id " + unknown},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := snapshot(t, e.db, acc)
			accounts := countRows(t, e.db, `SELECT count(*) FROM accounts WHERE name = 'x' OR name = $1`, strings.Repeat("n", 201))
			stdout, _, err := cliRun(t, e.getenv, tt.stdin, append([]string{"admin"}, tt.args...)...)
			if err == nil {
				t.Fatalf("accepted; stdout %q", stdout)
			}
			if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			if stdout != "" {
				t.Errorf("stdout = %q, want nothing", stdout)
			}
			if diff := cmp.Diff(before, snapshot(t, e.db, acc)); diff != "" {
				t.Errorf("account's rows changed (-before +after):\n%s", diff)
			}
			if diff := cmp.Diff(rows{}, snapshot(t, e.db, uuid.MustParse(unknown))); diff != "" {
				t.Errorf("rows written for the unknown account:\n%s", diff)
			}
			if n := countRows(t, e.db, `SELECT count(*) FROM accounts WHERE name = 'x' OR name = $1`, strings.Repeat("n", 201)); n != accounts {
				t.Errorf("an account was created")
			}
		})
	}
}

// newAPI is the HTTP API on the same database as the commands.
func newAPI(e cliEnv, prefix string) http.Handler {
	return api.New(api.Options{DB: e.db, Secrets: e.secrets, KeyPrefix: prefix, DocsURL: "https://docs.kisa.test",
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
}

// apiGet returns status and body of a GET with key.
func apiGet(tb testing.TB, h http.Handler, path, key string) (int, string) {
	tb.Helper()
	req := httptest.NewRequest(http.MethodGet, path, nil)
	req.Header.Set("Authorization", "Bearer "+key)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Code, rec.Body.String()
}

// TestKeyCreateAuthenticates: a printed key works against the API, with
// its scopes, until it is revoked.
func TestKeyCreateAuthenticates(t *testing.T) {
	tests := []struct {
		name   string
		prefix string
	}{
		{name: "default prefix", prefix: "kisa"},
		{name: "configured prefix", prefix: "acme"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newCLIEnv(t, "KISA_API_KEY_PREFIX="+tt.prefix)
			h := newAPI(e, tt.prefix)
			acc := e.newCLIAccount(t, true)
			out := e.ok(t, "", "key", "create", "--account", acc.String(), "--scopes", "knowledgebase:read")
			key, _ := out["key"].(string)
			if !strings.HasPrefix(key, tt.prefix+"_") {
				t.Fatalf("key %q lacks the prefix %s_", key, tt.prefix)
			}
			steps := []struct {
				path, want string
				status     int
			}{
				{"/v1/knowledgebase", `{"status":true,"data":[]}`, 200},
				{"/v1/integrations", `{"status":false,"error":"this API key lacks the scope \"integrations:read\""}`, 403},
			}
			for _, s := range steps {
				if status, body := apiGet(t, h, s.path, key); status != s.status || body != s.want {
					t.Errorf("GET %s = %d %s, want %d %s", s.path, status, body, s.status, s.want)
				}
			}
			e.ok(t, "", "key", "revoke", "--id", out["id"].(string))
			if status, body := apiGet(t, h, "/v1/knowledgebase", key); status != 401 || body != `{"status":false,"error":"invalid API key"}` {
				t.Errorf("revoked key: GET = %d %s, want 401", status, body)
			}
		})
	}
}

// TestKeyCreateWithout2FA: a key of an account without 2FA is refused
// until set-2fa turns it on.
func TestKeyCreateWithout2FA(t *testing.T) {
	e := newCLIEnv(t)
	h := newAPI(e, "kisa")
	acc := e.newCLIAccount(t, false)
	key := e.ok(t, "", "key", "create", "--account", acc.String())["key"].(string)
	if status, _ := apiGet(t, h, "/v1/knowledgebase", key); status != 403 {
		t.Errorf("without 2FA: status %d, want 403", status)
	}
	e.ok(t, "", "account", "set-2fa", "--account", acc.String(), "--enabled=true")
	if status, body := apiGet(t, h, "/v1/knowledgebase", key); status != 200 {
		t.Errorf("with 2FA: %d %s, want 200", status, body)
	}
}

func TestDemo(t *testing.T) {
	e := newCLIEnv(t)
	h := newAPI(e, "kisa")
	first := e.ok(t, "", "demo")
	acc, err := uuid.Parse(fmt.Sprint(first["account"]))
	if err != nil {
		t.Fatalf("demo printed %v", first)
	}
	seeded := snapshot(t, e.db, acc)
	second := e.ok(t, "", "demo")
	for _, out := range []map[string]any{first, second} {
		if diff := cmp.Diff([]string{"account", "key"}, sortedKeysOf(out)); diff != "" {
			t.Errorf("demo printed keys (-want +got):\n%s", diff)
		}
	}
	if second["account"] != first["account"] {
		t.Errorf("second demo used account %v, first %v", second["account"], first["account"])
	}
	if second["key"] == first["key"] {
		t.Errorf("both demos printed the same key")
	}
	after := snapshot(t, e.db, acc)
	seeded.Keys++
	if diff := cmp.Diff(seeded, after); diff != "" {
		t.Errorf("second demo changed the seed (-want +got):\n%s", diff)
	}
	if after.Clusters < 2 || after.Integrations < 1 || !after.TwoFactor {
		t.Errorf("demo account holds %+v", after)
	}

	for _, out := range []map[string]any{first, second} {
		key := out["key"].(string)
		status, body := apiGet(t, h, "/v1/knowledgebase", key)
		if status != 200 {
			t.Fatalf("demo key: GET /v1/knowledgebase = %d %s", status, body)
		}
		var clusters struct {
			Data []struct {
				Type     string         `json:"type"`
				Metadata map[string]any `json:"metadata"`
			} `json:"data"`
		}
		if err := json.Unmarshal([]byte(body), &clusters); err != nil {
			t.Fatal(err)
		}
		byType := map[string][]string{}
		for _, c := range clusters.Data {
			byType[c.Type] = sortedKeysOf(c.Metadata)
		}
		if diff := cmp.Diff([]string{"excludeFooter", "excludeHeader", "pullType", "title", "url"}, byType["website"]); diff != "" {
			t.Errorf("website cluster metadata keys (-want +got):\n%s", diff)
		}
		if _, ok := byType["sitemap"]; !ok {
			t.Errorf("no sitemap cluster: %s", body)
		}

		status, body = apiGet(t, h, "/v1/integrations", key)
		var integrations struct {
			Data []struct {
				Provider string         `json:"provider"`
				Metadata map[string]any `json:"metadata"`
			} `json:"data"`
		}
		if err := json.Unmarshal([]byte(body), &integrations); err != nil || status != 200 {
			t.Fatalf("GET /v1/integrations = %d %s", status, body)
		}
		var looker []string
		for _, in := range integrations.Data {
			if in.Provider == "google-looker-studio" {
				looker = sortedKeysOf(in.Metadata)
			}
		}
		if diff := cmp.Diff([]string{"email", "id", "name", "picture"}, looker); diff != "" {
			t.Errorf("google-looker-studio metadata keys (-want +got):\n%s", diff)
		}
	}
}

func sortedKeysOf[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
