package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"

	"github.com/google/uuid"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/apikey"
)

// demoAccount is the name `kisa admin demo` finds its account by.
const demoAccount = "Demo account"

func defineDemo(fs *flag.FlagSet) (func() error, func(context.Context, *admin) (any, error)) {
	return func() error { return nil }, func(ctx context.Context, a *admin) (any, error) {
		acc, err := a.db.AccountByName(ctx, demoAccount)
		if errors.Is(err, kisa.NotFound) {
			acc, err = a.db.CreateAccount(ctx, demoAccount, true)
			if err == nil {
				err = a.seedDemo(ctx, acc.ID)
			}
		} else if err == nil {
			err = a.reuseDemo(ctx, acc.ID)
		}
		if err != nil {
			return nil, err
		}
		key, err := a.createKey(ctx, acc.ID, apikey.AllScopes())
		if err != nil {
			return nil, err
		}
		return map[string]string{"account": acc.ID.String(), "key": key["key"]}, nil
	}
}

// seedDemo gives a new demo account a few clusters, integrations and
// secrets. Secret values are random: nothing to copy out of the repo.
func (a *admin) seedDemo(ctx context.Context, account uuid.UUID) error {
	clusters := []struct{ name, typ, meta string }{
		{"Company website", "website", `{"url":"https://www.example.com","title":"Example Inc.","pullType":"entire-website","excludeFooter":true,"excludeHeader":false}`},
		{"Product sitemap", "sitemap", `{"url":"https://www.example.com/sitemap.xml"}`},
	}
	for _, c := range clusters {
		if _, err := a.db.CreateCluster(ctx, account, c.name, c.typ, json.RawMessage(c.meta)); err != nil {
			return err
		}
	}
	integrations := []struct{ provider, meta string }{
		{"google-looker-studio", `{"id":"108234567890123456789","email":"reports@example.com","name":"Example Reports","picture":"https://www.example.com/avatar.png"}`},
		{"slack", `{}`},
	}
	for _, in := range integrations {
		if _, err := a.db.CreateIntegration(ctx, account, in.provider, json.RawMessage(in.meta)); err != nil {
			return err
		}
	}
	for _, name := range []string{"OPENAI_API_KEY", "WEBHOOK_SIGNING_SECRET"} {
		b := make([]byte, 16)
		if _, err := rand.Read(b); err != nil {
			return err
		}
		if _, err := a.secrets.Create(ctx, account, name, "demo-"+hex.EncodeToString(b)); err != nil {
			return err
		}
	}
	return nil
}

// reuseDemo makes sure an existing demo account has 2FA and its seed data.
func (a *admin) reuseDemo(ctx context.Context, account uuid.UUID) error {
	if err := a.db.SetTwoFactor(ctx, account, true); err != nil {
		return err
	}
	clusters, err := a.db.ListClusters(ctx, account)
	if err != nil || len(clusters) > 0 {
		return err
	}
	return a.seedDemo(ctx, account)
}
