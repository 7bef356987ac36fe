package client

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// SignatureHeader carries a webhook's signature:
// "t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">" under the
// account's webhook secret (kisa admin webhook-secret).
const SignatureHeader = "Kisa-Signature"

// DefaultTolerance is how far a webhook's timestamp may be from the
// receiver's clock: older deliveries are refused as possible replays.
const DefaultTolerance = 5 * time.Minute

// Errors of VerifySignature.
var (
	ErrSignatureMalformed = errors.New("kisa webhook: malformed Kisa-Signature header")
	ErrSignatureMismatch  = errors.New("kisa webhook: signature does not match")
	ErrSignatureTooOld    = errors.New("kisa webhook: timestamp outside the tolerance")
)

// VerifySignature checks a Kisa-Signature header against the raw body
// and secret, and that its timestamp is within tolerance of now. It
// returns ErrSignatureMalformed, ErrSignatureTooOld or
// ErrSignatureMismatch; any one of several v1 values may match (a secret
// being rotated).
func VerifySignature(secret, header string, body []byte, now time.Time, tolerance time.Duration) error {
	var ts string
	var sigs [][]byte
	for _, part := range strings.Split(header, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch k {
		case "t":
			ts = v
		case "v1":
			if b, err := hex.DecodeString(v); err == nil {
				sigs = append(sigs, b)
			}
		}
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || len(sigs) == 0 {
		return ErrSignatureMalformed
	}
	if d := now.Sub(time.Unix(sec, 0)); d > tolerance || d < -tolerance {
		return ErrSignatureTooOld
	}
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(ts + "."))
	m.Write(body)
	want := m.Sum(nil)
	for _, s := range sigs {
		if hmac.Equal(s, want) {
			return nil
		}
	}
	return ErrSignatureMismatch
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
