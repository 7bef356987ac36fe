package storage

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/uuid"
)

// ErrWrongOldKey is returned by RotateFrom when a secret opens under
// neither the old key nor the new one.
var ErrWrongOldKey = errors.New("a secret opens under neither the old key nor the new one")

// RotateResult counts what RotateFrom did.
type RotateResult struct {
	Rotated int `json:"rotated"` // re-encrypted from the old key to the new one
	Skipped int `json:"skipped"` // already under the new key
}

// sealedRow is one encrypted value as RotateFrom reads it: a secret's
// value, or an account's webhook signing secret.
type sealedRow struct {
	ID      uuid.UUID `db:"id"` // the secret's id, or the account's for a webhook secret
	Account uuid.UUID `db:"account_id"`
	Sealed  []byte    `db:"sealed"`
}

// sealedTable says where RotateFrom finds encrypted values and what each
// is bound to.
type sealedTable struct {
	what   string
	query  string // selects id, account_id, sealed, locking the rows
	update string // sets the sealed value of the row $1
	ad     func(sealedRow) []byte
}

var sealedTables = []sealedTable{
	{what: "secret", query: `SELECT id, account_id, value_enc AS sealed FROM secrets ORDER BY id FOR UPDATE`,
		update: `UPDATE secrets SET value_enc = $2 WHERE id = $1`,
		ad:     func(r sealedRow) []byte { return additionalData(r.Account, r.ID) }},
	{what: "webhook secret", query: `SELECT account_id AS id, account_id, secret_enc AS sealed FROM webhook_secrets ORDER BY account_id FOR UPDATE`,
		update: `UPDATE webhook_secrets SET secret_enc = $2 WHERE account_id = $1`,
		ad:     func(r sealedRow) []byte { return webhookSecretAD(r.Account) }},
}

// RotateFrom re-encrypts every secret value and every webhook signing
// secret sealed under oldKey (32 bytes) so that it is sealed under the
// store's own key, in one transaction that locks the rows. A value already
// under the store's key is skipped, so a re-run after a success changes
// nothing. When any value opens under neither key, nothing is changed and
// the error wraps ErrWrongOldKey.
func (s *Secrets) RotateFrom(ctx context.Context, oldKey []byte) (RotateResult, error) {
	old, err := newAEAD(oldKey)
	if err != nil {
		return RotateResult{}, fmt.Errorf("old key: %w", err)
	}
	tx, err := s.db.db.BeginTxx(ctx, nil)
	if err != nil {
		return RotateResult{}, fmt.Errorf("rotate secrets: %w", err)
	}
	defer tx.Rollback()
	var res RotateResult
	for _, t := range sealedTables {
		var rows []sealedRow
		if err := tx.SelectContext(ctx, &rows, t.query); err != nil {
			return RotateResult{}, fmt.Errorf("rotate %ss: %w", t.what, err)
		}
		var unreadable []uuid.UUID
		for _, r := range rows {
			ad := t.ad(r)
			if _, err := openAD(s.aead, ad, r.Sealed); err == nil {
				res.Skipped++
				continue
			}
			plain, err := openAD(old, ad, r.Sealed)
			if err != nil {
				unreadable = append(unreadable, r.ID)
				continue
			}
			sealed, err := sealAD(s.aead, ad, plain)
			clear(plain)
			if err != nil {
				return RotateResult{}, err
			}
			if _, err := tx.ExecContext(ctx, t.update, r.ID, sealed); err != nil {
				return RotateResult{}, fmt.Errorf("rotate %s %s: %w", t.what, r.ID, err)
			}
			res.Rotated++
		}
		if len(unreadable) > 0 {
			return RotateResult{}, fmt.Errorf("%w: %d of %d %ss, the first %s; nothing was changed",
				ErrWrongOldKey, len(unreadable), len(rows), t.what, unreadable[0])
		}
	}
	if err := tx.Commit(); err != nil {
		return RotateResult{}, fmt.Errorf("rotate secrets: %w", err)
	}
	return res, nil
}
