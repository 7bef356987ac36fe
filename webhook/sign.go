// Package webhook is what kisa needs to call its users' webhooks safely:
// the Kisa-Signature header (Stripe's scheme: HMAC-SHA256 over
// "<unix seconds>.<raw body>"), and a guard against server-side request
// forgery that checks a URL when it is submitted and every address when
// it is dialled.
package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"time"
)

// SignatureHeader is the header that carries the signature.
const SignatureHeader = "Kisa-Signature"

// Sign returns the Kisa-Signature value for body sent at t, under secret:
// "t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">".
func Sign(secret string, t time.Time, body []byte) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	return "t=" + ts + ",v1=" + hex.EncodeToString(mac(secret, ts, body))
}

func mac(secret, ts string, body []byte) []byte {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(ts))
	m.Write([]byte("."))
	m.Write(body)
	return m.Sum(nil)
}

// Errors of Verify.
var (
	ErrMalformed = errors.New("webhook: malformed signature header")
	ErrMismatch  = errors.New("webhook: signature does not match")
	ErrTooOld    = errors.New("webhook: timestamp outside the tolerance")
)

// Verify checks header (a Kisa-Signature value) against body and secret,
// and that its timestamp is within tolerance of now. It returns
// ErrMalformed, ErrTooOld or ErrMismatch. Any of several v1 values may
// match (room for a secret rotation). kisa itself only signs: Verify is
// kept on purpose for receivers written in Go (docs/async-jobs.md) and the
// tests.
func Verify(secret, header string, body []byte, now time.Time, tolerance time.Duration) error {
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
		return ErrMalformed
	}
	if d := now.Sub(time.Unix(sec, 0)); d > tolerance || d < -tolerance {
		return ErrTooOld
	}
	want := mac(secret, ts, body)
	for _, s := range sigs {
		if hmac.Equal(s, want) {
			return nil
		}
	}
	return ErrMismatch
}
