package jobs

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/hibiken/asynq"
)

// TypeWebhook is the asynq task type of one webhook delivery.
const TypeWebhook = "webhook:deliver"

// QueueWebhooks is the queue of webhook deliveries, served apart from
// the browser slots so that a slow receiver never holds up a visit.
const QueueWebhooks = "webhooks"

// Webhook events.
const (
	EventDone      = "overview.done"
	EventFailed    = "overview.failed"
	EventBatchDone = "overview.batch.done"
)

// Delivery policy: each attempt may take WebhookTimeout; a non-2xx
// answer or no answer is retried after WebhookRetryDelay, at most
// WebhookAttempts attempts in all.
const (
	WebhookTimeout  = 10 * time.Second
	WebhookAttempts = 8
)

// WebhookRetryDelay is the wait before retry n+1 of a delivery that has
// been retried n times: 5 s, doubling (5, 10, 20 ... 320 s; about 10
// minutes from the first attempt to the last).
func WebhookRetryDelay(n int) time.Duration {
	return 5 * time.Second << min(n, 10)
}

// WebhookPayload names what to deliver: a job's end, or a batch's.
type WebhookPayload struct {
	Event   string    `json:"event"`
	JobID   uuid.UUID `json:"jobId,omitzero"`
	BatchID uuid.UUID `json:"batchId,omitzero"`
	// RunID is the monitor run of EventMonitorChanged.
	RunID uuid.UUID `json:"runId,omitzero"`
}

// NewWebhookTask builds the delivery task of p; its id makes each event
// of a job or batch delivered at most once. It returns an error only when
// the payload cannot be encoded.
func NewWebhookTask(p WebhookPayload) (*asynq.Task, error) {
	b, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("encode webhook payload: %w", err)
	}
	id := p.JobID
	if p.BatchID != uuid.Nil {
		id = p.BatchID
	}
	if p.RunID != uuid.Nil {
		id = p.RunID
	}
	return asynq.NewTask(TypeWebhook, b,
		asynq.TaskID("wh-"+p.Event+"-"+id.String()),
		asynq.Queue(QueueWebhooks),
		asynq.Timeout(WebhookTimeout+5*time.Second),
		asynq.MaxRetry(WebhookAttempts-1),
		asynq.Retention(time.Hour),
	), nil
}

// ParseWebhookPayload decodes the payload of a webhook task.
func ParseWebhookPayload(t *asynq.Task) (WebhookPayload, error) {
	var p WebhookPayload
	if err := json.Unmarshal(t.Payload(), &p); err != nil {
		return p, fmt.Errorf("decode %s payload: %w", t.Type(), err)
	}
	return p, nil
}

// TypeJobMaintenance is the periodic task that removes jobs past their
// retention and re-enqueues the visits of jobs left open.
const TypeJobMaintenance = "jobs:maintain"

// QueueMaintenance is the queue of periodic housekeeping tasks.
const QueueMaintenance = "maintenance"

// MaintenanceEvery is how often the maintenance task runs.
const MaintenanceEvery = time.Minute

// NewJobMaintenanceTask builds the periodic task. It is unique for a
// little less than its period, so that several worker processes, each
// with its scheduler, enqueue it once per period between them.
func NewJobMaintenanceTask() *asynq.Task {
	return asynq.NewTask(TypeJobMaintenance, nil, asynq.Queue(QueueMaintenance),
		asynq.Unique(MaintenanceEvery-5*time.Second), asynq.MaxRetry(0), asynq.Timeout(MaintenanceEvery))
}
