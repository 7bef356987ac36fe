package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/kisa-dev/kisa/storage"
)

// defineSecretRotateKey is `kisa admin secret rotate-key --old-key -`: it
// re-encrypts every secret under KISA_SECRETS_KEY, the old key being read
// once from standard input, never from the command line (where ps shows it).
func defineSecretRotateKey(fs *flag.FlagSet) (func() error, func(context.Context, *admin) (any, error)) {
	oldKey := fs.String("old-key", "", "- reads the old key (base64) once from standard input (required); the new key is KISA_SECRETS_KEY")
	return func() error {
			if *oldKey != "-" {
				return errors.New("--old-key must be -: the old key is read from standard input, never from the command line")
			}
			return nil
		},
		func(ctx context.Context, a *admin) (any, error) {
			old, err := readKey(a.e.stdin)
			if err != nil {
				return nil, err
			}
			if bytes.Equal(old, a.cfg.SecretsKey) {
				return nil, errors.New("the old key is KISA_SECRETS_KEY itself; set KISA_SECRETS_KEY to the new key")
			}
			res, err := a.secrets.RotateFrom(ctx, old)
			if errors.Is(err, storage.ErrWrongOldKey) {
				return nil, fmt.Errorf("wrong old key? %w", err)
			}
			return res, err
		}
}

// readKey reads a base64 32-byte key from r; the error never shows it.
func readKey(r io.Reader) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, 1024))
	if err != nil {
		return nil, fmt.Errorf("read the old key: %w", err)
	}
	key, err := base64.StdEncoding.DecodeString(string(bytes.TrimSpace(b)))
	clear(b)
	if err != nil || len(key) != 32 {
		return nil, errors.New("the old key on standard input must be 32 bytes encoded in base64")
	}
	return key, nil
}
