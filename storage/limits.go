package storage

import (
	"context"

	"github.com/google/uuid"

	"github.com/kisa-dev/kisa"
)

// AccountLimits are an account's overrides of the per-key request budgets
// per minute; nil keeps the configured default, 0 means no limit.
type AccountLimits struct {
	AI    *int `db:"limit_ai" json:"limit_ai"`
	Other *int `db:"limit_other" json:"limit_other"`
}

// LimitChange is what SetAccountLimits changes: a budget whose Set is
// false is kept as it is; Set with a nil Value clears the override.
type LimitChange struct {
	Set   bool
	Value *int
}

// SetAccountLimits changes an account's budget overrides and returns them
// as stored; a kisa.NotFound failure when there is no such account.
func (s *DB) SetAccountLimits(ctx context.Context, account uuid.UUID, ai, other LimitChange) (AccountLimits, error) {
	var l AccountLimits
	err := s.db.GetContext(ctx, &l, `
		UPDATE accounts SET
			limit_ai    = CASE WHEN $2 THEN $3::integer ELSE limit_ai END,
			limit_other = CASE WHEN $4 THEN $5::integer ELSE limit_other END,
			updated_at  = now()
		WHERE id = $1
		RETURNING limit_ai, limit_other`,
		account, ai.Set, ai.Value, other.Set, other.Value)
	return l, notFound(err, kisa.PartAccount, "set account limits")
}
