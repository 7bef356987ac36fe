package client_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kisa-dev/kisa/client"
)

// TestWaitJob checks that WaitJob polls until the job has ended.
func TestWaitJob(t *testing.T) {
	job := func(status string) string {
		return `{"status":true,"data":{"id":"j1","status":"` + status + `","request":{"query":"q"},"createdAt":"2026-11-23T10:00:00.000Z","startedAt":null,"finishedAt":null}}`
	}
	srv := newScripted(t, answerSpec{200, "", job("queued")}, answerSpec{200, "", job("running")},
		answerSpec{200, "", job("failed")})
	got, err := client.New(srv.URL, "k").WaitJob(context.Background(), "j1", time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != client.JobFailed || len(srv.received()) != 3 {
		t.Errorf("job %+v after %d polls, want failed after 3", got, len(srv.received()))
	}
}

// TestSubmitOverview checks the body of an async submission.
func TestSubmitOverview(t *testing.T) {
	srv := newScripted(t, answerSpec{202, "", `{"status":true,"data":{"id":"j1","status":"queued","request":{},"createdAt":"2026-11-23T10:00:00.000Z","startedAt":null,"finishedAt":null}}`})
	job, err := client.New(srv.URL, "k").SubmitOverview(context.Background(),
		client.OverviewRequest{Query: "q", LanguageCode: "en"}, "https://hooks.example/kisa")
	if err != nil || job.ID != "j1" || job.Final() {
		t.Fatalf("job %+v, error %v", job, err)
	}
	want := []string{`{"query":"q","languageCode":"en","async":true,"webhook":{"url":"https://hooks.example/kisa"}}`}
	if diff := cmp.Diff(want, srv.received()); diff != "" {
		t.Errorf("body (-want +got):\n%s", diff)
	}
}

// sign is the Kisa-Signature scheme, written out here independently.
func sign(secret string, t time.Time, body string) string {
	m := hmac.New(sha256.New, []byte(secret))
	fmt.Fprintf(m, "%d.%s", t.Unix(), body)
	return fmt.Sprintf("t=%d,v1=%s", t.Unix(), hex.EncodeToString(m.Sum(nil)))
}

// TestVerifySignature checks the webhook signature verifier.
func TestVerifySignature(t *testing.T) {
	now := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	body := `{"event":"overview.done","job":{"id":"j1"}}`
	good := sign("whsec_1", now, body)
	tests := []struct {
		name   string
		header string
		body   string
		want   error
	}{
		{name: "valid", header: good, body: body},
		{name: "valid with spaces and a rotated secret", body: body,
			header: sign("old", now, body) + " , " + strings.Split(good, ",")[1]},
		{name: "body changed", header: good, body: body + " ", want: client.ErrSignatureMismatch},
		{name: "other secret", header: sign("whsec_2", now, body), body: body, want: client.ErrSignatureMismatch},
		{name: "ten minutes old", header: sign("whsec_1", now.Add(-10*time.Minute), body), body: body, want: client.ErrSignatureTooOld},
		{name: "no timestamp", header: strings.Split(good, ",")[1], body: body, want: client.ErrSignatureMalformed},
		{name: "empty", header: "", body: body, want: client.ErrSignatureMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := client.VerifySignature("whsec_1", tt.header, []byte(tt.body), now, client.DefaultTolerance)
			if !errors.Is(err, tt.want) || (tt.want == nil) != (err == nil) {
				t.Errorf("VerifySignature = %v, want %v", err, tt.want)
			}
		})
	}
}

// TestReadWebhook checks a receiver reading a signed delivery.
func TestReadWebhook(t *testing.T) {
	body := `{"event":"overview.done","job":{"id":"j1","status":"done","request":{},"createdAt":"2026-11-23T10:00:00.000Z","startedAt":null,"finishedAt":null}}`
	r := httptest.NewRequest(http.MethodPost, "/hook", strings.NewReader(body))
	r.Header.Set(client.SignatureHeader, sign("whsec_1", time.Now(), body))
	ev, err := client.ReadWebhook(r, "whsec_1")
	if err != nil || ev.Event != client.EventDone || ev.Job == nil || ev.Job.ID != "j1" {
		t.Errorf("ReadWebhook = %+v, %v", ev, err)
	}
}
