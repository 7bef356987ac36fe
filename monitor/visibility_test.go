package monitor

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"
)

func f(x float64) *float64 { return &x }

func TestAggregate(t *testing.T) {
	t1, t2, t3 := uuid.New(), uuid.New(), uuid.New()
	day1 := time.Date(2026, 11, 25, 6, 0, 0, 0, time.UTC)
	day2 := day1.AddDate(0, 0, 1)
	with := func(urls ...string) Reading { return Reading{HasOverview: true, Sources: src(urls...)} }
	obs := []Observation{
		// day 1: t1 cites example.com at 2; t2 cites it at 1 (subdomain); t3 has no overview.
		{TargetID: t1, Country: "us", TakenAt: day1, Reading: with("https://rival.com/", "https://example.com/a")},
		{TargetID: t2, Country: "us", TakenAt: day1, Reading: with("https://shop.example.com/", "https://rival.com/b")},
		{TargetID: t3, Country: "at", TakenAt: day1, Reading: Reading{}},
		// day 2: t1 read twice; the later reading counts.
		{TargetID: t1, Country: "us", TakenAt: day2, Reading: with("https://example.com/a")},
		{TargetID: t1, Country: "us", TakenAt: day2.Add(time.Hour), Reading: with("https://rival.com/")},
	}
	got := Aggregate(obs, []string{"example.com", "watched.org"}, ByDay)
	want := Visibility{GroupBy: ByDay, Groups: []Group{
		{Key: "2026-11-25", Targets: 3, OverviewShare: 0.667, Domains: []DomainVisibility{
			{Domain: "example.com", Watched: true, CitedShare: 0.667, MeanPosition: f(1.5)},
			{Domain: "watched.org", Watched: true, CitedShare: 0},
			{Domain: "rival.com", CitedShare: 0.667, MeanPosition: f(1.5)},
		}},
		{Key: "2026-11-26", Targets: 1, OverviewShare: 1, Domains: []DomainVisibility{
			{Domain: "example.com", Watched: true, CitedShare: 0},
			{Domain: "watched.org", Watched: true, CitedShare: 0},
			{Domain: "rival.com", CitedShare: 1, MeanPosition: f(1)},
		}},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Aggregate by day (-want +got):\n%s", diff)
	}
	// By country, a target's last reading over the whole period counts:
	// in "us" t1's (rival only) and t2's (example.com first).
	gotCountry := Aggregate(obs, []string{"example.com"}, ByCountry)
	wantCountry := Visibility{GroupBy: ByCountry, Groups: []Group{
		{Key: "at", Targets: 1, OverviewShare: 0, Domains: []DomainVisibility{
			{Domain: "example.com", Watched: true, CitedShare: 0},
			{Domain: "rival.com", CitedShare: 0},
		}},
		{Key: "us", Targets: 2, OverviewShare: 1, Domains: []DomainVisibility{
			{Domain: "example.com", Watched: true, CitedShare: 0.5, MeanPosition: f(1)},
			{Domain: "rival.com", CitedShare: 1, MeanPosition: f(1.5)},
		}},
	}}
	if diff := cmp.Diff(wantCountry, gotCountry); diff != "" {
		t.Errorf("Aggregate by country (-want +got):\n%s", diff)
	}
}
