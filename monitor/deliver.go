package monitor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/jobs"
	"github.com/kisa-dev/kisa/storage"
	"github.com/kisa-dev/kisa/webhook"
)

// ChangedBody is what a monitor.changed webhook receives: the event, the
// monitor's id and name, the run with its counts and the run's change
// events.
type ChangedBody struct {
	Event   string       `json:"event"`
	Monitor MonitorRef   `json:"monitor"`
	Run     RunView      `json:"run"`
	Changes []ChangeView `json:"changes"`
}

// MonitorRef names a monitor.
type MonitorRef struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// Deliver makes one attempt of a run's monitor.changed webhook, signed
// with the account's webhook secret like the jobs' (webhook.Send), and
// records it on the run. nil when delivered or when there is nothing to
// deliver (the run was removed, or delivered already); an error for
// asynq to retry (jobs.WebhookRetryDelay) otherwise.
func (s *Service) Deliver(ctx context.Context, p jobs.WebhookPayload) error {
	run, err := s.db.Run(ctx, p.RunID)
	if errors.Is(err, kisa.NotFound) || (err == nil && (run.URL == nil || run.DeliveredAt != nil)) {
		return nil
	}
	if err != nil {
		return err
	}
	body, err := s.changedBody(ctx, run)
	if errors.Is(err, kisa.NotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	secret, err := s.secrets.WebhookSecret(ctx, run.AccountID, false)
	if err != nil {
		return err
	}
	status, sendErr := webhook.Send(ctx, s.http, *run.URL, secret, s.now(), body)
	delivered := sendErr == nil && status != nil && *status >= 200 && *status < 300
	if err := s.db.RecordRunDelivery(context.WithoutCancel(ctx), run.ID, status, delivered); err != nil {
		return err
	}
	switch {
	case delivered:
		return nil
	case sendErr != nil:
		return fmt.Errorf("deliver %s: %w", p.Event, sendErr)
	default:
		return fmt.Errorf("deliver %s: receiver answered %d", p.Event, *status)
	}
}

func (s *Service) changedBody(ctx context.Context, run storage.MonitorRun) ([]byte, error) {
	m, err := s.db.MonitorByID(ctx, run.MonitorID)
	if err != nil {
		return nil, err
	}
	rows, err := s.db.RunChanges(ctx, run.ID)
	if err != nil {
		return nil, err
	}
	b := ChangedBody{Event: jobs.EventMonitorChanged, Monitor: MonitorRef{ID: m.ID.String(), Name: m.Name},
		Run: runView(run), Changes: make([]ChangeView, 0, len(rows))}
	for _, c := range rows {
		v, err := changeView(c)
		if err != nil {
			return nil, err
		}
		b.Changes = append(b.Changes, v)
	}
	return json.Marshal(b)
}
