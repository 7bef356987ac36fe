package jobs

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/hibiken/asynq"
)

// Monitor task types: a run of a monitor (enqueued by the scheduler, or
// by "run now"), and the reading of one of its targets.
const (
	TypeMonitorRun     = "monitor:run"
	TypeMonitorReading = "monitor:reading"
	// TypeMonitorRetention is the periodic task that removes monitor
	// runs past KISA_MONITOR_RETENTION.
	TypeMonitorRetention = "monitor:retention"
)

// QueueMonitors is the queue of target readings: served by a server of
// its own in each worker process with fewer slots than the browser has
// tabs, so that a run never holds every tab, and each reading yields to
// interactive visits waiting for a slot.
const QueueMonitors = "monitors"

// EventMonitorChanged is the webhook event of a monitor run with changes.
const EventMonitorChanged = "monitor.changed"

// MonitorRunPayload names the monitor to run. The scheduler's task
// carries only the id (its slot comes from the schedule when it runs).
type MonitorRunPayload struct {
	MonitorID uuid.UUID `json:"monitorId"`
}

// MonitorRunUnique is how long the scheduler's run task of a monitor is
// unique: a little less than the shortest period (an hour), so that
// several schedulers enqueue each firing once between them. The database
// also keeps one run per monitor and slot.
const MonitorRunUnique = 50 * time.Minute

// MonitorRunOptions are the options of the scheduler's run task.
func MonitorRunOptions() []asynq.Option {
	return []asynq.Option{asynq.Queue(QueueMaintenance), asynq.Unique(MonitorRunUnique),
		asynq.MaxRetry(3), asynq.Timeout(5 * time.Minute)}
}

// NewMonitorRunTask builds the run task of a monitor for the scheduler.
func NewMonitorRunTask(p MonitorRunPayload) (*asynq.Task, error) {
	b, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("encode monitor run payload: %w", err)
	}
	return asynq.NewTask(TypeMonitorRun, b), nil
}

// ParseMonitorRunPayload decodes a run task's payload.
func ParseMonitorRunPayload(t *asynq.Task) (MonitorRunPayload, error) {
	var p MonitorRunPayload
	if err := json.Unmarshal(t.Payload(), &p); err != nil {
		return p, fmt.Errorf("decode %s payload: %w", t.Type(), err)
	}
	return p, nil
}

// MonitorReadingPayload names one reading to make. Yields counts the
// times it gave way to interactive visits.
type MonitorReadingPayload struct {
	ReadingID uuid.UUID `json:"readingId"`
	Yields    int       `json:"yields,omitempty"`
}

// Reading retry policy: MonitorReadingAttempts attempts in all, the
// n+1-th retry after MonitorReadingRetryDelay(n).
const MonitorReadingAttempts = 4

// MonitorReadingRetryDelay is the wait before retry n+1 of a reading
// that failed n times: 30 s, 2 min, 8 min (a CAPTCHA or a proxy in its
// cool-down needs minutes, not seconds).
func MonitorReadingRetryDelay(n int) time.Duration {
	return 30 * time.Second << (2 * min(n, 4))
}

// NewMonitorReadingTask builds the task of one reading, delayed by after
// (0: now). Its id makes each reading (and each yield of it) enqueued
// once. timeout is the deadline of one attempt.
func NewMonitorReadingTask(p MonitorReadingPayload, after, timeout time.Duration) (*asynq.Task, error) {
	b, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("encode monitor reading payload: %w", err)
	}
	return asynq.NewTask(TypeMonitorReading, b,
		asynq.TaskID(fmt.Sprintf("mr-%s-%d", p.ReadingID, p.Yields)),
		asynq.Queue(QueueMonitors),
		asynq.ProcessIn(after),
		asynq.Timeout(timeout),
		asynq.MaxRetry(MonitorReadingAttempts-1),
		asynq.Retention(0),
	), nil
}

// ParseMonitorReadingPayload decodes a reading task's payload.
func ParseMonitorReadingPayload(t *asynq.Task) (MonitorReadingPayload, error) {
	var p MonitorReadingPayload
	if err := json.Unmarshal(t.Payload(), &p); err != nil {
		return p, fmt.Errorf("decode %s payload: %w", t.Type(), err)
	}
	return p, nil
}

// NewMonitorRetentionTask builds the periodic retention task, unique
// for a little less than MaintenanceEvery like the job maintenance task.
func NewMonitorRetentionTask() *asynq.Task {
	return asynq.NewTask(TypeMonitorRetention, nil, asynq.Queue(QueueMaintenance),
		asynq.Unique(MaintenanceEvery-5*time.Second), asynq.MaxRetry(0), asynq.Timeout(MaintenanceEvery))
}
