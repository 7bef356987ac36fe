package main

import (
	"context"
	"errors"
	"flag"
)

// defineSetStoreQueries is `kisa admin account store-queries`: the
// account's opt-in to keeping the queries of its browser requests in its
// observations (off by default).
func defineSetStoreQueries(fs *flag.FlagSet) (func() error, func(context.Context, *admin) (any, error)) {
	var account idFlag
	fs.Var(&account, "account", "account id (required)")
	enabled := fs.String("enabled", "", "true or false (required)")
	return func() error {
			if err := required("account", account.set); err != nil {
				return err
			}
			if *enabled != "true" && *enabled != "false" {
				return errors.New("--enabled must be true or false")
			}
			return nil
		},
		func(ctx context.Context, a *admin) (any, error) {
			if err := a.db.SetStoreQueries(ctx, account.id, *enabled == "true"); err != nil {
				return nil, noSuch(err, "account", account.id)
			}
			return map[string]any{"id": account.id.String(), "store_queries": *enabled == "true"}, nil
		}
}
