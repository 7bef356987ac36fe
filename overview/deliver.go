package overview

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/uuid"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/jobs"
	"github.com/kisa-dev/kisa/storage"
	"github.com/kisa-dev/kisa/webhook"
)

// webhookBody is what a webhook receives: the event and the job (as GET
// returns it) or the batch.
type webhookBody struct {
	Event string `json:"event"`
	Job   *Job   `json:"job,omitempty"`
	Batch *Batch `json:"batch,omitempty"`
}

// Deliver makes one attempt to POST the event p names, signed with the
// account's webhook secret, and records it on the job or batch. It
// returns nil when delivered (2xx) or when there is nothing to deliver
// (the job was removed, or already delivered), and an error for asynq to
// retry otherwise.
func (j *Jobs) Deliver(ctx context.Context, p jobs.WebhookPayload) error {
	account, url, body, err := j.webhookBody(ctx, p)
	if errors.Is(err, kisa.NotFound) || (err == nil && url == "") {
		return nil
	}
	if err != nil {
		return err
	}
	secret, err := j.secrets.WebhookSecret(ctx, account, false)
	if err != nil {
		return err
	}
	status, sendErr := j.post(ctx, url, secret, body)
	delivered := sendErr == nil && status != nil && *status >= 200 && *status < 300
	record := j.db.RecordJobDelivery
	id := p.JobID
	if p.Event == jobs.EventBatchDone {
		record, id = j.db.RecordBatchDelivery, p.BatchID
	}
	if err := record(context.WithoutCancel(ctx), id, status, delivered); err != nil {
		return err
	}
	if delivered {
		return nil
	}
	if sendErr != nil {
		return fmt.Errorf("deliver %s: %w", p.Event, sendErr)
	}
	return fmt.Errorf("deliver %s: receiver answered %d", p.Event, *status)
}

// webhookBody reads the job or batch of p and encodes its body; url is
// "" when it has been delivered already.
func (j *Jobs) webhookBody(ctx context.Context, p jobs.WebhookPayload) (account uuid.UUID, url string, body []byte, err error) {
	wb := webhookBody{Event: p.Event}
	var d storage.Delivery
	if p.Event == jobs.EventBatchDone {
		b, rows, err := j.db.BatchByID(ctx, p.BatchID)
		if err != nil {
			return account, "", nil, err
		}
		v, err := batchViewOrFail(b, rows)
		if err != nil {
			return account, "", nil, err
		}
		account, d, wb.Batch = b.AccountID, b.Delivery, &v
	} else {
		r, err := j.db.JobByID(ctx, p.JobID)
		if err != nil {
			return account, "", nil, err
		}
		v, err := j.view(ctx, r)
		if err != nil {
			return account, "", nil, err
		}
		account, d, wb.Job = r.AccountID, r.Delivery, &v
	}
	if d.URL == nil || d.DeliveredAt != nil {
		return account, "", nil, nil
	}
	body, err = json.Marshal(wb)
	return account, *d.URL, body, err
}

// post sends one signed delivery; status is nil when no answer came.
func (j *Jobs) post(ctx context.Context, url, secret string, body []byte) (*int, error) {
	return webhook.Send(ctx, j.http, url, secret, j.now(), body)
}
