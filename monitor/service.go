package monitor

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/hibiken/asynq"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/overview"
	"github.com/kisa-dev/kisa/storage"
)

// Reader reads one page anew for a reading (overview.Service.Fresh):
// never from the cache, never an outcome made before notBefore.
type Reader interface {
	Fresh(ctx context.Context, req overview.Request, notBefore time.Time) (kisa.Result, error)
}

// Service is the monitors use case. The API side needs DB, Queue and
// Limits; the worker side also Reader, Secrets and HTTP (webhooks).
type Service struct {
	db        *storage.DB
	queue     *asynq.Client
	read      Reader
	shots     *storage.Artifacts
	secrets   *storage.Secrets
	http      *http.Client
	limits    Limits
	retention time.Duration
	timeout   time.Duration
	now       func() time.Time
	log       *slog.Logger
}

// Options are the dependencies and settings of a Service.
type Options struct {
	DB    *storage.DB
	Queue *asynq.Client
	// Reader reads targets (worker side); nil on the API side.
	Reader Reader
	// Artifacts presigns the screenshots of readings in their history;
	// nil lists none.
	Artifacts *storage.Artifacts
	Secrets   *storage.Secrets
	HTTP      *http.Client // the guarded webhook client
	Limits    Limits
	// Retention is how long runs and their readings are kept
	// (KISA_MONITOR_RETENTION).
	Retention time.Duration
	// ReadingTimeout is the deadline of one reading attempt: at least
	// the overview wait (KISA_OVERVIEW_TIMEOUT).
	ReadingTimeout time.Duration
	Now            func() time.Time
	Logger         *slog.Logger // nil discards
}

// DefaultRetention is KISA_MONITOR_RETENTION's default: 400 days, so
// that a year is always compared with the one before.
const DefaultRetention = 400 * 24 * time.Hour

// New returns the monitors use case.
func New(o Options) *Service {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Retention == 0 {
		o.Retention = DefaultRetention
	}
	if o.ReadingTimeout == 0 {
		o.ReadingTimeout = 90 * time.Second
	}
	return &Service{db: o.DB, queue: o.Queue, read: o.Reader, shots: o.Artifacts, secrets: o.Secrets, http: o.HTTP,
		limits: o.Limits, retention: o.Retention, timeout: o.ReadingTimeout, now: o.Now, log: o.Logger}
}

// ErrNotFound is an account's request for a monitor, target or run that
// does not exist or is another account's (the API answers 404 for both).
var ErrNotFound = kisa.NotFound

// unavailable wraps a storage error as the database's failure, keeping
// ErrNotFound as it is.
func unavailable(err error) error {
	if err == nil || errors.Is(err, kisa.NotFound) {
		return err
	}
	if ke := (*kisa.Error)(nil); errors.As(err, &ke) {
		return err
	}
	return kisa.Fail(kisa.Unavailable, kisa.PartDatabase, err)
}

// Create stores a monitor for account after validating d (v vets the
// webhook URL and countries) and the account's limits. Errors: *InvalidError (422),
// Unavailable.
func (s *Service) Create(ctx context.Context, account uuid.UUID, d Definition, v Vetting) (View, error) {
	d, spec, err := d.Normalize(v)
	if err != nil {
		return View{}, err
	}
	if err := s.checkLimits(ctx, account, uuid.Nil, d, spec); err != nil {
		return View{}, err
	}
	id, err := uuid.NewV7()
	if err != nil {
		return View{}, kisa.Fail(kisa.Internal, "", err)
	}
	def, err := storedDef(d, spec, nil)
	if err != nil {
		return View{}, err
	}
	m, err := s.db.CreateMonitor(ctx, account, id, def)
	if err != nil {
		return View{}, unavailable(err)
	}
	return s.view(ctx, m, true)
}

// checkLimits refuses d when the account's monitors other than id with
// it would exceed the limits.
func (s *Service) checkLimits(ctx context.Context, account, id uuid.UUID, d Definition, spec string) error {
	plans, err := s.db.MonitorPlans(ctx, account)
	if err != nil {
		return unavailable(err)
	}
	var others []Plan
	for _, p := range plans {
		if p.ID != id {
			others = append(others, s.plan(p.Cron, p.Targets, p.Readings, p.Paused))
		}
	}
	readings := 0
	for _, t := range d.Targets {
		readings += max(t.Samples, 1)
	}
	return s.limits.Check(others, s.plan(spec, len(d.Targets), readings, d.Paused))
}

func (s *Service) plan(spec string, targets, readings int, paused bool) Plan {
	p := Plan{Targets: targets, Readings: readings}
	if !paused {
		p.RunsPerDay, _ = RunsPerDay(spec, s.now())
	}
	return p
}

// storedDef is d as storage keeps it; existing targets keep their ids by
// identity.
func storedDef(d Definition, spec string, existing []storage.MonitorTarget) (storage.MonitorDef, error) {
	sched, err := json.Marshal(d.Schedule)
	if err != nil {
		return storage.MonitorDef{}, kisa.Fail(kisa.Internal, "", err)
	}
	brands, err := json.Marshal(nonNilSlice(d.Watch.Brands))
	if err != nil {
		return storage.MonitorDef{}, kisa.Fail(kisa.Internal, "", err)
	}
	out := storage.MonitorDef{Name: d.Name, Schedule: sched, Cron: spec, WatchDomains: d.Watch.Domains, Paused: d.Paused,
		Brands: brands}
	if d.Webhook != nil {
		out.WebhookURL = &d.Webhook.URL
	}
	for _, t := range d.Targets {
		st := storage.MonitorTarget{Surface: t.Surface, Query: t.Query, CountryCode: t.CountryCode,
			LanguageCode: t.LanguageCode, Device: t.Device, Samples: t.Samples, Identity: t.Identity()}
		if !t.Location.Location.IsZero() {
			if st.Location, err = json.Marshal(t.Location.Location); err != nil {
				return storage.MonitorDef{}, kisa.Fail(kisa.Internal, "", err)
			}
		}
		out.Targets = append(out.Targets, st)
	}
	return out, nil
}

