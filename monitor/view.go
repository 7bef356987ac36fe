package monitor

import (
	"context"
	"encoding/json"
	"time"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/geo"
	"github.com/kisa-dev/kisa/overview"
	"github.com/kisa-dev/kisa/storage"
)

// View is a monitor as the API shows it.
type View struct {
	ID          string       `json:"id"`
	Name        string       `json:"name"`
	Schedule    Schedule     `json:"schedule"`
	TargetCount int          `json:"targetCount"`
	Targets     []TargetView `json:"targets,omitempty"` // one monitor's answer only, not in lists
	Watch       Watch        `json:"watch"`
	Webhook     *Hook        `json:"webhook"`
	Paused      bool         `json:"paused"`
	CreatedAt   time.Time    `json:"createdAt"`
	UpdatedAt   time.Time    `json:"updatedAt"`
}

// TargetView is a target with its id (the history's path).
type TargetView struct {
	ID string `json:"id"`
	Target
}

// Definition is the view's definition, for a PATCH to change.
func (v View) Definition() Definition {
	d := Definition{Name: v.Name, Schedule: v.Schedule, Watch: v.Watch, Webhook: v.Webhook, Paused: v.Paused}
	for _, t := range v.Targets {
		d.Targets = append(d.Targets, t.Target)
	}
	return d
}

// view renders m, with its targets when full.
func (s *Service) view(ctx context.Context, m storage.Monitor, full bool) (View, error) {
	v := View{ID: m.ID.String(), Name: m.Name, TargetCount: m.Targets, Watch: Watch{Domains: m.WatchDomains},
		Paused: m.Paused, CreatedAt: m.CreatedAt.UTC(), UpdatedAt: m.UpdatedAt.UTC()}
	if err := json.Unmarshal(m.Schedule, &v.Schedule); err != nil {
		return View{}, kisa.Fail(kisa.Internal, "", err)
	}
	brands, err := brandsOf(m.Brands)
	if err != nil {
		return View{}, err
	}
	v.Watch.Brands = brands
	if m.WebhookURL != nil {
		v.Webhook = &Hook{URL: *m.WebhookURL}
	}
	if !full {
		return v, nil
	}
	ts, err := s.db.MonitorTargets(ctx, m.ID)
	if err != nil {
		return View{}, unavailable(err)
	}
	v.Targets = make([]TargetView, len(ts))
	for i, t := range ts {
		tv, err := targetOf(t)
		if err != nil {
			return View{}, err
		}
		v.Targets[i] = TargetView{ID: t.ID.String(), Target: tv}
	}
	return v, nil
}

// targetOf is a stored target as the API shows it.
func targetOf(t storage.MonitorTarget) (Target, error) {
	loc, err := locationOf(t.Location)
	return Target{Surface: t.Surface, Query: t.Query, CountryCode: t.CountryCode, LanguageCode: t.LanguageCode,
		Device: t.Device, Location: PlaceOf(loc), Samples: max(t.Samples, 1)}, err
}

// brandsOf reads a stored version of a monitor's brands (none: empty).
func brandsOf(b []byte) ([]Brand, error) {
	out := []Brand{}
	if len(b) == 0 {
		return out, nil
	}
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, kisa.Fail(kisa.Internal, "", err)
	}
	return out, nil
}

// locationOf reads a stored location (nil: the whole country).
func locationOf(b []byte) (geo.Location, error) {
	var loc geo.Location
	if len(b) == 0 {
		return loc, nil
	}
	if err := json.Unmarshal(b, &loc); err != nil {
		return loc, kisa.Fail(kisa.Internal, "", err)
	}
	return loc, nil
}

// RunView is a run with its readings' counts.
type RunView struct {
	ID         string     `json:"id"`
	MonitorID  string     `json:"monitorId"`
	Trigger    string     `json:"trigger"`
	Slot       time.Time  `json:"slot"`
	Status     string     `json:"status"`
	SkipReason *string    `json:"skipReason"`
	Counts     RunCounts  `json:"counts"`
	StartedAt  time.Time  `json:"startedAt"`
	FinishedAt *time.Time `json:"finishedAt"`
}

// RunCounts are a run's readings: Targets read, Readings in all (a
// target with samples makes several), Read (done), Failed for good,
// Changed (read with at least one change event), Pending.
type RunCounts struct {
	Targets  int `json:"targets"`
	Readings int `json:"readings"`
	Read     int `json:"read"`
	Failed   int `json:"failed"`
	Changed  int `json:"changed"`
	Pending  int `json:"pending"`
}

func runView(r storage.MonitorRun) RunView {
	v := RunView{ID: r.ID.String(), MonitorID: r.MonitorID.String(), Trigger: r.Trigger, Slot: r.Slot.UTC(),
		Status: r.Status, SkipReason: r.SkipReason, StartedAt: r.StartedAt.UTC(),
		Counts: RunCounts{Targets: r.DistinctTargets, Readings: r.Targets, Read: r.Read, Failed: r.Failed, Changed: r.Changed,
			Pending: r.Targets - r.Read - r.Failed}}
	if r.FinishedAt != nil {
		t := r.FinishedAt.UTC()
		v.FinishedAt = &t
	}
	return v
}

