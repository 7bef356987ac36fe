package main

import (
	"context"
	"fmt"

	"github.com/kisa-dev/kisa/storage"
	"github.com/kisa-dev/kisa/worker"
	"github.com/kisa-dev/kisa/worker/browser"
)

// runWorker runs one worker process: one Chromium with
// KISA_BROWSER_CONCURRENCY tabs, and an asynq server with as many slots.
func runWorker(ctx context.Context, e env, args []string) error {
	cfg, err := startCommand(e, "worker", "Run a browser worker: an asynq server whose jobs run in a pool of Chromium tabs.", args)
	if err != nil {
		return err
	}
	log := newLogger(e.stderr, cfg.LogLevel)
	rdb, shots, err := openJobStores(ctx, cfg)
	if err != nil {
		return err
	}
	defer rdb.Close()
	pool, err := browser.NewPool(browser.Config{ExecPath: cfg.ChromePath, Tabs: cfg.BrowserConcurrency,
		RecycleAfter: cfg.BrowserRecycle, JobTimeout: cfg.JobTimeout, SettleQuiet: cfg.OverviewSettle,
		OverviewWait: cfg.OverviewWait, OverviewAppear: cfg.OverviewAppear, Logger: log})
	if err != nil {
		return err
	}
	if err := pool.Start(ctx); err != nil {
		return err
	}
	defer pool.Close()
	h, err := worker.NewHandler(worker.HandlerOptions{Pool: pool, Screenshots: shots,
		Results: storage.NewResults(rdb, redisPrefix), SearchURL: cfg.SearchURL, Logger: log})
	if err != nil {
		return err
	}
	srv := worker.NewServer(rdb, worker.ServerOptions{Concurrency: cfg.BrowserConcurrency, Timing: cfg.Timing(), Logger: log})
	if err := srv.Start(worker.Mux(h)); err != nil {
		return fmt.Errorf("start worker: %w", err)
	}
	log.Info("worker started", "tabs", cfg.BrowserConcurrency, "search_url", cfg.SearchURL)
	<-ctx.Done()
	srv.Shutdown()
	return nil
}