// Get returns one of account's monitors with its targets, or ErrNotFound.
func (s *Service) Get(ctx context.Context, account, id uuid.UUID) (View, error) {
	m, err := s.db.Monitor(ctx, account, id)
	if err != nil {
		return View{}, unavailable(err)
	}
	return s.view(ctx, m, true)
}

// Update applies a PATCH to one of account's monitors: the fields patch
// holds replace the monitor's (targets as a whole list; targets that stay
// keep their ids and history). Errors: ErrNotFound, *InvalidError,
// Unavailable.
func (s *Service) Update(ctx context.Context, account, id uuid.UUID, patch json.RawMessage, v Vetting) (View, error) {
	cur, err := s.Get(ctx, account, id)
	if err != nil {
		return View{}, err
	}
	d, err := cur.Definition().apply(patch)
	if err != nil {
		return View{}, err
	}
	d, spec, err := d.Normalize(v)
	if err != nil {
		return View{}, err
	}
	if err := s.checkLimits(ctx, account, id, d, spec); err != nil {
		return View{}, err
	}
	def, err := storedDef(d, spec, nil)
	if err != nil {
		return View{}, err
	}
	m, err := s.db.ReplaceMonitor(ctx, account, id, def)
	if err != nil {
		return View{}, unavailable(err)
	}
	return s.view(ctx, m, true)
}

// apply returns d with the fields of a JSON merge patch replaced. An
// unknown field or a wrong type is an *InvalidError.
func (d Definition) apply(patch json.RawMessage) (Definition, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(patch, &fields); err != nil {
		return d, fieldErr("body", "must be a JSON object")
	}
	p := problems{}
	for k, raw := range fields {
		var err error
		switch k {
		case "name":
			err = json.Unmarshal(raw, &d.Name)
		case "schedule":
			d.Schedule = Schedule{}
			err = strictDecode(raw, &d.Schedule)
		case "targets":
			d.Targets = nil
			err = strictDecode(raw, &d.Targets)
		case "watch":
			d.Watch = Watch{}
			err = strictDecode(raw, &d.Watch)
		case "webhook":
			d.Webhook = nil
			if string(raw) != "null" {
				err = strictDecode(raw, &d.Webhook)
			}
		case "paused":
			err = json.Unmarshal(raw, &d.Paused)
		default:
			p.add(k, "is not a field of a monitor (name, schedule, targets, watch, webhook, paused)")
			continue
		}
		if err != nil {
			p.add(k, "has the wrong shape: "+err.Error())
		}
	}
	return d, p.err()
}

// Decode reads a monitor definition (POST's body); unknown fields and
// wrong types are an *InvalidError.
func Decode(body []byte) (Definition, error) {
	var d Definition
	if err := strictDecode(body, &d); err != nil {
		return d, fieldErr("body", err.Error())
	}
	return d, nil
}

func strictDecode(b []byte, v any) error {
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("trailing data after the JSON value")
	}
	return nil
}

// Delete removes one of account's monitors with its history; ErrNotFound
// when there is none. The scheduler drops it at its next sync, and its
// run tasks find it gone.
func (s *Service) Delete(ctx context.Context, account, id uuid.UUID) error {
	return unavailable(s.db.DeleteMonitor(ctx, account, id))
}

// Page is one page of a newest-first list and the cursor of the next
// (nil on the last page).
type Page[T any] struct {
	Items      []T     `json:"items"`
	NextCursor *string `json:"nextCursor"`
}

// List returns a page of account's monitors, newest first (targets
// counted, not listed). A cursor this service did not make is an
// *InvalidError.
func (s *Service) List(ctx context.Context, account uuid.UUID, cursor string, limit int) (Page[View], error) {
	after, err := decodeCursor(cursor)
	if err != nil {
		return Page[View]{}, err
	}
	rows, err := s.db.ListMonitors(ctx, account, after, limit+1)
	if err != nil {
		return Page[View]{}, unavailable(err)
	}
	page := Page[View]{Items: []View{}}
	if len(rows) > limit {
		rows = rows[:limit]
		page.NextCursor = encodeCursor(rows[limit-1].CreatedAt, rows[limit-1].ID)
	}
	for _, m := range rows {
		v, err := s.view(ctx, m, false)
		if err != nil {
			return Page[View]{}, err
		}
		page.Items = append(page.Items, v)
	}
	return page, nil
}

// encodeCursor makes the opaque cursor after an item at t with id.
func encodeCursor(t time.Time, id uuid.UUID) *string {
	c := base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(t.UnixMicro(), 10) + "." + id.String()))
	return &c
}

// decodeCursor reads a cursor made by encodeCursor ("" is nil).
func decodeCursor(s string) (*storage.Cursor, error) {
	if s == "" {
		return nil, nil
	}
	bad := fieldErr("cursor", "is not a cursor of this list; use nextCursor as given")
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil, bad
	}
	micros, id, ok := strings.Cut(string(b), ".")
	us, err := strconv.ParseInt(micros, 10, 64)
	if !ok || err != nil || us < 0 {
		return nil, bad
	}
	uid, err := uuid.Parse(id)
	if err != nil || uid.String() != id {
		return nil, bad
	}
	return &storage.Cursor{At: time.UnixMicro(us).UTC(), ID: uid}, nil
}
