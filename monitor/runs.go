package monitor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/hibiken/asynq"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/geo"
	"github.com/kisa-dev/kisa/jobs"
	"github.com/kisa-dev/kisa/overview"
	"github.com/kisa-dev/kisa/storage"
)

// Run triggers.
const (
	TriggerSchedule = "schedule"
	TriggerManual   = "manual"
)

// RunNow starts a run of one of account's monitors at once (paused or
// not) and returns it. Errors: ErrNotFound, Unavailable.
func (s *Service) RunNow(ctx context.Context, account, id uuid.UUID) (RunView, error) {
	m, err := s.db.Monitor(ctx, account, id)
	if err != nil {
		return RunView{}, unavailable(err)
	}
	r, _, err := s.start(ctx, m, s.now().UTC(), TriggerManual)
	return r, err
}

// Scheduled runs the monitor of a scheduler's task for the slot its
// schedule puts now in. A monitor deleted or paused since the scheduler
// last synced is not run; a slot that has run already (another
// scheduler's task) is not run again.
func (s *Service) Scheduled(ctx context.Context, p jobs.MonitorRunPayload) error {
	m, err := s.db.MonitorByID(ctx, p.MonitorID)
	if errors.Is(err, kisa.NotFound) {
		return nil
	}
	if err != nil || m.Paused {
		return err
	}
	r, created, err := s.start(ctx, m, Slot(m.Cron, s.now()), TriggerSchedule)
	if err == nil && created {
		s.log.InfoContext(ctx, "monitor run", "monitor", m.ID, "run", r.ID, "status", r.Status, "targets", r.Counts.Targets)
	}
	return err
}

// start stores the run of m for slot (skipped, with its reason, when it
// would take the account past its visits a day) and enqueues one reading
// task per target. created is false when the slot had run already.
func (s *Service) start(ctx context.Context, m storage.Monitor, slot time.Time, trigger string) (RunView, bool, error) {
	targets, err := s.db.MonitorTargets(ctx, m.ID)
	if err != nil {
		return RunView{}, false, unavailable(err)
	}
	id, err := uuid.NewV7()
	if err != nil {
		return RunView{}, false, kisa.Fail(kisa.Internal, "", err)
	}
	nr := storage.NewRun{ID: id, MonitorID: m.ID, AccountID: m.AccountID, Slot: slot, Trigger: trigger, WebhookURL: m.WebhookURL}
	for _, t := range targets {
		nr.Targets = append(nr.Targets, t.ID)
		nr.Samples = append(nr.Samples, max(t.Samples, 1))
	}
	now := s.now().UTC()
	done, err := s.db.VisitsSince(ctx, m.AccountID, now.Truncate(24*time.Hour))
	if err != nil {
		return RunView{}, false, unavailable(err)
	}
	if !s.limits.RunFits(done, len(targets)) {
		nr.SkipReason = SkipVisits
	}
	run, readings, created, err := s.db.StartRun(ctx, nr)
	if err != nil || !created {
		return RunView{}, false, unavailable(err)
	}
	return runView(run), true, s.enqueueReadings(ctx, readings)
}

