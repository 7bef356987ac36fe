package webhook

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/hibiken/asynq"
)

// Send makes one delivery attempt: it POSTs body as JSON to url with the
// Kisa-Signature header of secret at now, through client (the guarded
// client of Guard.Client). status is nil when no answer came. A URL that
// makes no request is an error wrapped in asynq.SkipRetry.
func Send(ctx context.Context, client *http.Client, url, secret string, now time.Time, body []byte) (status *int, err error) {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", asynq.SkipRetry, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "kisa-webhooks/1")
	req.Header.Set(SignatureHeader, Sign(secret, now, body))
	res, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10))
	return &res.StatusCode, nil
}
