package monitor

import (
	"context"
	"time"

	"github.com/hibiken/asynq"

	"github.com/kisa-dev/kisa/jobs"
	"github.com/kisa-dev/kisa/storage"
)

// SyncInterval is how often every worker's scheduler reads the monitors
// from PostgreSQL: a monitor created, paused, changed or deleted takes
// effect within it (and a run task of a monitor paused or deleted
// meanwhile finds it so, and does nothing).
const SyncInterval = 30 * time.Second

// Configs is the asynq.PeriodicTaskConfigProvider of the monitors: one
// periodic run task per active monitor, at its schedule in UTC.
type Configs struct {
	DB *storage.DB
	// Timeout bounds one read of the monitors.
	Timeout time.Duration
}

// GetConfigs returns the periodic tasks of the active monitors, plus the
// daily retention task. An error keeps the scheduler's current entries.
func (c Configs) GetConfigs() ([]*asynq.PeriodicTaskConfig, error) {
	ctx, cancel := context.WithTimeout(context.Background(), max(c.Timeout, 10*time.Second))
	defer cancel()
	ms, err := c.DB.ActiveMonitors(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]*asynq.PeriodicTaskConfig, 0, len(ms)+1)
	out = append(out, &asynq.PeriodicTaskConfig{Cronspec: "@every 1h",
		Task: jobs.NewMonitorRetentionTask()})
	for _, m := range ms {
		t, err := jobs.NewMonitorRunTask(jobs.MonitorRunPayload{MonitorID: m.ID})
		if err != nil {
			return nil, err
		}
		out = append(out, &asynq.PeriodicTaskConfig{Cronspec: m.Cron, Task: t, Opts: jobs.MonitorRunOptions()})
	}
	return out, nil
}
