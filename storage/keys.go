package storage

import (
	"context"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/kisa-dev/kisa"
)

// APIKey is a stored key with what authentication needs of its account.
type APIKey struct {
	ID               uuid.UUID  `db:"id"`
	AccountID        uuid.UUID  `db:"account_id"`
	SecretHash       []byte     `db:"secret_hash"`
	ScopeList        string     `db:"scopes"`
	RevokedAt        *time.Time `db:"revoked_at"`
	TwoFactorEnabled bool       `db:"two_factor_enabled"`
	// StoreQueries is the account's choice to keep its queries in its
	// observations.
	StoreQueries bool `db:"store_queries"`
	// AccountLimits are the account's budget overrides, read with the
	// key so that a request needs no query of its own for them.
	AccountLimits
}

// Scopes returns the key's scopes.
func (k APIKey) Scopes() []string {
	if k.ScopeList == "" {
		return []string{}
	}
	return strings.Split(k.ScopeList, ",")
}

// CreateAPIKey stores a key by its public lookup part and secret hash.
func (s *DB) CreateAPIKey(ctx context.Context, account uuid.UUID, lookup string, hash []byte, scopes []string) (uuid.UUID, error) {
	id := uuid.New()
	_, err := s.db.ExecContext(ctx, `
		INSERT INTO api_keys (id, account_id, lookup, secret_hash, scopes)
		VALUES ($1, $2, $3, $4, string_to_array($5, ','))`,
		id, account, lookup, hash, strings.Join(scopes, ","))
	if err != nil {
		return uuid.Nil, dbError("create api key", err)
	}
	return id, nil
}

// APIKeyByLookup returns the key with that public part, revoked or not,
// or a kisa.NotFound failure.
func (s *DB) APIKeyByLookup(ctx context.Context, lookup string) (APIKey, error) {
	var k APIKey
	err := s.db.GetContext(ctx, &k, `
		SELECT k.id, k.account_id, k.secret_hash, array_to_string(k.scopes, ',') AS scopes,
		       k.revoked_at, a.two_factor_enabled, a.store_queries, a.limit_ai, a.limit_other
		FROM api_keys k JOIN accounts a ON a.id = k.account_id
		WHERE k.lookup = $1`, lookup)
	return k, notFound(err, kisa.PartAPIKey, "api key by lookup")
}

// RevokeAPIKey marks a key revoked; a kisa.NotFound failure when there is no
// such key.
// Revoking twice keeps the first time.
func (s *DB) RevokeAPIKey(ctx context.Context, id uuid.UUID) error {
	res, err := s.db.ExecContext(ctx, `
		UPDATE api_keys SET revoked_at = COALESCE(revoked_at, now()) WHERE id = $1`, id)
	return affected(res, err, kisa.PartAPIKey, "revoke api key")
}

// TouchAPIKey records that the key was used at t.
func (s *DB) TouchAPIKey(ctx context.Context, id uuid.UUID, t time.Time) error {
	_, err := s.db.ExecContext(ctx, `UPDATE api_keys SET last_used_at = $2 WHERE id = $1`, id, t)
	if err != nil {
		return dbError("touch api key", err)
	}
	return nil
}
