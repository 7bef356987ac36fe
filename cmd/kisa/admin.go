package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/google/uuid"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/apikey"
	"github.com/kisa-dev/kisa/config"
	"github.com/kisa-dev/kisa/storage"
)

// admin is what every admin command gets: the stores, and its flags.
type admin struct {
	e       env
	cfg     config.Config
	db      *storage.DB
	secrets *storage.Secrets
}

// adminCommand is one `kisa admin <noun> <verb>`. define declares its
// flags on fs and returns the function that runs once they are parsed;
// check runs before anything touches the database.
type adminCommand struct {
	path    string
	summary string
	define  func(fs *flag.FlagSet) (check func() error, do func(ctx context.Context, a *admin) (any, error))
}

func adminCommands() []adminCommand {
	return []adminCommand{
		{"account create", "create an account; prints {\"id\"}", defineAccountCreate},
		{"account set-2fa", "record whether an account has 2FA enabled", defineSet2FA},
		{"account set-limits", "set the per-minute budgets of an account's keys (null: the default)", defineSetLimits},
		{"account store-queries", "record whether an account keeps the queries of its browser requests in its observations", defineSetStoreQueries},
		{"account webhook-secret", "print the account's webhook signing secret, made on first use; --rotate makes a new one; prints {\"secret\"}", defineWebhookSecret},
		{"key create", "create an API key; prints {\"id\",\"key\"} (the key is shown this once)", defineKeyCreate},
		{"key revoke", "revoke an API key", defineKeyRevoke},
		{"cluster create", "create a knowledge-base cluster; prints {\"id\"}", defineClusterCreate},
		{"integration create", "create an integration; prints {\"id\"}", defineIntegrationCreate},
		{"secret create", "store a secret (encrypted); prints {\"id\"}", defineSecretCreate},
		{"secret rotate-key", "re-encrypt every secret under KISA_SECRETS_KEY, the old key read from stdin; prints {\"rotated\",\"skipped\"}", defineSecretRotateKey},
		{"demo", "create (or reuse) the demo account and print a new key for it", defineDemo},
	}
}

// runAdmin dispatches `kisa admin ...`. Every command prints one JSON
// object on stdout; bad input exits non-zero and writes nothing.
func runAdmin(ctx context.Context, e env, args []string) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		adminUsage(e.stdout)
		if len(args) == 0 {
			return errors.New("admin: no command given")
		}
		return nil
	}
	for _, c := range adminCommands() {
		words := strings.Fields(c.path)
		if len(args) < len(words) || strings.Join(args[:len(words)], " ") != c.path {
			continue
		}
		fs := flags(e, "admin "+c.path, c.summary)
		check, do := c.define(fs)
		if err := parseFlags(fs, args[len(words):]); err != nil {
			return err
		}
		if err := check(); err != nil {
			return fmt.Errorf("admin %s: %w", c.path, err)
		}
		return runAdminCommand(ctx, e, c.path, do)
	}
	adminUsage(e.stderr)
	return fmt.Errorf("admin: unknown command %q", strings.Join(args, " "))
}

