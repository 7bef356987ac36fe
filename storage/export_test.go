package storage

import (
	"context"

	"github.com/google/uuid"

	"github.com/kisa-dev/kisa"
)

// Reveal decrypts a secret's value, for the tests to check what Create
// and RotateFrom stored. It returns a kisa.NotFound failure or a decryption error.
func (s *Secrets) Reveal(ctx context.Context, account, id uuid.UUID) (string, error) {
	var sealed []byte
	err := s.db.db.GetContext(ctx, &sealed, `
		SELECT value_enc FROM secrets WHERE id = $1 AND account_id = $2`, id, account)
	if err := notFound(err, kisa.PartSecret, "reveal secret"); err != nil {
		return "", err
	}
	plain, err := openAD(s.aead, additionalData(account, id), sealed)
	if err != nil {
		return "", dbError("reveal secret", err)
	}
	return string(plain), nil
}
