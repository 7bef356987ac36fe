package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strconv"

	"github.com/kisa-dev/kisa/config"
	"github.com/kisa-dev/kisa/storage"
)

// limitFlag is a per-minute budget: a whole number from 0 (no limit) to
// config.MaxLimit, or "default" to clear the account's override.
type limitFlag struct {
	change storage.LimitChange
}

// String shows the flag's value (flag.Value).
func (f *limitFlag) String() string {
	if f.change.Value == nil {
		return "default"
	}
	return strconv.Itoa(*f.change.Value)
}

// Set parses a budget (flag.Value).
func (f *limitFlag) Set(s string) error {
	if s == "default" {
		f.change = storage.LimitChange{Set: true}
		return nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > config.MaxLimit {
		return fmt.Errorf("must be a whole number from 0 (no limit) to %d, or default", config.MaxLimit)
	}
	f.change = storage.LimitChange{Set: true, Value: &n}
	return nil
}

func defineSetLimits(fs *flag.FlagSet) (func() error, func(context.Context, *admin) (any, error)) {
	var account idFlag
	var ai, other limitFlag
	fs.Var(&account, "account", "account id (required)")
	fs.Var(&ai, "ai", "AI requests per minute for each of the account's keys: 0 (no limit) to 1000000000, or default (KISA_LIMIT_AI)")
	fs.Var(&other, "other", "other requests per minute for each of the account's keys, or default (KISA_LIMIT_OTHER)")
	return func() error {
			if err := required("account", account.set); err != nil {
				return err
			}
			if !ai.change.Set && !other.change.Set {
				return errors.New("--ai or --other is required")
			}
			return nil
		},
		func(ctx context.Context, a *admin) (any, error) {
			l, err := a.db.SetAccountLimits(ctx, account.id, ai.change, other.change)
			if err != nil {
				return nil, noSuch(err, "account", account.id)
			}
			return map[string]any{"id": account.id.String(), "limit_ai": l.AI, "limit_other": l.Other}, nil
		}
}
