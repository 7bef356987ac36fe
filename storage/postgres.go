// Package storage holds the adapters to the service's backing stores:
// PostgreSQL (accounts, keys and the read-only resources), Redis (result
// cache and job notifications) and MinIO (screenshots). Handlers never talk
// SQL; they call the types of this package.
package storage

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/jmoiron/sqlx"

	"github.com/kisa-dev/kisa"
)

// DB is the PostgreSQL store.
type DB struct {
	db *sqlx.DB
}

// maxConns bounds the connections of one process's pool.
const maxConns = 20

// Open connects to the PostgreSQL database at url and checks it answers.
// It returns an error when the URL is malformed or the server is down.
func Open(ctx context.Context, url string) (*DB, error) {
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("open postgres: %w", err)
	}
	db := sqlx.NewDb(stdlib.OpenDB(*cfg, stdlib.OptionAfterConnect(func(_ context.Context, c *pgx.Conn) error {
		encodeUUIDs(c.TypeMap())
		return nil
	})), "pgx")
	// As many idle connections as open ones: with fewer, a busy process
	// closes a connection each time one comes back past the idle limit and
	// opens a new one (a new PostgreSQL backend process) moments later.
	// Idle ones still close after ConnMaxIdleTime.
	db.SetMaxOpenConns(maxConns)
	db.SetMaxIdleConns(maxConns)
	db.SetConnMaxIdleTime(5 * time.Minute)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("connect to postgres: %w", err)
	}
	return &DB{db: db}, nil
}

// SQL returns the underlying *sql.DB, for migrations.
func (s *DB) SQL() *sql.DB { return s.db.DB }

// Close closes the connection pool.
func (s *DB) Close() error { return s.db.Close() }

// Ping reports whether PostgreSQL answers.
func (s *DB) Ping(ctx context.Context) error { return s.db.PingContext(ctx) }

// Account is a customer of the service.
type Account struct {
	ID               uuid.UUID `db:"id"`
	Name             string    `db:"name"`
	TwoFactorEnabled bool      `db:"two_factor_enabled"`
	CreatedAt        time.Time `db:"created_at"`
	UpdatedAt        time.Time `db:"updated_at"`
}

// CreateAccount stores a new account.
func (s *DB) CreateAccount(ctx context.Context, name string, twoFactor bool) (Account, error) {
	var a Account
	err := s.db.GetContext(ctx, &a, `
		INSERT INTO accounts (id, name, two_factor_enabled) VALUES ($1, $2, $3)
		RETURNING id, name, two_factor_enabled, created_at, updated_at`,
		uuid.New(), name, twoFactor)
	if err != nil {
		return Account{}, dbError("create account", err)
	}
	return a, nil
}

// AccountByName returns the oldest account with that name, or a
// kisa.NotFound failure.
func (s *DB) AccountByName(ctx context.Context, name string) (Account, error) {
	var a Account
	err := s.db.GetContext(ctx, &a, `
		SELECT id, name, two_factor_enabled, created_at, updated_at
		FROM accounts WHERE name = $1 ORDER BY created_at, id LIMIT 1`, name)
	return a, notFound(err, kisa.PartAccount, "account by name")
}

// SetTwoFactor records whether the account has 2FA enabled; a
// kisa.NotFound failure when there is no such account.
func (s *DB) SetTwoFactor(ctx context.Context, account uuid.UUID, enabled bool) error {
	res, err := s.db.ExecContext(ctx, `
		UPDATE accounts SET two_factor_enabled = $2, updated_at = now() WHERE id = $1`,
		account, enabled)
	return affected(res, err, kisa.PartAccount, "set 2fa")
}

// Cluster is one knowledge-base cluster (spec 2.1).
type Cluster struct {
	ID        uuid.UUID       `db:"id"`
	Name      string          `db:"name"`
	Type      string          `db:"type"`
	Metadata  json.RawMessage `db:"metadata"`
	CreatedAt time.Time       `db:"created_at"`
	UpdatedAt time.Time       `db:"updated_at"`
}

// CreateCluster stores a cluster; metadata must be a JSON object.
func (s *DB) CreateCluster(ctx context.Context, account uuid.UUID, name, typ string, metadata json.RawMessage) (uuid.UUID, error) {
	id := uuid.New()
	_, err := s.db.ExecContext(ctx, `
		INSERT INTO clusters (id, account_id, name, type, metadata) VALUES ($1, $2, $3, $4, $5)`,
		id, account, name, typ, string(metadata))
	if err != nil {
		return uuid.Nil, dbError("create cluster", err)
	}
	return id, nil
}

