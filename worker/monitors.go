package worker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"github.com/kisa-dev/kisa/jobs"
	"github.com/kisa-dev/kisa/monitor"
)

// NewMonitorServer returns the asynq server of a worker process for
// monitor readings: readings slots (fewer than the browser's tabs, see
// config.MonitorReadings), each waiting for one visit on the overview
// queue; failed readings are retried after jobs.MonitorReadingRetryDelay.
func NewMonitorServer(rdb *redis.Client, readings int, shutdown time.Duration, logger *slog.Logger) *asynq.Server {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return asynq.NewServerFromRedisClient(rdb, asynq.Config{
		Concurrency:              readings,
		Queues:                   map[string]int{jobs.QueueMonitors: 1},
		TaskCheckInterval:        backgroundPoll,
		DelayedTaskCheckInterval: backgroundPoll,
		ShutdownTimeout:          shutdown,
		RetryDelayFunc: func(n int, _ error, _ *asynq.Task) time.Duration {
			return jobs.MonitorReadingRetryDelay(n)
		},
		Logger:   slogAdapter{logger},
		LogLevel: asynq.WarnLevel,
	})
}

// MonitorMux routes reading tasks to m.
func MonitorMux(m *monitor.Service) *asynq.ServeMux {
	mux := asynq.NewServeMux()
	mux.HandleFunc(jobs.TypeMonitorReading, func(ctx context.Context, t *asynq.Task) error {
		p, err := jobs.ParseMonitorReadingPayload(t)
		if err != nil {
			return fmt.Errorf("%w: %v", asynq.SkipRetry, err)
		}
		return m.Read(ctx, p)
	})
	return mux
}

// addMonitorRoutes routes the run and retention tasks to m.
func addMonitorRoutes(mux *asynq.ServeMux, m *monitor.Service) {
	mux.HandleFunc(jobs.TypeMonitorRun, func(ctx context.Context, t *asynq.Task) error {
		p, err := jobs.ParseMonitorRunPayload(t)
		if err != nil {
			return fmt.Errorf("%w: %v", asynq.SkipRetry, err)
		}
		return m.Scheduled(ctx, p)
	})
	mux.HandleFunc(jobs.TypeMonitorRetention, func(ctx context.Context, _ *asynq.Task) error {
		return m.Maintain(ctx)
	})
}

// NewMonitorScheduler returns the periodic task manager of the monitors:
// it reads their schedules from PostgreSQL (monitor.Configs) every
// monitor.SyncInterval and enqueues each run task; each worker process
// runs one, and the run task's uniqueness (and the run's, per monitor and
// slot, in PostgreSQL) keeps each run to one between them. conn is its
// own client, as NewScheduler's.
func NewMonitorScheduler(conn *redis.Client, configs monitor.Configs, logger *slog.Logger) (*asynq.PeriodicTaskManager, error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return asynq.NewPeriodicTaskManager(asynq.PeriodicTaskManagerOpts{
		PeriodicTaskConfigProvider: configs,
		RedisConnOpt:               ownClient{conn},
		SyncInterval:               monitor.SyncInterval,
		SchedulerOpts: &asynq.SchedulerOpts{Logger: slogAdapter{logger}, LogLevel: asynq.WarnLevel,
			PostEnqueueFunc: func(_ *asynq.TaskInfo, err error) {
				if err != nil && !errors.Is(err, asynq.ErrDuplicateTask) {
					logger.Warn("schedule monitor run", "error", err)
				}
			}},
	})
}
