package monitor_test

import (
	"cmp"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/google/uuid"
	"github.com/hibiken/asynq"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/jobs"
	"github.com/kisa-dev/kisa/monitor"
	"github.com/kisa-dev/kisa/storage"
	"github.com/kisa-dev/kisa/testenv"
)

func answer(text string, sources ...string) kisa.Overview {
	ov := kisa.Overview{HasOverview: true, Complete: true, Text: text}
	for _, u := range sources {
		ov.Sources = append(ov.Sources, kisa.Source{URL: u})
	}
	return ov
}

func f(v float64) *float64 { return &v }

// runAll starts a run of the monitor and reads each of its readings
// (from the shared test database).
func runAll(t *testing.T, svc *monitor.Service, acc, id uuid.UUID) monitor.RunView {
	return runAllIn(t, testenv.Postgres(t), svc, acc, id)
}

// runAllIn is runAll on the service's database db.
func runAllIn(t *testing.T, db *storage.DB, svc *monitor.Service, acc, id uuid.UUID) monitor.RunView {
	t.Helper()
	ctx := context.Background()
	run, err := svc.RunNow(ctx, acc, id)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range runReadings(t, db, run) {
		if err := svc.Read(ctx, jobs.MonitorReadingPayload{ReadingID: r}); err != nil {
			t.Fatal(err)
		}
	}
	return run
}

