package main

import (
	"fmt"
	"log/slog"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"github.com/kisa-dev/kisa/config"
	"github.com/kisa-dev/kisa/monitor"
	"github.com/kisa-dev/kisa/overview"
	"github.com/kisa-dev/kisa/storage"
	"github.com/kisa-dev/kisa/webhook"
	"github.com/kisa-dev/kisa/worker"
)

// newMonitors builds the monitors use case; reader is nil in the web
// process (it only stores monitors and starts runs).
func newMonitors(cfg config.Config, db *storage.DB, rdb *redis.Client, shots *storage.Artifacts,
	secrets *storage.Secrets, reader monitor.Reader, log *slog.Logger) *monitor.Service {
	o := monitor.Options{DB: db, Queue: asynq.NewClientFromRedisClient(rdb), Artifacts: shots,
		Secrets: secrets, HTTP: webhook.Guard{AllowPrivate: cfg.WebhookAllowPrivate}.Client(),
		Limits: cfg.MonitorLimits(), Retention: cfg.MonitorRetention,
		ReadingTimeout: cfg.OverviewTimeout + overview.TaskMargin, Logger: log}
	if reader != nil {
		o.Reader = reader
	}
	return monitor.New(o)
}

// startMonitors starts a worker's monitor reading server and the
// monitors' periodic task manager; stop shuts both down.
func startMonitors(cfg config.Config, rdb *redis.Client, db *storage.DB, mons *monitor.Service, log *slog.Logger) (stop func(), err error) {
	srv := worker.NewMonitorServer(rdb, cfg.MonitorReadings(), cfg.ShutdownTimeout, log)
	if err := srv.Start(worker.MonitorMux(mons)); err != nil {
		return nil, fmt.Errorf("start monitor server: %w", err)
	}
	conn, err := cfg.RedisClientPool(schedulerPool)
	if err != nil {
		srv.Shutdown()
		return nil, fmt.Errorf("start monitor scheduler: %w", err)
	}
	mgr, err := worker.NewMonitorScheduler(conn, monitor.Configs{DB: db}, log)
	if err == nil {
		err = mgr.Start()
	}
	if err != nil {
		conn.Close()
		srv.Shutdown()
		return nil, fmt.Errorf("start monitor scheduler: %w", err)
	}
	return func() { mgr.Shutdown(); srv.Shutdown() }, nil
}
