package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"github.com/kisa-dev/kisa/api"
	"github.com/kisa-dev/kisa/migrations"
	"github.com/kisa-dev/kisa/ops"
	"github.com/kisa-dev/kisa/overview"
	"github.com/kisa-dev/kisa/storage"
	"github.com/kisa-dev/kisa/webhook"
)

// runWeb serves the HTTP API on PORT until ctx is cancelled, then drains
// in-flight requests.
func runWeb(ctx context.Context, e env, args []string) error {
	cfg, err := startCommand(e, "web", "Serve the HTTP API on $PORT (all settings from the environment).", args)
	if err != nil {
		return err
	}
	log := newLogger(e.stderr, cfg)
	gin.SetMode(gin.ReleaseMode)
	// Request ids are UUIDs: draw their randomness from a buffer rather
	// than with a system call per request.
	uuid.EnableRandPool()
	// Web's heap is small (tens of MB) and short-lived per request: a GC
	// target of 400% spends far less CPU on collection for a few MB more.
	// An operator's GOGC wins.
	if e.getenv("GOGC") == "" {
		debug.SetGCPercent(webGCPercent)
	}
	db, secrets, err := openAccountStores(ctx, cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	rdb, shots, err := openJobStores(ctx, cfg)
	if err != nil {
		return err
	}
	defer rdb.Close()
	// The per-request Redis calls (limits, cache reads) go through the
	// client's auto-pipeliner: concurrent requests share a round trip's
	// write and read instead of making one each.
	shared, err := rdb.AutoPipeline()
	if err != nil {
		return fmt.Errorf("redis auto-pipelining: %w", err)
	}
	defer shared.Close()
	results, err := storage.NewResults(rdb, storage.KeyPrefix)
	if err != nil {
		return err
	}
	visits := newVisits(cfg, rdb, results, log)
	dashboard, err := newDashboard(cfg)
	if err != nil {
		return err
	}
	if dashboard != nil {
		defer dashboard.Close()
	}
	reg := ops.NewRegistry()
	recorder := newObservationWriter(cfg, db, reg, log)
	defer closeWriter(recorder, log)
	srv := api.New(api.Options{
		DB: db, Secrets: secrets, KeyPrefix: cfg.APIKeyPrefix, DocsURL: cfg.DocsURL,
		KeyCacheTTL: cfg.KeyCacheTTL, Logger: log,
		Limits: api.Limits{Redis: shared, AI: cfg.LimitAI, Other: cfg.LimitOther, Concurrent: cfg.LimitConcurrent,
			Hold: cfg.OverviewTimeout + 30*time.Second},
		Observations: recorder, TrustedProxies: cfg.TrustedProxies,
		Registry: reg, AdminToken: cfg.AdminToken, Dashboard: dashboardHandler(dashboard),
		Countries:   cfg.Proxies,
		Overviews:   overview.New(overview.Options{Visits: visits, Artifacts: shots, Logger: log}),
		Jobs:        newJobs(cfg, visits, db, secrets, shots, log),
		Monitors:    newMonitors(cfg, db, rdb, shots, secrets, nil, log),
		Webhooks:    webhook.Guard{AllowPrivate: cfg.WebhookAllowPrivate},
		Completions: api.Completions{URL: cfg.CompletionsURL, Key: cfg.CompletionsKey, Timeout: cfg.CompletionsTimeout},
		HealthChecks: ops.Checks{
			"postgres": db.Ping,
			"redis":    func(ctx context.Context) error { return rdb.Ping(ctx).Err() },
			"minio":    shots.Ping,
		},
	})
	ln, err := net.Listen("tcp", net.JoinHostPort(cfg.Host, strconv.Itoa(cfg.Port)))
	if err != nil {
		return fmt.Errorf("PORT, KISA_HOST: %w", err)
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: cfg.OverviewTimeout + 30*time.Second, IdleTimeout: 2 * time.Minute}
	log.Info("web listening", "addr", ln.Addr().String())
	return ops.Serve(ctx, hs, ln, cfg.ShutdownTimeout)
}

// webGCPercent is kisa web's GC target unless GOGC is set.
const webGCPercent = 400

// runMigrate applies the migrations to DATABASE_URL.
func runMigrate(ctx context.Context, e env, args []string) error {
	cfg, err := startCommand(e, "migrate", "Apply pending migrations to $DATABASE_URL. Safe to run from several processes at once.", args)
	if err != nil {
		return err
	}
	db, err := openDB(ctx, cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	applied, err := migrations.Up(ctx, db.SQL())
	if err != nil {
		return err
	}
	return printJSON(e.stdout, map[string]any{"applied": applied})
}