// ListClusters returns the account's clusters, oldest first (never nil).
func (s *DB) ListClusters(ctx context.Context, account uuid.UUID) ([]Cluster, error) {
	out := []Cluster{}
	err := s.db.SelectContext(ctx, &out, `
		SELECT id, name, type, metadata, created_at, updated_at
		FROM clusters WHERE account_id = $1 ORDER BY created_at, id`, account)
	if err != nil {
		return nil, dbError("list clusters", err)
	}
	return out, nil
}

// Integration is a third-party integration of an account (spec 2.2).
type Integration struct {
	ID        uuid.UUID       `db:"id"`
	Provider  string          `db:"provider"`
	Metadata  json.RawMessage `db:"metadata"`
	CreatedAt time.Time       `db:"created_at"`
}

// CreateIntegration stores an integration; metadata must be a JSON object.
func (s *DB) CreateIntegration(ctx context.Context, account uuid.UUID, provider string, metadata json.RawMessage) (uuid.UUID, error) {
	id := uuid.New()
	_, err := s.db.ExecContext(ctx, `
		INSERT INTO integrations (id, account_id, provider, metadata) VALUES ($1, $2, $3, $4)`,
		id, account, provider, string(metadata))
	if err != nil {
		return uuid.Nil, dbError("create integration", err)
	}
	return id, nil
}

// ListIntegrations returns the account's integrations, oldest first.
func (s *DB) ListIntegrations(ctx context.Context, account uuid.UUID) ([]Integration, error) {
	out := []Integration{}
	err := s.db.SelectContext(ctx, &out, `
		SELECT id, provider, metadata, created_at
		FROM integrations WHERE account_id = $1 ORDER BY created_at, id`, account)
	if err != nil {
		return nil, dbError("list integrations", err)
	}
	return out, nil
}

// Integration returns one of the account's integrations, or a
// kisa.NotFound failure.
func (s *DB) Integration(ctx context.Context, account, id uuid.UUID) (Integration, error) {
	var in Integration
	err := s.db.GetContext(ctx, &in, `
		SELECT id, provider, metadata, created_at
		FROM integrations WHERE id = $1 AND account_id = $2`, id, account)
	return in, notFound(err, kisa.PartIntegration, "get integration")
}

// notFound is err of the operation what: nil, the kisa.NotFound failure
// of thing when there is no row, else a database error (dbError). A row
// of another account is not found either: callers cannot tell the two
// apart, by design.
func notFound(err error, thing kisa.Part, what string) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, sql.ErrNoRows):
		return kisa.Fail(kisa.NotFound, thing, nil)
	default:
		return dbError(what, err)
	}
}

// affected is the error of the change what made to thing: nil when it
// changed a row, the kisa.NotFound failure of thing when none.
func affected(res sql.Result, err error, thing kisa.Part, what string) error {
	if err != nil {
		return dbError(what, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return dbError(what, err)
	}
	if n == 0 {
		return kisa.Fail(kisa.NotFound, thing, nil)
	}
	return nil
}

// AccountExists reports whether an account with id exists.
func (s *DB) AccountExists(ctx context.Context, id uuid.UUID) (bool, error) {
	var ok bool
	err := s.db.GetContext(ctx, &ok, `SELECT EXISTS (SELECT 1 FROM accounts WHERE id = $1)`, id)
	if err != nil {
		return false, dbError("account exists", err)
	}
	return ok, nil
}

// dbError wraps err of the operation what; when PostgreSQL could not be
// reached (no connection, a broken one, a server shutting down or
// starting up, a timeout) it is a kisa.Unavailable failure of the
// database, which the API answers with 503 and Retry-After.
func dbError(what string, err error) error {
	err = fmt.Errorf("%s: %w", what, err)
	if unreachable(err) {
		return kisa.Fail(kisa.Unavailable, kisa.PartDatabase, err)
	}
	return err
}

// unreachable tells a database that did not answer from one that
// answered with an error.
func unreachable(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return strings.HasPrefix(pgErr.Code, "08") || strings.HasPrefix(pgErr.Code, "57P")
	}
	var netErr net.Error
	var connErr *pgconn.ConnectError
	return errors.As(err, &netErr) || errors.As(err, &connErr) || pgconn.Timeout(err) ||
		errors.Is(err, driver.ErrBadConn) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, context.DeadlineExceeded)
}
