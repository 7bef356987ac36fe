package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/hibiken/asynq"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/redis/go-redis/v9"

	"github.com/kisa-dev/kisa/config"
	"github.com/kisa-dev/kisa/overview"
	"github.com/kisa-dev/kisa/storage"
	"github.com/kisa-dev/kisa/webhook"
)

// loadConfig reads and validates the settings once.
func loadConfig(e env) (config.Config, error) {
	cfg, err := config.Load(e.getenv)
	if err != nil {
		return cfg, err
	}
	return cfg, cfg.Validate()
}

// startCommand parses a flagless subcommand's arguments (only --help) and
// reads the configuration; it returns flag.ErrHelp after printing help.
func startCommand(e env, name, summary string, args []string) (config.Config, error) {
	if err := parseFlags(flags(e, name, summary), args); err != nil {
		return config.Config{}, err
	}
	return loadConfig(e)
}

// newLogger writes JSON lines to w at the configured level, starting with
// a warning for each renamed variable set under its old name.
func newLogger(w io.Writer, cfg config.Config) *slog.Logger {
	var l slog.Level
	_ = l.UnmarshalText([]byte(cfg.LogLevel))
	log := slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: l}))
	for _, r := range cfg.OldNames {
		log.Warn("environment variable renamed: set the new name; the old one stops working in the next release",
			"old", r.Old, "new", r.New)
	}
	return log
}

// pgCannotConnectNow is PostgreSQL's SQLSTATE for "the database system is
// starting up".
const pgCannotConnectNow = "57P03"

// startWait bounds how long a starting process waits for PostgreSQL.
const startWait = 30 * time.Second

// openDB connects to PostgreSQL, waiting up to startWait for a server
// that is still starting (see connectDB).
func openDB(ctx context.Context, cfg config.Config) (*storage.DB, error) {
	return connectDB(ctx, cfg.DatabaseURL, startWait)
}

// connectDB connects to url, retrying with backoff (100 ms doubling to
// 2 s) for up to bound while the server refuses connections or says it is
// starting up; any other answer (a bad password, no such database) fails
// at once.
func connectDB(ctx context.Context, url string, bound time.Duration) (*storage.DB, error) {
	ctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	for pause := 100 * time.Millisecond; ; pause = min(2*pause, 2*time.Second) {
		db, err := storage.Open(ctx, url)
		if err == nil {
			return db, nil
		}
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && pgErr.Code != pgCannotConnectNow {
			return nil, fmt.Errorf("%w (DATABASE_URL)", err)
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%w (waited %s; DATABASE_URL; start PostgreSQL with: make services)", err, bound)
		case <-time.After(pause):
		}
	}
}

// openAccountStores connects to PostgreSQL with the secret store; it
// needs KISA_SECRETS_KEY. Close the DB when done.
func openAccountStores(ctx context.Context, cfg config.Config) (*storage.DB, *storage.Secrets, error) {
	if err := cfg.RequireSecretsKey(); err != nil {
		return nil, nil, err
	}
	db, err := openDB(ctx, cfg)
	if err != nil {
		return nil, nil, err
	}
	secrets, err := storage.NewSecrets(db, cfg.SecretsKey)
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	return db, secrets, nil
}

// openRedis connects to Redis (or a Sentinel set, see REDIS_URL).
func openRedis(ctx context.Context, cfg config.Config) (*redis.Client, error) {
	rdb, err := cfg.RedisClient()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := rdb.Ping(ctx).Err(); err != nil {
		rdb.Close()
		return nil, fmt.Errorf("connect to redis: %w (REDIS_URL; start Redis with: make services)", err)
	}
	return rdb, nil
}

// openJobStores connects what both sides of the overview jobs use: Redis
// and the screenshot bucket. Close the client when done.
func openJobStores(ctx context.Context, cfg config.Config) (*redis.Client, *storage.Artifacts, error) {
	rdb, err := openRedis(ctx, cfg)
	if err != nil {
		return nil, nil, err
	}
	shots, err := openArtifacts(ctx, cfg)
	if err != nil {
		rdb.Close()
		return nil, nil, err
	}
	return rdb, shots, nil
}

// openArtifacts connects to MinIO and makes sure the bucket and its
// expiry rule exist.
func openArtifacts(ctx context.Context, cfg config.Config) (*storage.Artifacts, error) {
	if err := cfg.RequireS3(); err != nil {
		return nil, err
	}
	shots, err := storage.NewArtifacts(storage.S3Config{Endpoint: cfg.S3Endpoint, AccessKey: cfg.S3AccessKey,
		SecretKey: cfg.S3SecretKey, Bucket: cfg.S3Bucket, Region: cfg.S3Region, UseSSL: cfg.S3UseSSL,
		PublicURL: cfg.CDNURL})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := shots.EnsureBucket(ctx); err != nil {
		return nil, fmt.Errorf("%w (KISA_S3_*; start MinIO with: make services)", err)
	}
	return shots, nil
}

// newVisits builds the queue of browser visits on Redis: the web's
// overview requests and jobs, and the worker's monitor readings and
// maintenance, enqueue and wait through it.
func newVisits(cfg config.Config, rdb *redis.Client, results *storage.Results, log *slog.Logger) *overview.Visits {
	return overview.NewVisits(overview.VisitsOptions{
		Results: results, Client: asynq.NewClientFromRedisClient(rdb),
		Inspector: asynq.NewInspectorFromRedisClient(rdb), Timing: cfg.Timing(), QueueMax: cfg.QueueMax, Logger: log,
	})
}

// newJobs builds the async job use case: webhooks sent through the SSRF
// guard's client.
func newJobs(cfg config.Config, visits *overview.Visits, db *storage.DB, secrets *storage.Secrets, shots *storage.Artifacts, log *slog.Logger) *overview.Jobs {
	return overview.NewJobs(overview.JobsOptions{
		Visits: visits, Artifacts: shots, DB: db, Secrets: secrets,
		HTTP:      webhook.Guard{AllowPrivate: cfg.WebhookAllowPrivate}.Client(),
		Retention: cfg.JobRetention, Logger: log,
	})
}