// TestBrandFiguresAndAggregates reads two targets in two runs with known
// answers and checks each reading's brand figures, the aggregates
// (intervals worked out by hand below), the cited sources and the brand
// change events.
func TestBrandFiguresAndAggregates(t *testing.T) {
	svc, p, acc := setup(t, monitor.DefaultLimits)
	ctx := context.Background()
	d := monitor.Definition{Name: "brands", Schedule: monitor.Schedule{Type: monitor.Daily, Time: "06:00"}, Paused: true,
		Targets: []monitor.Target{{Query: "shoes one", CountryCode: "us", LanguageCode: "en"}, {Query: "shoes two", CountryCode: "us", LanguageCode: "en"}},
		Watch: monitor.Watch{Brands: []monitor.Brand{{Name: "Nike", Domains: []string{"nike.com"}, Own: true},
			{Name: "Adidas", Domains: []string{"adidas.de"}}}}}
	v, err := svc.Create(ctx, acc, d, monitor.Vetting{})
	if err != nil {
		t.Fatal(err)
	}
	id := uuid.MustParse(v.ID)
	t.Cleanup(func() { svc.Delete(context.Background(), acc, id) })

	p.set("shoes one", answer("Nike and Adidas. Nike again.", "https://www.nike.com/a"))
	p.set("shoes two", answer("Adidas only.", "https://shop.adidas.de/x", "https://nike.com/y"))
	runAll(t, svc, acc, id)
	p.set("shoes one", answer("Nothing here."))
	p.set("shoes two", answer("Adidas, then Nike."))
	runAll(t, svc, acc, id)

	h, err := svc.History(ctx, acc, id, uuid.MustParse(v.Targets[0].ID), monitor.Span{From: time.Now().Add(-time.Hour)})
	if err != nil || len(h.Readings) != 2 {
		t.Fatalf("history: %v, %+v", err, h)
	}
	one, passage := 1, "Nike and Adidas."
	two := 2
	want := []monitor.BrandFigures{
		{Name: "Nike", Own: true, Mentioned: true, Mentions: 2, FirstMentionRank: &one, Cited: true, CitationPositions: []int{1}, Passage: &passage},
		{Name: "Adidas", Mentioned: true, Mentions: 1, FirstMentionRank: &two, CitationPositions: []int{}, Passage: &passage}}
	if diff := gocmp.Diff(want, h.Readings[0].Brands, gocmp.FilterPath(func(p gocmp.Path) bool { return p.Last().String() == ".PassageAt" }, gocmp.Ignore())); diff != "" {
		t.Errorf("first reading's brands (-want +got):\n%s", diff)
	}

	// Over the four readings: Nike is named in 2 (ranks 1 and 2, 3
	// mentions) and cited in 2 (first positions 1 and 2); Adidas named in
	// 3 (ranks 2, 1, 1; 3 mentions) and cited in 1 (position 1). Six
	// mentions in all.
	// Wilson at 95% (z = 1.959964, z² = 3.841459) of 2 in 4: p = 0.5,
	// z²/n = 0.960365, center (0.5 + 0.480182) / 1.960365 = 0.5, half
	// 1.959964 / 1.960365 · sqrt(0.25/4 + 3.841459/64) = 0.349962, so
	// [0.1500, 0.8500]. Likewise 3 in 4: [0.3006, 0.9544]; 1 in 4:
	// [0.0456, 0.6994]; 3 in 6: [0.1876, 0.8124].
	rep, err := svc.Brands(ctx, acc, id, monitor.Span{From: time.Now().Add(-time.Hour)}, []string{"surface"})
	if err != nil {
		t.Fatal(err)
	}
	iv := func(lo, hi float64) *monitor.Interval { return &monitor.Interval{Low: lo, High: hi} }
	wantRep := monitor.BrandReport{GroupBy: []string{"surface"}, Groups: []monitor.BrandGroup{{Key: map[string]string{"surface": "ai-overview"},
		Brands: []monitor.BrandAggregate{
			{Name: "Nike", Own: true, Readings: 4, Answers: 4, Mentions: 3, MentionRate: f(0.5), MentionRateInterval: iv(0.15, 0.85),
				CitationRate: f(0.5), CitationRateInterval: iv(0.15, 0.85), ShareOfVoice: f(0.5), ShareOfVoiceInterval: iv(0.1876, 0.8124),
				AverageFirstMentionRank: f(1.5), AverageCitationPosition: f(1.5)},
			{Name: "Adidas", Readings: 4, Answers: 4, Mentions: 3, MentionRate: f(0.75), MentionRateInterval: iv(0.3006, 0.9544),
				CitationRate: f(0.25), CitationRateInterval: iv(0.0456, 0.6994), ShareOfVoice: f(0.5), ShareOfVoiceInterval: iv(0.1876, 0.8124),
				AverageFirstMentionRank: f(1.3333), AverageCitationPosition: f(1)}}}}}
	if diff := gocmp.Diff(wantRep, rep, cmpopts.IgnoreUnexported(monitor.BrandAggregate{})); diff != "" {
		t.Errorf("brands by surface (-want +got):\n%s", diff)
	}

	src, err := svc.Sources(ctx, acc, id, monitor.Span{From: time.Now().Add(-time.Hour)}, 10)
	if err != nil {
		t.Fatal(err)
	}
	nike, adidas := "Nike", "Adidas"
	wantSrc := monitor.SourceReport{Answers: 4, AnswersBySurface: map[string]int{"ai-overview": 4}, Domains: []monitor.SourceDomain{
		{Domain: "nike.com", Brand: &nike, Kind: monitor.SourceOwn, Answers: 2, Share: 0.5,
			BySurface: map[string]monitor.SurfaceSource{"ai-overview": {Answers: 2, Share: 0.5}}},
		{Domain: "adidas.de", Brand: &adidas, Kind: monitor.SourceCompetitor, Answers: 1, Share: 0.25,
			BySurface: map[string]monitor.SurfaceSource{"ai-overview": {Answers: 1, Share: 0.25}}}}}
	if diff := gocmp.Diff(wantSrc, src); diff != "" {
		t.Errorf("sources (-want +got):\n%s", diff)
	}

	changes, err := svc.Changes(ctx, acc, id, time.Time{}, "", 50)
	if err != nil {
		t.Fatal(err)
	}
	var got []monitor.Change
	for _, c := range changes.Items {
		if c.Brand != "" {
			got = append(got, c.Change)
		}
	}
	wantChanges := []monitor.Change{
		{Kind: monitor.BrandDropped, Brand: "Nike", From: 1}, {Kind: monitor.BrandUncited, Brand: "Nike", From: 1},
		{Kind: monitor.BrandDropped, Brand: "Adidas", From: 2},
		{Kind: monitor.BrandMentioned, Brand: "Nike", To: 2}, {Kind: monitor.BrandUncited, Brand: "Nike", From: 2},
		{Kind: monitor.BrandUncited, Brand: "Adidas", From: 1}}
	slicesSortChanges(got)
	slicesSortChanges(wantChanges)
	if diff := gocmp.Diff(wantChanges, got); diff != "" {
		t.Errorf("brand changes (-want +got):\n%s", diff)
	}
}

// slicesSortChanges orders changes by kind, brand and positions (the two
// targets' readings end in either order).
func slicesSortChanges(cs []monitor.Change) {
	slices.SortFunc(cs, func(a, b monitor.Change) int {
		return cmp.Or(strings.Compare(a.Kind, b.Kind), strings.Compare(a.Brand, b.Brand), a.From-b.From, a.To-b.To)
	})
}

