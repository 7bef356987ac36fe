package observe

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/kisa-dev/kisa"
)

// UsageQuery selects the days (UTC, both included) and optionally the
// key whose use is counted.
type UsageQuery struct {
	Key      *uuid.UUID
	From, To time.Time // days: midnight UTC
}

// Usage is an account's use per day and key.
type Usage struct {
	From string `json:"from"`
	To   string `json:"to"`
	// Billable names the counts of a day that are billed: successful
	// browser results only.
	Billable []string   `json:"billable"`
	Days     []UsageDay `json:"days"`
}

// UsageDay is one key's use on one day (UTC).
type UsageDay struct {
	Date     string         `json:"date"`
	KeyID    string         `json:"keyId"`
	Requests []RequestCount `json:"requests"` // by surface and outcome
	// Visits are the browser visits made (every attempt) for the
	// requests of this key that started them.
	Visits    int `json:"visits"`
	CacheHits int `json:"cacheHits"`
	Joins     int `json:"joins"`
	AISpent   int `json:"aiSpent"` // the AI budget spent (one per AI request, one per batch item)
	// BillableResults are the successful browser results: a synchronous
	// overview answered 200, a job answered from the cache or whose
	// visit succeeded.
	BillableResults int `json:"billableResults"`
}

// RequestCount is how many requests of a surface ended with an outcome:
// success (2xx, 3xx), client_error (4xx) or server_error (5xx).
type RequestCount struct {
	Surface string `json:"surface"`
	Outcome string `json:"outcome"`
	Count   int    `json:"count"`
}

// Usage counts the account's use.
func (r *Reader) Usage(ctx context.Context, account uuid.UUID, q UsageQuery) (Usage, error) {
	rows, err := r.db.Usage(ctx, account, q.Key, q.From, q.To.AddDate(0, 0, 1))
	if err != nil {
		return Usage{}, kisa.Fail(kisa.Unavailable, kisa.PartDatabase, err)
	}
	u := Usage{From: q.From.Format(time.DateOnly), To: q.To.Format(time.DateOnly), Billable: []string{"billableResults"},
		Days: []UsageDay{}}
	for _, row := range rows {
		date, key := row.Day.UTC().Format(time.DateOnly), row.KeyID.String()
		if n := len(u.Days); n == 0 || u.Days[n-1].Date != date || u.Days[n-1].KeyID != key {
			u.Days = append(u.Days, UsageDay{Date: date, KeyID: key, Requests: []RequestCount{}})
		}
		d := &u.Days[len(u.Days)-1]
		d.Requests = append(d.Requests, RequestCount{Surface: row.Surface, Outcome: row.Outcome, Count: row.Requests})
		d.Visits += row.Visits
		d.CacheHits += row.CacheHits
		d.Joins += row.Joins
		d.AISpent += row.AISpent
		d.BillableResults += row.Billable
	}
	return u, nil
}