// ReadingView is one reading in a target's history.
type ReadingView struct {
	ID       string `json:"id"`
	RunID    string `json:"runId"`
	Status   string `json:"status"` // done or failed
	Attempts int    `json:"attempts"`
	// Time is when the page was read (done), or when the reading was
	// given up (failed).
	Time        time.Time       `json:"time"`
	HasOverview *bool           `json:"hasOverview"`
	Complete    *bool           `json:"complete"`
	Text        *string         `json:"text"`
	Sources     []SourceView    `json:"sources"`
	Citations   []kisa.Citation `json:"citations"`
	// Screenshots are presigned URLs (valid 24 h) while the objects
	// live; null after, with ScreenshotsExpired.
	Screenshots        map[string]string `json:"screenshots"`
	ScreenshotsExpired bool              `json:"screenshotsExpired"`
	Failure            *string           `json:"failure"`
	Changes            int               `json:"changes"`
	// Sample is the reading's number among its target's samples in its
	// run (1 when the target takes one).
	Sample int `json:"sample"`
	// Brands are the figures of the monitor's brands (as they were when
	// the reading was made) in a successful reading; empty when the
	// monitor had none.
	Brands []BrandFigures `json:"brands"`
}

// SourceView is a source with its 1-based position in the panel.
type SourceView struct {
	Position int `json:"position"`
	kisa.Source
}

// readingView renders a stored reading; screenshots are presigned while
// they live (overview.ScreenshotLife after the visit).
func (s *Service) readingView(ctx context.Context, r storage.MonitorReading, versions map[int][]Brand) (ReadingView, error) {
	v := ReadingView{ID: r.ID.String(), RunID: r.RunID.String(), Status: r.Status, Attempts: r.Attempts,
		HasOverview: r.HasOverview, Complete: r.Complete, Text: r.Text, Failure: r.Failure, Changes: r.Changes,
		Sources: []SourceView{}, Citations: []kisa.Citation{}, Sample: max(r.Sample, 1), Brands: []BrandFigures{}}
	if r.Version != nil {
		fs, err := figuresOf(r.BrandFigures, versions[*r.Version], deref(r.Text))
		if err != nil {
			return v, err
		}
		v.Brands = fs
	}
	switch {
	case r.TakenAt != nil:
		v.Time = r.TakenAt.UTC()
	case r.FinishedAt != nil:
		v.Time = r.FinishedAt.UTC()
	default:
		v.Time = r.CreatedAt.UTC()
	}
	var sources []kisa.Source
	if len(r.Sources) > 0 {
		if err := json.Unmarshal(r.Sources, &sources); err != nil {
			return v, kisa.Fail(kisa.Internal, "", err)
		}
	}
	for i, src := range sources {
		v.Sources = append(v.Sources, SourceView{Position: i + 1, Source: src})
	}
	if len(r.Citations) > 0 {
		if err := json.Unmarshal(r.Citations, &v.Citations); err != nil {
			return v, kisa.Fail(kisa.Internal, "", err)
		}
	}
	return v, s.presign(ctx, &v, r)
}

func (s *Service) presign(ctx context.Context, v *ReadingView, r storage.MonitorReading) error {
	var keys map[string]string
	if len(r.Screenshots) == 0 || json.Unmarshal(r.Screenshots, &keys) != nil || len(keys) == 0 || r.TakenAt == nil {
		return nil
	}
	if s.shots == nil || s.now().Sub(*r.TakenAt) >= overview.ScreenshotLife {
		v.ScreenshotsExpired = true
		return nil
	}
	v.Screenshots = map[string]string{}
	for name, key := range keys {
		u, err := s.shots.SharedURL(ctx, key, overview.URLTTL)
		if err != nil {
			return kisa.Fail(kisa.Unavailable, kisa.PartStorage, err)
		}
		v.Screenshots[name] = u
	}
	return nil
}

// ChangeView is one change event.
type ChangeView struct {
	ID     string    `json:"id"`
	RunID  string    `json:"runId"`
	Target TargetRef `json:"target"`
	Time   time.Time `json:"time"`
	Change
}

// TargetRef names the target of a change event.
type TargetRef struct {
	ID           string `json:"id"`
	Surface      string `json:"surface"`
	Query        string `json:"query"`
	CountryCode  string `json:"countryCode"`
	LanguageCode string `json:"languageCode"`
	Device       string `json:"device"`
	Location     Place  `json:"location,omitzero"`
}

func changeView(c storage.MonitorChange) (ChangeView, error) {
	loc, err := locationOf(c.Location)
	v := ChangeView{ID: c.ID.String(), RunID: c.RunID.String(), Time: c.CreatedAt.UTC(),
		Target: TargetRef{ID: c.TargetID.String(), Surface: c.Surface, Query: c.Query, CountryCode: c.CountryCode, LanguageCode: c.LanguageCode,
			Device: c.Device, Location: PlaceOf(loc)}}
	if err != nil {
		return v, err
	}
	if err := json.Unmarshal(c.Detail, &v.Change); err != nil {
		return v, kisa.Fail(kisa.Internal, "", err)
	}
	v.Kind = c.Kind
	return v, nil
}