// runReadings are the readings of a run, by target position and sample.
func runReadings(t *testing.T, db *storage.DB, run monitor.RunView) []uuid.UUID {
	t.Helper()
	rows, err := db.SQL().QueryContext(context.Background(), `SELECT r.id FROM monitor_readings r
		JOIN monitor_targets t ON t.id = r.target_id WHERE r.run_id = $1 ORDER BY t.position, r.sample`, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []uuid.UUID
	for rows.Next() {
		var r uuid.UUID
		if err := rows.Scan(&r); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// TestSamples reads a target of three samples in two runs: each run
// makes three readings (each its own visit: the request's sample
// differs), and the brand events compare the runs' rates with the
// previous run's Wilson interval.
func TestSamples(t *testing.T) {
	svc, p, acc := setup(t, monitor.DefaultLimits)
	ctx := context.Background()
	d := monitor.Definition{Name: "samples", Schedule: monitor.Schedule{Type: monitor.Daily, Time: "06:00"}, Paused: true,
		Targets: []monitor.Target{{Query: "sampled shoes", CountryCode: "us", LanguageCode: "en", Samples: 3}},
		Watch:   monitor.Watch{Brands: []monitor.Brand{{Name: "Nike", Own: true}, {Name: "Adidas"}}}}
	v, err := svc.Create(ctx, acc, d, monitor.Vetting{})
	if err != nil {
		t.Fatal(err)
	}
	id := uuid.MustParse(v.ID)
	t.Cleanup(func() { svc.Delete(context.Background(), acc, id) })
	p.set("sampled shoes", answer("Nike and Adidas."))
	first := runAll(t, svc, acc, id)
	// Nike goes from 3 of 3 (interval [0.4385, 1]) to 0 of 3: dropped;
	// Adidas stays named in 3 of 3: no event.
	p.set("sampled shoes", answer("Adidas alone."))
	second := runAll(t, svc, acc, id)
	runs, err := svc.Runs(ctx, acc, id, "", 10)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range runs.Items {
		if (r.ID == first.ID || r.ID == second.ID) && (r.Counts.Targets != 1 || r.Counts.Readings != 3 || r.Counts.Read != 3) {
			t.Errorf("run counts %+v, want 1 target, 3 readings read", r.Counts)
		}
	}
	samples := map[int]bool{}
	p.mu.Lock()
	for _, r := range p.requests {
		samples[r.Sample] = true
	}
	p.mu.Unlock()
	if len(samples) != 3 {
		t.Errorf("samples asked: %v, want 1, 2 and 3", samples)
	}
	changes, err := svc.Changes(ctx, acc, id, time.Time{}, "", 50)
	if err != nil {
		t.Fatal(err)
	}
	var got []monitor.Change
	for _, c := range changes.Items {
		if c.Brand != "" {
			got = append(got, c.Change)
		}
	}
	zero := 0.0
	want := []monitor.Change{{Kind: monitor.BrandDropped, Brand: "Nike", Rate: &zero, Previous: &monitor.Interval{Low: 0.4385, High: 1}}}
	if diff := gocmp.Diff(want, got); diff != "" {
		t.Errorf("sampled brand changes (-want +got):\n%s", diff)
	}
}

// TestBrandDaysRollUp checks that GET .../brands answers the same from
// the daily roll-up as from the readings, that it reads the roll-up once
// a day is summed, and that a reading finished late, a removed target and
// expired runs change the days they touch. A second service whose clock
// is three days ahead sees today as a closed day.
func TestBrandDaysRollUp(t *testing.T) {
	db, _ := testenv.OwnPostgres(t)
	ctx := context.Background()
	acc, err := db.CreateAccount(ctx, "rollup-"+testenv.RandomHex(6), true)
	if err != nil {
		t.Fatal(err)
	}
	p := &pages{answers: map[string]any{}}
	q := asynq.NewClientFromRedisClient(testenv.Redis(t))
	svc := monitor.New(monitor.Options{DB: db, Queue: q, Reader: p, Limits: monitor.DefaultLimits})
	later := monitor.New(monitor.Options{DB: db, Queue: q, Reader: p, Limits: monitor.DefaultLimits, Retention: time.Hour,
		Now: func() time.Time { return time.Now().Add(72 * time.Hour) }})
	d := monitor.Definition{Name: "rollup", Schedule: monitor.Schedule{Type: monitor.Daily, Time: "06:00"}, Paused: true,
		Targets: []monitor.Target{{Query: "shoes one", CountryCode: "us", LanguageCode: "en"},
			{Query: "shoes two", CountryCode: "de", LanguageCode: "de"}, {Query: "shoes three", CountryCode: "us", LanguageCode: "en", Surface: "web-search"}},
		Watch: monitor.Watch{Brands: []monitor.Brand{{Name: "Nike", Domains: []string{"nike.com"}, Own: true},
			{Name: "Adidas", Domains: []string{"adidas.de"}}}}}
	v, err := svc.Create(ctx, acc.ID, d, monitor.Vetting{})
	if err != nil {
		t.Fatal(err)
	}
	id := uuid.MustParse(v.ID)
	p.set("shoes one", answer("Nike and Adidas. Nike again.", "https://www.nike.com/a"))
	p.set("shoes two", answer("Adidas only.", "https://shop.adidas.de/x", "https://nike.com/y"))
	p.set("shoes three", kisa.Overview{})
	readAll := func() { runAllIn(t, db, svc, acc.ID, id) }
	readAll()

	// From a day before today to three days after: today is a whole day,
	// closed for later, open for svc.
	today := time.Now().UTC().Truncate(24 * time.Hour)
	span := monitor.Span{From: today.Add(-24 * time.Hour), To: today.Add(72 * time.Hour)}
	groupings := [][]string{{"surface"}, {"day"}, {"country", "language"}, {"surface", "device", "day"}}
	days := func() int {
		var n int
		if err := db.SQL().QueryRowContext(ctx, `SELECT count(*) FROM monitor_brand_day_sums WHERE monitor_id = $1`, id).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	same := func(step string) {
		t.Helper()
		for _, g := range groupings {
			want, err := svc.Brands(ctx, acc.ID, id, span, g)
			if err != nil {
				t.Fatal(err)
			}
			got, err := later.Brands(ctx, acc.ID, id, span, g)
			if err != nil {
				t.Fatal(err)
			}
			if diff := gocmp.Diff(want, got, cmpopts.IgnoreUnexported(monitor.BrandAggregate{})); diff != "" {
				t.Errorf("%s: by %v, roll-up against readings (-readings +roll-up):\n%s", step, g, diff)
			}
		}
	}
	if days() != 0 {
		t.Fatal("summed before asked")
	}
	same("first")
	if n := days(); n != 3 { // one group per target: surface and country differ
		t.Fatalf("roll-up of today: %d rows, want 3", n)
	}
	// The roll-up is what later reads: a change behind its back shows in
	// the readings only.
	bump := func(by int) {
		t.Helper()
		if _, err := db.SQL().ExecContext(ctx, `UPDATE monitor_readings SET brand_mentions[1] = brand_mentions[1] + $2
			WHERE monitor_id = $1`, id, by); err != nil {
			t.Fatal(err)
		}
	}
	bump(100)
	rep, err := later.Brands(ctx, acc.ID, id, span, []string{"surface"})
	if err != nil {
		t.Fatal(err)
	}
	if m := rep.Groups[0].Brands[0].Mentions; m != 2 {
		t.Fatalf("Nike's mentions in the overviews from the roll-up: %d, want 2 (as summed)", m)
	}
	bump(-100)
	same("restored")

	// Readings finished today after today was summed: summed again.
	p.set("shoes one", answer("Adidas, then Nike.", "https://adidas.de/z"))
	readAll()
	same("late readings")

	// A target removed with its history.
	patch := `{"targets":[{"query":"shoes one","countryCode":"us","languageCode":"en"},{"query":"shoes three","countryCode":"us","languageCode":"en","surface":"web-search"}]}`
	if _, err := svc.Update(ctx, acc.ID, id, json.RawMessage(patch), monitor.Vetting{}); err != nil {
		t.Fatal(err)
	}
	same("target removed")
	if rep, _ := later.Brands(ctx, acc.ID, id, span, []string{"country"}); len(rep.Groups) != 1 {
		t.Errorf("after removing the German target: groups %+v, want us only", rep.Groups)
	}

	// Runs expired (later's clock: every run is older than its hour).
	if err := later.Maintain(ctx); err != nil {
		t.Fatal(err)
	}
	same("runs expired")
	if rep, _ := later.Brands(ctx, acc.ID, id, span, []string{"surface"}); len(rep.Groups) != 0 {
		t.Errorf("after the runs expired: groups %+v, want none", rep.Groups)
	}
}
