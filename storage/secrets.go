package storage

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/kisa-dev/kisa"
)

// Secret is a stored secret without its value: the value is write-only
// and never leaves this package decrypted.
type Secret struct {
	ID        uuid.UUID `db:"id"`
	Name      string    `db:"name"`
	CreatedAt time.Time `db:"created_at"`
	UpdatedAt time.Time `db:"updated_at"`
}

// Secrets stores secret values encrypted with AES-256-GCM. Each value has
// a random nonce and is bound to its account and id (additional data), so
// a ciphertext copied to another row does not decrypt.
type Secrets struct {
	db   *DB
	aead cipher.AEAD
}

// NewSecrets returns the secret store; key must be 32 bytes.
func NewSecrets(db *DB, key []byte) (*Secrets, error) {
	aead, err := newAEAD(key)
	if err != nil {
		return nil, err
	}
	return &Secrets{db: db, aead: aead}, nil
}

// newAEAD returns AES-256-GCM under key; key must be 32 bytes.
func newAEAD(key []byte) (cipher.AEAD, error) {
	if len(key) != 32 {
		return nil, errors.New("secrets key must be 32 bytes")
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("secrets cipher: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("secrets cipher: %w", err)
	}
	return aead, nil
}

func additionalData(account, id uuid.UUID) []byte {
	return append(account[:], id[:]...)
}

// Create encrypts value and stores it under name.
func (s *Secrets) Create(ctx context.Context, account uuid.UUID, name, value string) (uuid.UUID, error) {
	id := uuid.New()
	sealed, err := seal(s.aead, account, id, []byte(value))
	if err != nil {
		return uuid.Nil, err
	}
	_, err = s.db.db.ExecContext(ctx, `
		INSERT INTO secrets (id, account_id, name, value_enc) VALUES ($1, $2, $3, $4)`,
		id, account, name, sealed)
	if err != nil {
		return uuid.Nil, dbError("create secret", err)
	}
	return id, nil
}

// seal encrypts plain for the secret id of account: nonce || ciphertext.
func seal(aead cipher.AEAD, account, id uuid.UUID, plain []byte) ([]byte, error) {
	return sealAD(aead, additionalData(account, id), plain)
}

// sealAD encrypts plain bound to ad, under a random nonce that it prepends.
func sealAD(aead cipher.AEAD, ad, plain []byte) ([]byte, error) {
	nonce := make([]byte, aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return nil, fmt.Errorf("nonce: %w", err)
	}
	return aead.Seal(nonce, nonce, plain, ad), nil
}

// openAD decrypts what sealAD made with the same ad.
func openAD(aead cipher.AEAD, ad, sealed []byte) ([]byte, error) {
	n := aead.NonceSize()
	if len(sealed) < n {
		return nil, errors.New("stored value too short")
	}
	return aead.Open(nil, sealed[:n], sealed[n:], ad)
}

// Get returns one of the account's secrets without its value, or a
// kisa.NotFound failure.
func (s *Secrets) Get(ctx context.Context, account, id uuid.UUID) (Secret, error) {
	var out Secret
	err := s.db.db.GetContext(ctx, &out, `
		SELECT id, name, created_at, updated_at FROM secrets WHERE id = $1 AND account_id = $2`,
		id, account)
	return out, notFound(err, kisa.PartSecret, "get secret")
}

// webhookSecretAD binds a webhook signing secret to its account, apart
// from every secret value (whose additional data is account and id).
func webhookSecretAD(account uuid.UUID) []byte {
	return append([]byte("webhook-secret:"), account[:]...)
}

// WebhookSecret returns the account's webhook signing secret, creating
// it on first use; rotate replaces it with a new one. The secret is
// stored encrypted like secret values. Errors are database or
// decryption failures.
func (s *Secrets) WebhookSecret(ctx context.Context, account uuid.UUID, rotate bool) (string, error) {
	fresh := make([]byte, 32)
	if _, err := rand.Read(fresh); err != nil {
		return "", fmt.Errorf("webhook secret: %w", err)
	}
	value := "whsec_" + base64.RawURLEncoding.EncodeToString(fresh)
	sealed, err := sealAD(s.aead, webhookSecretAD(account), []byte(value))
	if err != nil {
		return "", err
	}
	q := `INSERT INTO webhook_secrets (account_id, secret_enc) VALUES ($1, $2) ON CONFLICT (account_id) DO NOTHING`
	if rotate {
		q = `INSERT INTO webhook_secrets (account_id, secret_enc) VALUES ($1, $2)
			ON CONFLICT (account_id) DO UPDATE SET secret_enc = EXCLUDED.secret_enc, created_at = now()`
	}
	if _, err := s.db.db.ExecContext(ctx, q, account, sealed); err != nil {
		return "", fmt.Errorf("webhook secret: %w", err)
	}
	var stored []byte
	if err := s.db.db.GetContext(ctx, &stored, `SELECT secret_enc FROM webhook_secrets WHERE account_id = $1`, account); err != nil {
		return "", fmt.Errorf("webhook secret: %w", err)
	}
	plain, err := openAD(s.aead, webhookSecretAD(account), stored)
	if err != nil {
		return "", fmt.Errorf("webhook secret: %w", err)
	}
	return string(plain), nil
}
