package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/hibiken/asynq"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/config"
	"github.com/kisa-dev/kisa/jobs"
	"github.com/kisa-dev/kisa/monitor"
	"github.com/kisa-dev/kisa/observe"
	"github.com/kisa-dev/kisa/ops"

	"github.com/redis/go-redis/v9"

	"github.com/kisa-dev/kisa/overview"
	"github.com/kisa-dev/kisa/storage"
	"github.com/kisa-dev/kisa/worker"
	"github.com/kisa-dev/kisa/worker/browser"
)

// runWorker runs one worker process: one Chromium with
// KISA_BROWSER_CONCURRENCY tabs and an asynq server with as many slots;
// a second asynq server for webhook deliveries and housekeeping, and the
// scheduler of the periodic maintenance task. It needs PostgreSQL and
// KISA_SECRETS_KEY to end async jobs and sign their webhooks.
func runWorker(ctx context.Context, e env, args []string) error {
	cfg, err := startCommand(e, "worker", "Run a browser worker: an asynq server whose tasks run in a pool of Chromium tabs.", args)
	if err != nil {
		return err
	}
	log := newLogger(e.stderr, cfg)
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
	results, err := storage.NewResults(rdb, storage.KeyPrefix)
	if err != nil {
		return err
	}
	queue := newVisits(cfg, rdb, results, log)
	js := newJobs(cfg, queue, db, secrets, shots, log)
	mons := newMonitors(cfg, db, rdb, shots, secrets, queue, log)
	pool, err := browser.NewPool(browser.Config{ExecPath: cfg.ChromePath, Tabs: cfg.BrowserConcurrency + cfg.AssistantConcurrency,
		AnswerWait:   cfg.AssistantWait,
		RecycleAfter: cfg.BrowserRecycle, VisitTimeout: cfg.VisitTimeout, SettleQuiet: cfg.OverviewSettle,
		OverviewWait: cfg.OverviewWait, OverviewAppear: cfg.OverviewAppear, SearchURL: cfg.SearchURL,
		AllowHosts: cfg.BrowserAllowHosts, Logger: log})
	if err != nil {
		return err
	}
	reg := ops.NewRegistry()
	metrics := worker.NewMetrics(reg, pool)
	reg.MustRegister(ops.NewQueueCollector(asynq.NewInspectorFromRedisClient(rdb), jobs.QueueOverview, jobs.QueueAssistants,
		jobs.QueueMonitors, jobs.QueueWebhooks, jobs.QueueMaintenance))
	opsCtx, stopOps := context.WithCancel(ctx)
	defer stopOps()
	served, err := serveWorkerOps(opsCtx, cfg, ops.Mux(ops.Checks{
		"postgres": db.Ping,
		"redis":    func(ctx context.Context) error { return rdb.Ping(ctx).Err() },
		"minio":    shots.Ping,
		"browser":  func(context.Context) error { return pool.Ready() },
	}, reg, cfg.AdminToken, log), log)
	if err != nil {
		return err
	}
	defer func() { stopOps(); <-served }()
	if err := pool.Start(ctx); err != nil {
		return err
	}
	defer pool.Close()
	visits := newVisitWriter(cfg, db, reg, log)
	defer closeWriter(visits, log)
	h, err := worker.NewHandler(worker.HandlerOptions{Pool: pool, Artifacts: shots, Visits: visits,
		Finisher: overview.NewFinisher(overview.FinisherOptions{Results: results, DB: db,
			Client: asynq.NewClientFromRedisClient(rdb), Logger: log}),
		SearchURL: cfg.SearchURL, Sites: workerSites(cfg), AssistantVisit: cfg.AssistantVisit, Proxies: cfg.Proxies,
		Rotation: storage.NewProxyRotation(rdb, storage.KeyPrefix, cfg.ProxyCooldown), CountProxy: metrics.ProxyVisit,
		Logger: log, Observer: metrics})
	if err != nil {
		return err
	}
	srv := worker.NewServer(rdb, worker.ServerOptions{Concurrency: cfg.BrowserConcurrency, Timing: cfg.Timing(),
		ShutdownTimeout: cfg.ShutdownTimeout, Logger: log})
	if err := srv.Start(worker.Mux(h)); err != nil {
		return fmt.Errorf("start worker: %w", err)
	}
	defer srv.Shutdown()
	if cfg.AssistantConcurrency > 0 {
		// The assistants' queue has tabs of its own (docs/operations.md).
		asrv := worker.NewServer(rdb, worker.ServerOptions{Concurrency: cfg.AssistantConcurrency, Queue: jobs.QueueAssistants,
			Timing: cfg.Timing(), ShutdownTimeout: cfg.ShutdownTimeout, Logger: log})
		if err := asrv.Start(worker.Mux(h)); err != nil {
			return fmt.Errorf("start the assistants' worker: %w", err)
		}
		defer asrv.Shutdown()
	}
	stop, err := startAux(cfg, rdb, js, mons, observe.NewMaintainer(db, cfg.ObservationRetention, nil, log), log)
	if err != nil {
		return err
	}
	defer stop()
	stopMonitors, err := startMonitors(cfg, rdb, db, mons, log)
	if err != nil {
		return err
	}
	defer stopMonitors()
	countries, all := cfg.Proxies.Countries()
	log.Info("worker started", "tabs", cfg.BrowserConcurrency, "search_url", cfg.SearchURL,
		"proxied_countries", countries, "all_countries", all)
	<-ctx.Done()
	return nil
}

