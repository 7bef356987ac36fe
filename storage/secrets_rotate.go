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

// sealedSecret is a secrets row as RotateFrom reads it.
type sealedSecret struct {
	ID      uuid.UUID `db:"id"`
	Account uuid.UUID `db:"account_id"`
	Sealed  []byte    `db:"value_enc"`
}

// RotateFrom re-encrypts every secret sealed under oldKey (32 bytes) so
// that it is sealed under the store's own key, in one transaction that
// locks the rows. A secret already under the store's key is skipped, so a
// re-run after a success changes nothing. When any secret opens under
// neither key, nothing is changed and the error wraps ErrWrongOldKey.
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
	var rows []sealedSecret
	if err := tx.SelectContext(ctx, &rows, `
		SELECT id, account_id, value_enc FROM secrets ORDER BY id FOR UPDATE`); err != nil {
		return RotateResult{}, fmt.Errorf("rotate secrets: %w", err)
	}
	var res RotateResult
	var unreadable []uuid.UUID
	for _, r := range rows {
		if _, err := open(s.aead, r.Account, r.ID, r.Sealed); err == nil {
			res.Skipped++
			continue
		}
		plain, err := open(old, r.Account, r.ID, r.Sealed)
		if err != nil {
			unreadable = append(unreadable, r.ID)
			continue
		}
		sealed, err := seal(s.aead, r.Account, r.ID, plain)
		clear(plain)
		if err != nil {
			return RotateResult{}, err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE secrets SET value_enc = $2 WHERE id = $1`, r.ID, sealed); err != nil {
			return RotateResult{}, fmt.Errorf("rotate secret %s: %w", r.ID, err)
		}
		res.Rotated++
	}
	if len(unreadable) > 0 {
		return RotateResult{}, fmt.Errorf("%w: %d of %d secrets, the first %s; nothing was changed",
			ErrWrongOldKey, len(unreadable), len(rows), unreadable[0])
	}
	if err := tx.Commit(); err != nil {
		return RotateResult{}, fmt.Errorf("rotate secrets: %w", err)
	}
	return res, nil
}
