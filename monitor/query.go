package monitor

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"

	"github.com/kisa-dev/kisa/storage"
)

// Query bounds.
const (
	// MaxHistory is the most readings one history answer holds.
	MaxHistory = 5000
	// MaxObservations is the most readings a visibility report counts.
	MaxObservations = 200000
	// DefaultSpan is the period of history and visibility without from.
	DefaultSpan = 30 * 24 * time.Hour
)

// Runs returns a page of the runs of one of account's monitors, newest
// first. Errors: ErrNotFound, *InvalidError (cursor), Unavailable.
func (s *Service) Runs(ctx context.Context, account, id uuid.UUID, cursor string, limit int) (Page[RunView], error) {
	if _, err := s.db.Monitor(ctx, account, id); err != nil {
		return Page[RunView]{}, unavailable(err)
	}
	after, err := decodeCursor(cursor)
	if err != nil {
		return Page[RunView]{}, err
	}
	rows, err := s.db.Runs(ctx, id, after, limit+1)
	if err != nil {
		return Page[RunView]{}, unavailable(err)
	}
	page := Page[RunView]{Items: []RunView{}}
	if len(rows) > limit {
		rows = rows[:limit]
		page.NextCursor = encodeCursor(rows[limit-1].StartedAt, rows[limit-1].ID)
	}
	for _, r := range rows {
		page.Items = append(page.Items, runView(r))
	}
	return page, nil
}

// Span is a period [From, To); zero times are filled in by span.
type Span struct {
	From, To time.Time
}

// span fills in a missing end (now) and start (DefaultSpan before the end).
func (s *Service) span(sp Span) Span {
	if sp.To.IsZero() {
		sp.To = s.now().Add(time.Second)
	}
	if sp.From.IsZero() {
		sp.From = sp.To.Add(-DefaultSpan)
	}
	return sp
}

// History is one target's readings in a period, oldest first.
type History struct {
	Target   TargetView    `json:"target"`
	Readings []ReadingView `json:"readings"`
}

// History returns the readings (done and failed) of one target of one of
// account's monitors made in sp, at most MaxHistory. Errors: ErrNotFound,
// Unavailable.
func (s *Service) History(ctx context.Context, account, id, target uuid.UUID, sp Span) (History, error) {
	m, err := s.db.Monitor(ctx, account, id)
	if err != nil {
		return History{}, unavailable(err)
	}
	t, err := s.db.MonitorTarget(ctx, id, target)
	if err != nil {
		return History{}, unavailable(err)
	}
	sp = s.span(sp)
	rows, err := s.db.History(ctx, target, sp.From, sp.To, MaxHistory)
	if err != nil {
		return History{}, unavailable(err)
	}
	tv, err := targetOf(t)
	if err != nil {
		return History{}, err
	}
	versions, err := s.brandVersions(ctx, m)
	if err != nil {
		return History{}, err
	}
	h := History{Target: TargetView{ID: t.ID.String(), Target: tv}, Readings: make([]ReadingView, 0, len(rows))}
	for _, r := range rows {
		v, err := s.readingView(ctx, r, versions)
		if err != nil {
			return History{}, err
		}
		h.Readings = append(h.Readings, v)
	}
	return h, nil
}

// brandVersions are every version of m's brands by number.
func (s *Service) brandVersions(ctx context.Context, m storage.Monitor) (map[int][]Brand, error) {
	out := map[int][]Brand{}
	if m.BrandVersion == 0 {
		return out, nil
	}
	sets, err := s.db.BrandSets(ctx, m.ID)
	if err != nil {
		return nil, unavailable(err)
	}
	for v, b := range sets {
		if out[v], err = brandsOf(b); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Changes returns a page of the change events of one of account's
// monitors made at or after since, oldest first. Errors: ErrNotFound,
// *InvalidError (cursor), Unavailable.
func (s *Service) Changes(ctx context.Context, account, id uuid.UUID, since time.Time, cursor string, limit int) (Page[ChangeView], error) {
	if _, err := s.db.Monitor(ctx, account, id); err != nil {
		return Page[ChangeView]{}, unavailable(err)
	}
	after, err := decodeCursor(cursor)
	if err != nil {
		return Page[ChangeView]{}, err
	}
	rows, err := s.db.Changes(ctx, id, since, after, limit+1)
	if err != nil {
		return Page[ChangeView]{}, unavailable(err)
	}
	page := Page[ChangeView]{Items: []ChangeView{}}
	if len(rows) > limit {
		rows = rows[:limit]
		page.NextCursor = encodeCursor(rows[limit-1].CreatedAt, rows[limit-1].ID)
	}
	for _, c := range rows {
		v, err := changeView(c)
		if err != nil {
			return Page[ChangeView]{}, err
		}
		page.Items = append(page.Items, v)
	}
	return page, nil
}

// Visibility reports the citation visibility of one of account's
// monitors in sp, grouped by day or country (ByDay, ByCountry).
// Errors: ErrNotFound, Unavailable.
func (s *Service) Visibility(ctx context.Context, account, id uuid.UUID, sp Span, groupBy string) (Visibility, error) {
	m, err := s.db.Monitor(ctx, account, id)
	if err != nil {
		return Visibility{}, unavailable(err)
	}
	sp = s.span(sp)
	rows, err := s.db.Observations(ctx, id, sp.From, sp.To, MaxObservations)
	if err != nil {
		return Visibility{}, unavailable(err)
	}
	obs := make([]Observation, 0, len(rows))
	for _, r := range rows {
		o, err := observationOf(r)
		if err != nil {
			return Visibility{}, err
		}
		obs = append(obs, o)
	}
	return Aggregate(obs, m.WatchDomains, groupBy), nil
}

func observationOf(r storage.Observation) (Observation, error) {
	o := Observation{TargetID: r.TargetID, Country: r.CountryCode, TakenAt: r.TakenAt,
		Reading: Reading{HasOverview: r.HasOverview}}
	if err := json.Unmarshal(r.Sources, &o.Sources); err != nil {
		return o, err
	}
	if err := json.Unmarshal(r.Citations, &o.Citations); err != nil {
		return o, err
	}
	return o, nil
}