// serveWorkerOps serves the worker's health and metrics on
// KISA_WORKER_ADDR until ctx ends; the channel is closed once it stopped.
func serveWorkerOps(ctx context.Context, cfg config.Config, h http.Handler, log *slog.Logger) (<-chan struct{}, error) {
	ln, err := net.Listen("tcp", cfg.WorkerAddr)
	if err != nil {
		return nil, fmt.Errorf("KISA_WORKER_ADDR: %w", err)
	}
	log.Info("worker health and metrics listening", "addr", ln.Addr().String())
	done := make(chan struct{})
	go func() {
		defer close(done)
		hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, WriteTimeout: 30 * time.Second}
		if err := ops.Serve(ctx, hs, ln, 5*time.Second); err != nil {
			log.Error("worker health listener", "error", err)
		}
	}()
	return done, nil
}

// schedulerPool is how many Redis connections a scheduler has of its own.
const schedulerPool = 2

// startAux starts the webhook and maintenance server and the scheduler;
// stop shuts both down.
func startAux(cfg config.Config, rdb *redis.Client, js *overview.Jobs, mons *monitor.Service, m *observe.Maintainer, log *slog.Logger) (stop func(), err error) {
	aux := worker.NewAuxServer(rdb, log)
	mux := worker.AuxMux(js, mons)
	conn, err := cfg.RedisClientPool(schedulerPool)
	if err != nil {
		return nil, fmt.Errorf("start scheduler: %w", err)
	}
	sched, err := worker.NewScheduler(conn, log)
	if err == nil {
		err = handleObservationMaintenance(mux, sched, m)
	}
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("start scheduler: %w", err)
	}
	if err := aux.Start(mux); err != nil {
		conn.Close()
		return nil, fmt.Errorf("start webhook server: %w", err)
	}
	err = sched.Start()
	if err != nil {
		conn.Close()
		aux.Shutdown()
		return nil, fmt.Errorf("start scheduler: %w", err)
	}
	return func() { sched.Shutdown(); aux.Shutdown() }, nil
}

// workerSites are the AI assistants' sites of cfg, as the handler takes
// them.
func workerSites(cfg config.Config) map[kisa.Surface]worker.Site {
	out := map[kisa.Surface]worker.Site{}
	for s, st := range cfg.Sites {
		out[s] = worker.Site{URL: st.URL, AllowHosts: st.AllowHosts}
	}
	return out
}
