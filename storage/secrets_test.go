package storage_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/storage"
	"github.com/kisa-dev/kisa/testenv"
)

// newSecrets returns a secret store with a fresh random key.
func newSecrets(tb testing.TB, db *storage.DB) *storage.Secrets {
	tb.Helper()
	key := make([]byte, 32)
	rand.Read(key)
	s, err := storage.NewSecrets(db, key)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

func TestNewSecretsKeyLength(t *testing.T) {
	tests := []struct {
		name string
		len  int
		ok   bool
	}{
		{name: "32 bytes", len: 32, ok: true},
		{name: "16 bytes", len: 16},
		{name: "33 bytes", len: 33},
		{name: "none", len: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := storage.NewSecrets(nil, make([]byte, tt.len))
			if (err == nil) != tt.ok {
				t.Errorf("NewSecrets(%d bytes) error = %v, want ok %v", tt.len, err, tt.ok)
			}
		})
	}
}

func TestSecrets(t *testing.T) {
	db := testenv.Postgres(t)
	ctx := context.Background()
	s := newSecrets(t, db)
	a, b := newAccount(t, db, true), newAccount(t, db, true)
	plain := "sk-live-" + testenv.RandomHex(16)
	id, err := s.Create(ctx, a.ID, "STRIPE", plain)
	if err != nil {
		t.Fatal(err)
	}
	bID, err := s.Create(ctx, b.ID, "STRIPE", plain)
	if err != nil {
		t.Fatal(err)
	}

	got, err := s.Get(ctx, a.ID, id)
	if err != nil || got.ID != id || got.Name != "STRIPE" || got.CreatedAt.IsZero() || got.UpdatedAt.IsZero() {
		t.Errorf("Get = %+v, %v", got, err)
	}
	if v, err := s.Reveal(ctx, a.ID, id); err != nil || v != plain {
		t.Errorf("Reveal = %q, %v; want the stored value", v, err)
	}

	notFound := []struct {
		name    string
		account uuid.UUID
		id      uuid.UUID
	}{
		{name: "another account's", account: a.ID, id: bID},
		{name: "unknown id", account: a.ID, id: uuid.New()},
		{name: "asked by another account", account: b.ID, id: id},
	}
	for _, tt := range notFound {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := s.Get(ctx, tt.account, tt.id); !errors.Is(err, kisa.NotFound) {
				t.Errorf("Get error = %v, want NotFound", err)
			}
			if v, err := s.Reveal(ctx, tt.account, tt.id); !errors.Is(err, kisa.NotFound) || v != "" {
				t.Errorf("Reveal = %q, %v; want NotFound", v, err)
			}
		})
	}

	// What PostgreSQL holds: no plain text, a fresh nonce per value.
	stored := map[uuid.UUID][]byte{}
	for _, sid := range []uuid.UUID{id, bID} {
		var enc []byte
		if err := db.SQL().QueryRowContext(ctx, `SELECT value_enc FROM secrets WHERE id = $1`, sid).Scan(&enc); err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(enc, []byte(plain)) {
			t.Errorf("secret %s stored in plain text", sid)
		}
		// The whole row, every column as PostgreSQL shows it (bytea in
		// hex), holds the value in no form.
		var row string
		if err := db.SQL().QueryRowContext(ctx, `SELECT row_to_json(s)::text FROM secrets s WHERE id = $1`, sid).Scan(&row); err != nil {
			t.Fatal(err)
		}
		for _, form := range []string{plain, hex.EncodeToString([]byte(plain)), base64.StdEncoding.EncodeToString([]byte(plain))} {
			if strings.Contains(strings.ToLower(row), strings.ToLower(form)) {
				t.Errorf("secret %s row holds its value as %q: %s", sid, form, row)
			}
		}
		stored[sid] = enc
	}
	if bytes.Equal(stored[id], stored[bID]) {
		t.Errorf("the same value encrypted twice gave the same bytes")
	}

	// Another key cannot read it.
	if v, err := newSecrets(t, db).Reveal(ctx, a.ID, id); err == nil || v != "" {
		t.Errorf("Reveal with another key = %q, %v; want an error", v, err)
	}

	// A ciphertext copied to another row does not decrypt there.
	copyID, err := s.Create(ctx, a.ID, "COPY", "placeholder")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.SQL().ExecContext(ctx, `UPDATE secrets SET value_enc = $2 WHERE id = $1`, copyID, stored[id]); err != nil {
		t.Fatal(err)
	}
	if v, err := s.Reveal(ctx, a.ID, copyID); err == nil || v != "" {
		t.Errorf("Reveal of a copied ciphertext = %q, %v; want an error", v, err)
	}
}