// enqueueReadings puts one task per reading on the monitors queue. A
// task that cannot be enqueued leaves its reading pending; the run's
// count says so.
func (s *Service) enqueueReadings(ctx context.Context, readings []uuid.UUID) error {
	var errs []error
	for _, id := range readings {
		t, err := jobs.NewMonitorReadingTask(jobs.MonitorReadingPayload{ReadingID: id}, 0, s.timeout)
		if err == nil {
			_, err = s.queue.EnqueueContext(ctx, t)
		}
		if err != nil && !errors.Is(err, asynq.ErrTaskIDConflict) {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return kisa.Fail(kisa.Unavailable, kisa.PartQueue, err)
	}
	return nil
}

// YieldDelay is how long a reading waits after giving way to
// interactive visits.
const YieldDelay = 5 * time.Second

// Read makes one reading of a reading task: it reads the target anew,
// compares the result with the target's previous successful reading,
// stores both, and ends the run when it was its last reading. A reading
// no longer pending (a repeated task) is left alone. A failure is
// recorded on the reading and returned for asynq to retry; on the last
// attempt the reading is failed for good. When interactive visits wait
// for every slot, the reading gives way (a new task after YieldDelay).
func (s *Service) Read(ctx context.Context, p jobs.MonitorReadingPayload) error {
	r, err := s.db.Reading(ctx, p.ReadingID)
	if errors.Is(err, kisa.NotFound) || (err == nil && r.Status != storage.ReadingPending) {
		return nil
	}
	if err != nil {
		return err
	}
	m, err := s.db.MonitorByID(ctx, r.MonitorID)
	if err != nil {
		return ignoreGone(err)
	}
	t, err := s.db.MonitorTarget(ctx, r.MonitorID, r.TargetID)
	if err != nil {
		return ignoreGone(err)
	}
	run, err := s.db.Run(ctx, r.RunID)
	if err != nil {
		return ignoreGone(err)
	}
	loc, err := locationOf(t.Location)
	if err != nil {
		return err
	}
	req := readingRequest(t, loc)
	req.Sample = r.Sample
	res, err := s.read.Fresh(ctx, req, run.StartedAt)
	if errors.Is(err, overview.ErrNoRoom) {
		return s.yield(ctx, p)
	}
	if err != nil {
		return s.failed(ctx, r, err)
	}
	if err := s.record(ctx, r, m, t, res); err != nil {
		return err
	}
	return s.endRun(ctx, r.RunID)
}

// readingRequest is the request a reading of t makes: that of its
// surface's single-call endpoint with its defaults (screenshots but for
// web search, which takes none), so that it shares a visit with an
// identical interactive request in flight.
func readingRequest(t storage.MonitorTarget, loc geo.Location) overview.Request {
	req := overview.Request{Query: t.Query, Country: t.CountryCode, Language: t.LanguageCode, Device: t.Device,
		Location: loc, Screenshots: true, Surface: kisa.Surface(t.Surface)}
	if req.Surface == kisa.SurfaceWeb {
		req.Screenshots = false
	}
	req.WebSearch = req.Surface == kisa.SurfaceChatGPT // ChatGPT's endpoint searches the web by default
	return req
}

func ignoreGone(err error) error {
	if errors.Is(err, kisa.NotFound) {
		return nil // the monitor, target or run was removed meanwhile
	}
	return err
}

// yield enqueues the reading again after YieldDelay.
func (s *Service) yield(ctx context.Context, p jobs.MonitorReadingPayload) error {
	p.Yields++
	t, err := jobs.NewMonitorReadingTask(p, YieldDelay, s.timeout)
	if err == nil {
		_, err = s.queue.EnqueueContext(ctx, t)
	}
	if err != nil && !errors.Is(err, asynq.ErrTaskIDConflict) {
		return err
	}
	return nil
}

// failed records a failed attempt; on the last one the reading fails for
// good (and may end the run). It returns err for asynq to retry, wrapped
// in asynq.SkipRetry on the last attempt.
func (s *Service) failed(ctx context.Context, r storage.MonitorReading, err error) error {
	f, part := kisa.FailureOf(err)
	retried, _ := asynq.GetRetryCount(ctx)
	most, ok := asynq.GetMaxRetry(ctx)
	final := ok && retried >= most
	if errors.Is(ctx.Err(), context.Canceled) {
		return err // a shutdown: asynq hands the task to another worker
	}
	ctx = context.WithoutCancel(ctx)
	if rerr := s.db.FailReading(ctx, r.ID, string(f), string(part), final); rerr != nil {
		return rerr
	}
	s.log.WarnContext(ctx, "monitor reading failed", "reading", r.ID, "failure", f, "part", part, "final", final, "error", err)
	if !final {
		return err
	}
	if eerr := s.endRun(ctx, r.RunID); eerr != nil {
		return eerr
	}
	return fmt.Errorf("%w: %w", asynq.SkipRetry, err)
}

// record compares res with the target's previous successful reading and
// stores the reading with its brand figures (measured against the
// monitor's brands of now) and its change events. A target read in
// samples is compared run with run instead, once its last sample is in
// (sampleChanges).
func (s *Service) record(ctx context.Context, r storage.MonitorReading, m storage.Monitor, t storage.MonitorTarget, res kisa.Result) error {
	cur, complete := ReadingOf(t.Surface, res)
	brands, err := brandsOf(m.Brands)
	if err != nil {
		return err
	}
	figures := Measure(t.Surface, cur, brands)
	var changes []Change
	if t.Samples <= 1 || r.Sample == 1 {
		if changes, err = s.compareWithPrevious(ctx, r, m, t, brands, cur, figures, res.TakenAt); err != nil {
			return err
		}
	}
	stored := storage.ReadingResult{HasOverview: cur.HasOverview, Complete: complete, Text: cur.Text,
		TakenAt: res.TakenAt, CitedDomains: citedDomains(cur)}
	if m.BrandVersion > 0 && len(brands) > 0 {
		if stored.Brands, err = storedFigures(figures, m.BrandVersion); err != nil {
			return err
		}
	}
	if stored.Sources, err = json.Marshal(nonNilSlice(cur.Sources)); err != nil {
		return err
	}
	if stored.Citations, err = json.Marshal(nonNilSlice(cur.Citations)); err != nil {
		return err
	}
	if len(res.Screenshots) > 0 {
		if stored.Screenshots, err = json.Marshal(res.Screenshots); err != nil {
			return err
		}
	}
	news, err := newChanges(changes)
	if err != nil {
		return err
	}
	done, err := s.db.FinishReading(ctx, r.ID, stored, news)
	if err != nil || !done || t.Samples <= 1 {
		return err
	}
	return s.sampleChanges(ctx, r, m, t)
}

// compareWithPrevious returns the change events from the target's
// previous successful reading to cur (with its brand figures).
// A sampled target's first sample is compared with the previous first
// sample, without brand events (those compare runs: sampleChanges).
func (s *Service) compareWithPrevious(ctx context.Context, r storage.MonitorReading, m storage.Monitor, t storage.MonitorTarget,
	brands []Brand, cur Reading, figures []BrandFigures, at time.Time) ([]Change, error) {
	sample := 0
	if t.Samples > 1 {
		sample = 1
	}
	prev, ok, err := s.db.PreviousReading(ctx, r.TargetID, at, sample)
	if err != nil || !ok {
		return nil, err
	}
	p, err := readingOf(prev)
	if err != nil {
		return nil, err
	}
	changes := Compare(p, cur, m.WatchDomains)
	if prev.Version == nil || len(brands) == 0 || sample > 0 {
		return changes, nil
	}
	before, err := s.storedBrandFigures(ctx, m, prev)
	if err != nil {
		return nil, err
	}
	return append(changes, CompareBrands(before, figures)...), nil
}

// storedBrandFigures reads the brand figures of a stored reading against
// the version of m's brands it was measured with.
func (s *Service) storedBrandFigures(ctx context.Context, m storage.Monitor, r storage.MonitorReading) ([]BrandFigures, error) {
	if r.Version == nil {
		return nil, nil
	}
	brands, err := s.brandVersion(ctx, m, *r.Version)
	if err != nil {
		return nil, err
	}
	return figuresOf(r.BrandFigures, brands, deref(r.Text))
}

// brandVersion is version of m's brands.
func (s *Service) brandVersion(ctx context.Context, m storage.Monitor, version int) ([]Brand, error) {
	if version == m.BrandVersion {
		return brandsOf(m.Brands)
	}
	sets, err := s.db.BrandSets(ctx, m.ID)
	if err != nil {
		return nil, unavailable(err)
	}
	return brandsOf(sets[version])
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// newChanges is changes as storage keeps them.
func newChanges(changes []Change) ([]storage.NewChange, error) {
	news := make([]storage.NewChange, len(changes))
	for i, c := range changes {
		d, err := json.Marshal(c)
		if err != nil {
			return nil, err
		}
		news[i] = storage.NewChange{Kind: c.Kind, Detail: d}
	}
	return news, nil
}

func nonNilSlice[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// ReadingOf is what a reading of surface keeps of a visit's result, and
// whether the answer had settled. An overview and an AI Mode answer are
// read alike: present or not (hasOverview holds AI Mode's hasAnswer),
// their text, sources and inline citations (AI Mode's first answer, not
// its follow-ups); an assistant's answer is read as AI Mode's. A web search's organic results are its sources, in
// their rank, with no text (so no text.changed) and no citations;
// hasOverview says whether there was any result.
func ReadingOf(surface string, res kisa.Result) (Reading, bool) {
	switch {
	case kisa.Surface(surface).Conversational():
		a := res.Conversation()
		if a == nil {
			return Reading{}, true
		}
		return Reading{HasOverview: a.HasAnswer, Text: turnsText(a), Sources: a.Sources,
			Citations: allCitations(a.Citations, a.Paragraphs)}, a.Complete
	case surface == SurfaceWebSearch:
		var out Reading
		if res.Web == nil {
			return out, true
		}
		for _, o := range res.Web.Organic {
			out.Sources = append(out.Sources, kisa.Source{URL: o.URL, Title: o.Title, Source: hostOf(o.URL)})
		}
		out.HasOverview = len(out.Sources) > 0
		return out, true
	}
	ov := res.Overview
	return Reading{HasOverview: ov.HasOverview, Text: ov.Text, Sources: ov.Sources,
		Citations: allCitations(ov.Citations, ov.Paragraphs)}, ov.Complete
}

// turnsText is the text of every turn of an answer, a blank line
// between two: what brands are matched in (a monitor asks no follow-ups,
// so it is the answer to the query).
func turnsText(a *kisa.Answer) string {
	parts := []string{a.Text}
	for _, t := range a.Turns {
		parts = append(parts, t.Text)
	}
	return strings.Join(parts, "\n\n")
}

// hostOf is the host name of a URL, without "www.".
func hostOf(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return ""
	}
	return strings.TrimPrefix(p.Hostname(), "www.")
}

// allCitations is an answer's inline citations: those of the whole text
// and of its paragraphs, each URL once.
func allCitations(whole []kisa.Citation, paragraphs []kisa.Paragraph) []kisa.Citation {
	seen := map[string]bool{}
	var out []kisa.Citation
	add := func(cs []kisa.Citation) {
		for _, c := range cs {
			if !seen[c.URL] {
				seen[c.URL] = true
				out = append(out, c)
			}
		}
	}
	add(whole)
	for _, p := range paragraphs {
		add(p.Citations)
	}
	return out
}

// readingOf is a stored successful reading as Compare reads it.
func readingOf(r storage.MonitorReading) (Reading, error) {
	out := Reading{HasOverview: r.HasOverview != nil && *r.HasOverview}
	if r.Text != nil {
		out.Text = *r.Text
	}
	if len(r.Sources) > 0 {
		if err := json.Unmarshal(r.Sources, &out.Sources); err != nil {
			return out, err
		}
	}
	if len(r.Citations) > 0 {
		if err := json.Unmarshal(r.Citations, &out.Citations); err != nil {
			return out, err
		}
	}
	return out, nil
}

// endRun ends the run when none of its readings is pending, and then
// enqueues its monitor.changed webhook when it has a URL and changes.
func (s *Service) endRun(ctx context.Context, id uuid.UUID) error {
	run, ended, err := s.db.EndRun(ctx, id)
	if err != nil || !ended {
		return err
	}
	s.log.InfoContext(ctx, "monitor run done", "monitor", run.MonitorID, "run", run.ID, "read", run.Read,
		"failed", run.Failed, "changed", run.Changed)
	if run.URL == nil || run.Changed == 0 {
		return nil
	}
	t, err := jobs.NewWebhookTask(jobs.WebhookPayload{Event: jobs.EventMonitorChanged, RunID: run.ID})
	if err == nil {
		_, err = s.queue.EnqueueContext(ctx, t)
	}
	if err != nil && !errors.Is(err, asynq.ErrTaskIDConflict) {
		s.log.WarnContext(ctx, "enqueue monitor webhook", "run", run.ID, "error", err)
	}
	return nil
}

// Maintain is the periodic retention task: it removes the runs (with
// their readings and change events) started more than the retention ago.
func (s *Service) Maintain(ctx context.Context) error {
	n, err := s.db.DeleteMonitorRunsBefore(ctx, s.now().Add(-s.retention))
	if err != nil {
		return err
	}
	if n > 0 {
		s.log.InfoContext(ctx, "expired monitor runs removed", "runs", n)
	}
	return nil
}