func runAdminCommand(ctx context.Context, e env, path string, do func(context.Context, *admin) (any, error)) error {
	cfg, err := loadConfig(e)
	if err != nil {
		return err
	}
	db, secrets, err := openAccountStores(ctx, cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	out, err := do(ctx, &admin{e: e, cfg: cfg, db: db, secrets: secrets})
	if err != nil {
		return fmt.Errorf("admin %s: %w", path, err)
	}
	return printJSON(e.stdout, out)
}

func adminUsage(w io.Writer) {
	fmt.Fprintln(w, "Usage: kisa admin <command> [flags]\n\nCommands:")
	for _, c := range adminCommands() {
		fmt.Fprintf(w, "  %-20s %s\n", c.path, c.summary)
	}
	fmt.Fprintln(w, "\nRun 'kisa admin <command> --help' for its flags.")
}

func printJSON(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// idFlag is a flag holding a UUID.
type idFlag struct {
	id  uuid.UUID
	set bool
}

// String shows the flag's value (flag.Value).
func (f *idFlag) String() string { return f.id.String() }

// Set parses a UUID (flag.Value); it fails on anything else.
func (f *idFlag) Set(s string) error {
	id, err := uuid.Parse(s)
	if err != nil {
		return errors.New("must be a UUID")
	}
	f.id, f.set = id, true
	return nil
}

func required(name string, ok bool) error {
	if !ok {
		return fmt.Errorf("--%s is required", name)
	}
	return nil
}

// firstError returns the first non-nil error.
func firstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// checkText checks a required free-text flag.
func checkText(name, v string, max int) error {
	switch {
	case strings.TrimSpace(v) == "":
		return fmt.Errorf("--%s is required", name)
	case len([]rune(v)) > max:
		return fmt.Errorf("--%s must be at most %d characters", name, max)
	}
	return nil
}

// checkObject checks that a flag holds a JSON object.
func checkObject(name, v string) error {
	var m map[string]any
	if err := json.Unmarshal([]byte(v), &m); err != nil || m == nil {
		return fmt.Errorf("--%s must be a JSON object, e.g. '{\"url\":\"https://example.com\"}'", name)
	}
	return nil
}

// mustAccount fails when the account does not exist.
func (a *admin) mustAccount(ctx context.Context, id uuid.UUID) error {
	ok, err := a.db.AccountExists(ctx, id)
	if err != nil {
		return err
	}
	if !ok {
		return noSuch(kisa.Fail(kisa.NotFound, kisa.PartAccount, nil), "account", id)
	}
	return nil
}

// noSuch is what a command says of err, the error of a change to the
// thing what with id: "no <what> with id <id>" for a kisa.NotFound
// failure, err itself otherwise.
func noSuch(err error, what string, id uuid.UUID) error {
	if errors.Is(err, kisa.NotFound) {
		return fmt.Errorf("no %s with id %s", what, id)
	}
	return err
}

type idOut struct {
	ID string `json:"id"`
}

func defineAccountCreate(fs *flag.FlagSet) (func() error, func(context.Context, *admin) (any, error)) {
	name := fs.String("name", "", "account name (required)")
	twoFA := fs.Bool("2fa", false, "the account has two-factor authentication enabled")
	return func() error { return checkText("name", *name, 200) },
		func(ctx context.Context, a *admin) (any, error) {
			acc, err := a.db.CreateAccount(ctx, strings.TrimSpace(*name), *twoFA)
			return idOut{acc.ID.String()}, err
		}
}

func defineSet2FA(fs *flag.FlagSet) (func() error, func(context.Context, *admin) (any, error)) {
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
			if err := a.db.SetTwoFactor(ctx, account.id, *enabled == "true"); err != nil {
				return nil, noSuch(err, "account", account.id)
			}
			return map[string]any{"id": account.id.String(), "two_factor_enabled": *enabled == "true"}, nil
		}
}

func parseScopes(s string) ([]string, error) {
	if s == "" {
		return apikey.AllScopes(), nil
	}
	var out []string
	for _, sc := range strings.Split(s, ",") {
		sc = strings.TrimSpace(sc)
		if !apikey.ValidScope(sc) {
			return nil, fmt.Errorf("--scopes: unknown scope %q; allowed: %s", sc, strings.Join(apikey.AllScopes(), ", "))
		}
		out = append(out, sc)
	}
	return out, nil
}

// createKey makes a key for account and stores its hash.
func (a *admin) createKey(ctx context.Context, account uuid.UUID, scopes []string) (map[string]string, error) {
	k, err := apikey.New(a.cfg.APIKeyPrefix)
	if err != nil {
		return nil, err
	}
	id, err := a.db.CreateAPIKey(ctx, account, k.Lookup, k.Hash, scopes)
	if err != nil {
		return nil, err
	}
	return map[string]string{"id": id.String(), "key": k.Plain}, nil
}

func defineKeyCreate(fs *flag.FlagSet) (func() error, func(context.Context, *admin) (any, error)) {
	var account idFlag
	fs.Var(&account, "account", "account id (required)")
	scopeList := fs.String("scopes", "", "comma-separated scopes (default all: "+strings.Join(apikey.AllScopes(), ",")+")")
	var scopes []string
	return func() (err error) {
			if err := required("account", account.set); err != nil {
				return err
			}
			scopes, err = parseScopes(*scopeList)
			return err
		},
		func(ctx context.Context, a *admin) (any, error) {
			if err := a.mustAccount(ctx, account.id); err != nil {
				return nil, err
			}
			return a.createKey(ctx, account.id, scopes)
		}
}

func defineKeyRevoke(fs *flag.FlagSet) (func() error, func(context.Context, *admin) (any, error)) {
	var key idFlag
	fs.Var(&key, "id", "key id (required)")
	return func() error { return required("id", key.set) },
		func(ctx context.Context, a *admin) (any, error) {
			if err := a.db.RevokeAPIKey(ctx, key.id); err != nil {
				return nil, noSuch(err, "key", key.id)
			}
			return map[string]any{"id": key.id.String(), "revoked": true}, nil
		}
}

func defineClusterCreate(fs *flag.FlagSet) (func() error, func(context.Context, *admin) (any, error)) {
	var account idFlag
	fs.Var(&account, "account", "account id (required)")
	name := fs.String("name", "", "cluster name (required)")
	typ := fs.String("type", "", "cluster type, e.g. website or sitemap (required)")
	meta := fs.String("metadata", "{}", "metadata, a JSON object")
	return func() error {
			*name, *typ = strings.TrimSpace(*name), strings.TrimSpace(*typ)
			return firstError(required("account", account.set), checkText("name", *name, 200),
				checkText("type", *typ, 64), checkObject("metadata", *meta))
		},
		func(ctx context.Context, a *admin) (any, error) {
			if err := a.mustAccount(ctx, account.id); err != nil {
				return nil, err
			}
			id, err := a.db.CreateCluster(ctx, account.id, *name, *typ, json.RawMessage(*meta))
			return idOut{id.String()}, err
		}
}

func defineIntegrationCreate(fs *flag.FlagSet) (func() error, func(context.Context, *admin) (any, error)) {
	var account idFlag
	fs.Var(&account, "account", "account id (required)")
	provider := fs.String("provider", "", "provider, e.g. google-looker-studio (required)")
	meta := fs.String("metadata", "{}", "metadata, a JSON object")
	return func() error {
			*provider = strings.TrimSpace(*provider)
			return firstError(required("account", account.set), checkText("provider", *provider, 100),
				checkObject("metadata", *meta))
		},
		func(ctx context.Context, a *admin) (any, error) {
			if err := a.mustAccount(ctx, account.id); err != nil {
				return nil, err
			}
			id, err := a.db.CreateIntegration(ctx, account.id, *provider, json.RawMessage(*meta))
			return idOut{id.String()}, err
		}
}

func defineSecretCreate(fs *flag.FlagSet) (func() error, func(context.Context, *admin) (any, error)) {
	var account idFlag
	fs.Var(&account, "account", "account id (required)")
	name := fs.String("name", "", "secret name (required)")
	value := fs.String("value", "", "secret value; - reads it from standard input (required)")
	return func() error {
			*name = strings.TrimSpace(*name)
			return firstError(required("account", account.set), checkText("name", *name, 200),
				required("value", *value != ""))
		},
		func(ctx context.Context, a *admin) (any, error) {
			v := *value
			if v == "-" {
				b, err := io.ReadAll(io.LimitReader(a.e.stdin, 64<<10+1))
				if err != nil {
					return nil, fmt.Errorf("read value: %w", err)
				}
				v = strings.TrimRight(string(b), "\r\n")
			}
			if v == "" || len(v) > 64<<10 {
				return nil, errors.New("--value must be 1 byte to 64 KiB")
			}
			if err := a.mustAccount(ctx, account.id); err != nil {
				return nil, err
			}
			id, err := a.secrets.Create(ctx, account.id, *name, v)
			return idOut{id.String()}, err
		}
}

func defineWebhookSecret(fs *flag.FlagSet) (func() error, func(context.Context, *admin) (any, error)) {
	var account idFlag
	fs.Var(&account, "account", "account id (required)")
	rotate := fs.Bool("rotate", false, "replace the secret with a new one (the old one stops verifying at once)")
	return func() error { return required("account", account.set) },
		func(ctx context.Context, a *admin) (any, error) {
			if err := a.mustAccount(ctx, account.id); err != nil {
				return nil, err
			}
			secret, err := a.secrets.WebhookSecret(ctx, account.id, *rotate)
			return map[string]string{"secret": secret}, err
		}
}
