package main

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/hibiken/asynq"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/kisa-dev/kisa/config"
	"github.com/kisa-dev/kisa/jobs"
	"github.com/kisa-dev/kisa/observe"
	"github.com/kisa-dev/kisa/storage"
)

// writerCloseTimeout bounds the last write of the observations buffered
// when a process stops.
const writerCloseTimeout = 10 * time.Second

// newObservationWriter starts the writer of web's request observations;
// nil when KISA_OBSERVATIONS is off. Close it after the server stopped.
func newObservationWriter(cfg config.Config, db *storage.DB, reg prometheus.Registerer, log *slog.Logger) *observe.Writer[storage.ObservedRequest] {
	if !cfg.Observations {
		return nil
	}
	return observe.NewWriter(observe.WriterOptions[storage.ObservedRequest]{Table: "observations",
		Write: db.InsertObservations, Metrics: observe.NewMetrics(reg), Logger: log})
}

// newVisitWriter starts the writer of a worker's visits; nil when
// KISA_OBSERVATIONS is off.
func newVisitWriter(cfg config.Config, db *storage.DB, reg prometheus.Registerer, log *slog.Logger) *observe.Writer[storage.ObservedVisit] {
	if !cfg.Observations {
		return nil
	}
	return observe.NewWriter(observe.WriterOptions[storage.ObservedVisit]{Table: "observation_visits",
		Write: db.InsertVisits, Metrics: observe.NewMetrics(reg), Logger: log})
}

// closeWriter writes what a writer holds and stops it.
func closeWriter[T any](w *observe.Writer[T], log *slog.Logger) {
	if w == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), writerCloseTimeout)
	defer cancel()
	if err := w.Close(ctx); err != nil {
		log.Warn("observations buffered at exit not all written", "error", err)
	}
}

// handleObservationMaintenance routes the observations' periodic task
// on mux and schedules it on sched.
func handleObservationMaintenance(mux *asynq.ServeMux, sched *asynq.Scheduler, m *observe.Maintainer) error {
	mux.HandleFunc(jobs.TypeObservationMaintenance, func(ctx context.Context, _ *asynq.Task) error {
		return m.Maintain(ctx)
	})
	if _, err := sched.Register(fmt.Sprintf("@every %s", jobs.ObservationMaintenanceEvery), jobs.NewObservationMaintenanceTask()); err != nil {
		return fmt.Errorf("schedule observation maintenance: %w", err)
	}
	return nil
}
