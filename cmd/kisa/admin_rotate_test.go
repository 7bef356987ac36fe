package main

import (
	"bytes"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"encoding/base64"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"

	"github.com/kisa-dev/kisa/storage"
	"github.com/kisa-dev/kisa/testenv"
)

// rotation is a database of the test's own (rotate-key acts on every
// secret) with the secrets put in it and their values.
type rotation struct {
	db     *storage.DB
	url    string
	values map[uuid.UUID]string
	owner  map[uuid.UUID]uuid.UUID
}

// storeUnder returns the secret store under a base64 key.
func storeUnder(tb testing.TB, db *storage.DB, key string) *storage.Secrets {
	tb.Helper()
	raw, err := base64.StdEncoding.DecodeString(key)
	if err != nil {
		tb.Fatal(err)
	}
	s, err := storage.NewSecrets(db, raw)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// revealUnder decrypts the stored value of the secret id of account under
// a base64 key, written out apart from storage: AES-256-GCM, the nonce
// first, bound to the account and the id.
func revealUnder(tb testing.TB, db *storage.DB, key string, account, id uuid.UUID) (string, error) {
	tb.Helper()
	raw, err := base64.StdEncoding.DecodeString(key)
	if err != nil {
		tb.Fatal(err)
	}
	var sealed []byte
	if err := db.SQL().QueryRow(`SELECT value_enc FROM secrets WHERE id = $1 AND account_id = $2`, id, account).Scan(&sealed); err != nil {
		return "", err
	}
	block, err := aes.NewCipher(raw)
	if err != nil {
		tb.Fatal(err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		tb.Fatal(err)
	}
	if len(sealed) < aead.NonceSize() {
		return "", fmt.Errorf("stored value of %d bytes", len(sealed))
	}
	n := aead.NonceSize()
	plain, err := aead.Open(nil, sealed[:n], sealed[n:], append(account[:], id[:]...))
	return string(plain), err
}

// add stores a secret under key for a new account and returns its id.
func (r *rotation) add(tb testing.TB, key string) uuid.UUID {
	tb.Helper()
	ctx := context.Background()
	acc, err := r.db.CreateAccount(ctx, "rotate-"+testenv.RandomHex(4), true)
	if err != nil {
		tb.Fatal(err)
	}
	value := "value-" + testenv.RandomHex(8)
	id, err := storeUnder(tb, r.db, key).Create(ctx, acc.ID, "TOKEN", value)
	if err != nil {
		tb.Fatal(err)
	}
	r.values[id], r.owner[id] = value, acc.ID
	return id
}

// sealed returns every stored ciphertext by id.
func (r *rotation) sealed(tb testing.TB) map[uuid.UUID][]byte {
	tb.Helper()
	rows, err := r.db.SQL().QueryContext(context.Background(), `SELECT id, value_enc FROM secrets`)
	if err != nil {
		tb.Fatal(err)
	}
	defer rows.Close()
	out := map[uuid.UUID][]byte{}
	for rows.Next() {
		var id uuid.UUID
		var b []byte
		if err := rows.Scan(&id, &b); err != nil {
			tb.Fatal(err)
		}
		out[id] = b
	}
	return out
}

// checkUnder fails unless each secret of ids opens under key to its value.
func (r *rotation) checkUnder(tb testing.TB, key string, ids ...uuid.UUID) {
	tb.Helper()
	for _, id := range ids {
		if got, err := revealUnder(tb, r.db, key, r.owner[id], id); err != nil || got != r.values[id] {
			tb.Errorf("secret %s under the key: %q, %v; want its value", id, got, err)
		}
	}
}

// rotate runs `kisa admin secret rotate-key` with KISA_SECRETS_KEY=newKey.
func (r *rotation) rotate(tb testing.TB, newKey, stdin string, args ...string) (string, string, error) {
	tb.Helper()
	getenv := testenv.Environ("DATABASE_URL="+r.url, "KISA_SECRETS_KEY="+newKey)
	return cliRun(tb, getenv, stdin, append([]string{"admin", "secret", "rotate-key"}, args...)...)
}

func TestAdminSecretRotateKey(t *testing.T) {
	db, url := testenv.OwnPostgres(t)
	r := &rotation{db: db, url: url, values: map[uuid.UUID]string{}, owner: map[uuid.UUID]uuid.UUID{}}
	oldKey, newKey, otherKey := testenv.SecretsKey(), testenv.SecretsKey(), testenv.SecretsKey()
	first := []uuid.UUID{r.add(t, oldKey), r.add(t, oldKey), r.add(t, oldKey)}
	lowest := slices.MinFunc(first, func(a, b uuid.UUID) int { return strings.Compare(a.String(), b.String()) })
	secretsAndKeys := []string{oldKey, newKey, otherKey}
	for _, v := range r.values {
		secretsAndKeys = append(secretsAndKeys, v)
	}

	// Refusals change nothing, print nothing and never show a key.
	refusals := []struct {
		name    string
		newKey  string
		stdin   string
		args    []string
		wantErr string
	}{
		{name: "old key on the command line", newKey: newKey, args: []string{"--old-key", oldKey},
			wantErr: "admin secret rotate-key: --old-key must be -: the old key is read from standard input, never from the command line"},
		{name: "no --old-key", newKey: newKey, stdin: oldKey,
			wantErr: "admin secret rotate-key: --old-key must be -: the old key is read from standard input, never from the command line"},
		{name: "old key not base64", newKey: newKey, stdin: "not a key", args: []string{"--old-key", "-"},
			wantErr: "admin secret rotate-key: the old key on standard input must be 32 bytes encoded in base64"},
		{name: "old key of 16 bytes", newKey: newKey, stdin: base64.StdEncoding.EncodeToString(make([]byte, 16)), args: []string{"--old-key", "-"},
			wantErr: "admin secret rotate-key: the old key on standard input must be 32 bytes encoded in base64"},
		{name: "old key is the new key", newKey: oldKey, stdin: oldKey, args: []string{"--old-key", "-"},
			wantErr: "admin secret rotate-key: the old key is KISA_SECRETS_KEY itself; set KISA_SECRETS_KEY to the new key"},
		{name: "wrong old key", newKey: newKey, stdin: otherKey + "\n", args: []string{"--old-key", "-"},
			wantErr: "admin secret rotate-key: wrong old key? a secret opens under neither the old key nor the new one: 3 of 3 secrets, the first " +
				lowest.String() + "; nothing was changed"},
	}
	before := r.sealed(t)
	for _, tt := range refusals {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, err := r.rotate(t, tt.newKey, tt.stdin, tt.args...)
			if err == nil || err.Error() != tt.wantErr || stdout != "" {
				t.Errorf("got error %v and stdout %q, want error %q and no output", err, stdout, tt.wantErr)
			}
			for _, s := range secretsAndKeys {
				if err != nil && strings.Contains(err.Error()+stdout+stderr, s) {
					t.Errorf("output or error shows %q", s)
				}
			}
			if diff := cmp.Diff(before, r.sealed(t)); diff != "" {
				t.Errorf("stored secrets changed (-before +after):\n%s", diff)
			}
		})
	}
	r.checkUnder(t, oldKey, first...)

	// Rotation, then re-runs that skip what is already under the new key.
	runs := []struct {
		name string
		add  int // secrets stored under the old key before the run
		want storage.RotateResult
	}{
		{name: "rotates every secret", want: storage.RotateResult{Rotated: 3}},
		{name: "a secret written meanwhile under the old key", add: 1, want: storage.RotateResult{Rotated: 1, Skipped: 3}},
		{name: "re-run changes nothing", want: storage.RotateResult{Skipped: 4}},
	}
	for _, tt := range runs {
		t.Run(tt.name, func(t *testing.T) {
			for range tt.add {
				r.add(t, oldKey)
			}
			before := r.sealed(t)
			stdout, stderr, err := r.rotate(t, newKey, oldKey+"\n", "--old-key", "-")
			if err != nil {
				t.Fatalf("rotate-key: %v (stderr %q)", err, stderr)
			}
			checkOut(t, map[string]any{"rotated": float64(tt.want.Rotated), "skipped": float64(tt.want.Skipped)}, oneObject(t, stdout))
			after, changed := r.sealed(t), 0
			for id := range after {
				if !bytes.Equal(before[id], after[id]) {
					changed++
				}
			}
			if changed != tt.want.Rotated {
				t.Errorf("%d stored secrets changed, want %d", changed, tt.want.Rotated)
			}
			r.checkUnder(t, newKey, keysOf(r.values)...)
		})
	}

	// One secret under neither key stops the whole rotation.
	pending := r.add(t, oldKey)
	stray := r.add(t, otherKey)
	before = r.sealed(t)
	_, _, err := r.rotate(t, newKey, oldKey, "--old-key", "-")
	want := "admin secret rotate-key: wrong old key? a secret opens under neither the old key nor the new one: 1 of 6 secrets, the first " +
		stray.String() + "; nothing was changed"
	if err == nil || err.Error() != want {
		t.Errorf("rotation with a stray secret: %v, want %q", err, want)
	}
	if diff := cmp.Diff(before, r.sealed(t)); diff != "" {
		t.Errorf("a failed rotation changed stored secrets (-before +after):\n%s", diff)
	}
	r.checkUnder(t, oldKey, pending)
}

