package client

import (
	"encoding/json"
	"io"
	"net/http"
	"time"

	"github.com/kisa-dev/kisa/webhook"
)

// SignatureHeader carries a webhook's signature:
// "t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">" under the
// account's webhook secret (kisa admin webhook-secret).
const SignatureHeader = "Kisa-Signature"

// DefaultTolerance is how far a webhook's timestamp may be from the
// receiver's clock: older deliveries are refused as possible replays.
const DefaultTolerance = 5 * time.Minute

// Errors of VerifySignature: the webhook package's own, which signs and
// verifies deliveries on the server side.
var (
	ErrSignatureMalformed = webhook.ErrMalformed
	ErrSignatureMismatch  = webhook.ErrMismatch
	ErrSignatureTooOld    = webhook.ErrTooOld
)

// VerifySignature checks a Kisa-Signature header against the raw body
// and secret, and that its timestamp is within tolerance of now. It
// returns ErrSignatureMalformed, ErrSignatureTooOld or
// ErrSignatureMismatch; any one of several v1 values may match (a secret
// being rotated). It is webhook.Verify, the one implementation.
func VerifySignature(secret, header string, body []byte, now time.Time, tolerance time.Duration) error {
	return webhook.Verify(secret, header, body, now, tolerance)
}

// Webhook events.
const (
	EventDone      = "overview.done"
	EventFailed    = "overview.failed"
	EventBatchDone = "overview.batch.done"
)

// WebhookEvent is what a webhook receives: the event and the job (for
// overview.done and overview.failed) or the batch (overview.batch.done).
type WebhookEvent struct {
	Event string `json:"event"`
	Job   *Job   `json:"job,omitempty"`
	Batch *Batch `json:"batch,omitempty"`
}

// ReadWebhook reads a webhook request (at most 8 MiB), verifies its
// signature with DefaultTolerance and decodes it. A receiver answers 2xx
// once it has the event, anything else to have it delivered again.
func ReadWebhook(r *http.Request, secret string) (WebhookEvent, error) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 8<<20))
	if err != nil {
		return WebhookEvent{}, err
	}
	if err := VerifySignature(secret, r.Header.Get(SignatureHeader), body, time.Now(), DefaultTolerance); err != nil {
		return WebhookEvent{}, err
	}
	var ev WebhookEvent
	err = json.Unmarshal(body, &ev)
	return ev, err
}