func keysOf[V any](m map[uuid.UUID]V) []uuid.UUID {
	out := make([]uuid.UUID, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestAdminSecretRotateKeyWebhookSecrets: rotate-key also re-encrypts the
// accounts' webhook signing secrets, which then read the same under the
// new key, and a re-run skips them.
func TestAdminSecretRotateKeyWebhookSecrets(t *testing.T) {
	db, url := testenv.OwnPostgres(t)
	r := &rotation{db: db, url: url, values: map[uuid.UUID]string{}, owner: map[uuid.UUID]uuid.UUID{}}
	oldKey, newKey := testenv.SecretsKey(), testenv.SecretsKey()
	ctx := context.Background()
	acc, err := db.CreateAccount(ctx, "rotate-webhook-"+testenv.RandomHex(4), true)
	if err != nil {
		t.Fatal(err)
	}
	secret, err := storeUnder(t, db, oldKey).WebhookSecret(ctx, acc.ID, false)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []storage.RotateResult{{Rotated: 1}, {Skipped: 1}} {
		stdout, stderr, err := r.rotate(t, newKey, oldKey+"\n", "--old-key", "-")
		if err != nil {
			t.Fatalf("run %d: rotate-key: %v (stderr %q)", i, err, stderr)
		}
		checkOut(t, map[string]any{"rotated": float64(want.Rotated), "skipped": float64(want.Skipped)}, oneObject(t, stdout))
	}
	got, err := storeUnder(t, db, newKey).WebhookSecret(ctx, acc.ID, false)
	if err != nil || got != secret {
		t.Errorf("webhook secret under the new key: %q, %v; want the one made under the old key", got, err)
	}
	if _, err := storeUnder(t, db, oldKey).WebhookSecret(ctx, acc.ID, false); err == nil {
		t.Error("the webhook secret still opens under the old key")
	}
}
