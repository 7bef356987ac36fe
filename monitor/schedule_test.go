package monitor

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kisa-dev/kisa/geo"
)

func intp(i int) *int { return &i }

func TestScheduleSpec(t *testing.T) {
	tests := []struct {
		name     string
		schedule Schedule
		want     string
		field    string // the field an error names
	}{
		{name: "hourly", schedule: Schedule{Type: Hourly}, want: "0 * * * *"},
		{name: "hourly at minute", schedule: Schedule{Type: Hourly, Minute: intp(17)}, want: "17 * * * *"},
		{name: "hourly minute too big", schedule: Schedule{Type: Hourly, Minute: intp(60)}, field: "schedule.minute"},
		{name: "daily", schedule: Schedule{Type: Daily, Time: "06:30"}, want: "30 6 * * *"},
		{name: "daily midnight", schedule: Schedule{Type: Daily, Time: "00:00"}, want: "0 0 * * *"},
		{name: "daily bad time", schedule: Schedule{Type: Daily, Time: "24:00"}, field: "schedule.time"},
		{name: "daily no time", schedule: Schedule{Type: Daily}, field: "schedule.time"},
		{name: "weekly", schedule: Schedule{Type: Weekly, Day: "Monday", Time: "23:59"}, want: "59 23 * * 1"},
		{name: "weekly sunday", schedule: Schedule{Type: Weekly, Day: "sunday", Time: "08:00"}, want: "0 8 * * 0"},
		{name: "weekly bad day", schedule: Schedule{Type: Weekly, Day: "mon", Time: "08:00"}, field: "schedule.day"},
		{name: "cron every two hours", schedule: Schedule{Type: Cron, Cron: "15 */2 * * *"}, want: "15 */2 * * *"},
		{name: "cron weekdays", schedule: Schedule{Type: Cron, Cron: " 0 6 * * 1-5 "}, want: "0 6 * * 1-5"},
		{name: "cron descriptor", schedule: Schedule{Type: Cron, Cron: "@daily"}, want: "@daily"},
		{name: "cron hourly descriptor", schedule: Schedule{Type: Cron, Cron: "@hourly"}, want: "@hourly"},
		{name: "cron every minute", schedule: Schedule{Type: Cron, Cron: "* * * * *"}, field: "schedule.cron"},
		{name: "cron twice an hour", schedule: Schedule{Type: Cron, Cron: "0,30 * * * *"}, field: "schedule.cron"},
		{name: "cron every", schedule: Schedule{Type: Cron, Cron: "@every 2h"}, field: "schedule.cron"},
		{name: "cron time zone", schedule: Schedule{Type: Cron, Cron: "CRON_TZ=Europe/Vienna 0 6 * * *"}, field: "schedule.cron"},
		{name: "cron garbage", schedule: Schedule{Type: Cron, Cron: "every day"}, field: "schedule.cron"},
		{name: "cron six fields", schedule: Schedule{Type: Cron, Cron: "0 0 6 * * *"}, field: "schedule.cron"},
		{name: "unknown type", schedule: Schedule{Type: "minutely"}, field: "schedule.type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.schedule.Spec()
			if tt.field != "" {
				var inv *InvalidError
				if !errors.As(err, &inv) || inv.Fields[tt.field] == "" {
					t.Fatalf("Spec() = %q, %v; want an error naming %s", got, err, tt.field)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("Spec() = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestRunsPerDay(t *testing.T) {
	from := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		spec string
		want int
	}{
		{"0 * * * *", 24},
		{"30 6 * * *", 1},
		{"0 8 * * 1", 1},
		{"15 */2 * * *", 12},
		{"0 6,18 * * 1-5", 2},
		{"0 0 29 2 *", 0}, // no 29 February within the year after from
	}
	for _, tt := range tests {
		got, err := RunsPerDay(tt.spec, from)
		if err != nil || got != tt.want {
			t.Errorf("RunsPerDay(%q) = %d, %v; want %d", tt.spec, got, err, tt.want)
		}
	}
}

func TestSlot(t *testing.T) {
	at := func(h, m, s int) time.Time { return time.Date(2026, 11, 26, h, m, s, 0, time.UTC) }
	tests := []struct {
		name string
		spec string
		now  time.Time
		want time.Time
	}{
		{"on time", "0 * * * *", at(12, 0, 0), at(12, 0, 0)},
		{"a little late", "0 * * * *", at(12, 0, 3), at(12, 0, 0)},
		{"clock behind the scheduler's", "0 * * * *", at(11, 59, 55), at(12, 0, 0)},
		{"daily, minutes late", "30 6 * * *", at(6, 41, 0), at(6, 30, 0)},
		{"no firing within the hour: now to the minute", "30 6 * * *", at(9, 12, 40), at(9, 12, 0)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Slot(tt.spec, tt.now); !got.Equal(tt.want) {
				t.Errorf("Slot = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestNormalize(t *testing.T) {
	d := Definition{Name: "  Shoes  ", Schedule: Schedule{Type: Daily, Time: "06:00"},
		Targets: []Target{{Query: " best  running shoes ", CountryCode: "US", LanguageCode: "EN"},
			{Query: "trail shoes", CountryCode: "at", LanguageCode: "de"},
			{Query: "trail shoes", CountryCode: "at", LanguageCode: "de", Device: "mobile", Location: Place{raw: json.RawMessage(`"Graz,Styria,Austria"`)}},
			{Query: "trail shoes", CountryCode: "at", LanguageCode: "de", Location: Place{raw: json.RawMessage(`{"longitude":15.44,"latitude":47.07}`)}}},
		Watch: Watch{Domains: []string{"Example.com", "example.com", "bbc.co.uk"}}}
	got, spec, err := d.Normalize(Vetting{})
	if err != nil {
		t.Fatal(err)
	}
	want := Definition{Name: "Shoes", Schedule: d.Schedule,
		Targets: []Target{{Surface: SurfaceAIOverview, Query: "best running shoes", CountryCode: "us", LanguageCode: "en", Device: "desktop", Samples: 1},
			{Surface: SurfaceAIOverview, Query: "trail shoes", CountryCode: "at", LanguageCode: "de", Device: "desktop", Samples: 1},
			{Surface: SurfaceAIOverview, Query: "trail shoes", CountryCode: "at", LanguageCode: "de", Device: "mobile",
				Location: PlaceOf(geo.Location{Name: "Graz,Styria,Austria"}), Samples: 1},
			{Surface: SurfaceAIOverview, Query: "trail shoes", CountryCode: "at", LanguageCode: "de", Device: "desktop",
				Location: PlaceOf(geo.Location{Point: &geo.Point{Latitude: 47.07, Longitude: 15.44}}), Samples: 1}},
		Watch: Watch{Domains: []string{"example.com", "bbc.co.uk"}, Brands: []Brand{}}}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(Place{})); diff != "" || spec != "0 6 * * *" {
		t.Errorf("Normalize (-want +got):\n%s\nspec %q", diff, spec)
	}
}

func TestNormalizeProblems(t *testing.T) {
	many := make([]Target, MaxTargets+1)
	tests := []struct {
		name   string
		def    Definition
		fields []string
	}{
		{"no name, no targets", Definition{Schedule: Schedule{Type: Hourly}}, []string{"name", "targets"}},
		{"too many targets", Definition{Name: "x", Schedule: Schedule{Type: Hourly}, Targets: many}, []string{"targets"}},
		{"bad target", Definition{Name: "x", Schedule: Schedule{Type: Hourly},
			Targets: []Target{{Surface: "ai-modes", Query: " ", CountryCode: "xx", LanguageCode: "english"}}},
			[]string{"targets[0].surface", "targets[0].query", "targets[0].countryCode", "targets[0].languageCode"}},
		{"bad device and places", Definition{Name: "x", Schedule: Schedule{Type: Hourly}, Targets: []Target{
			{Query: "a", CountryCode: "at", Device: "phone", Location: Place{raw: json.RawMessage(`"Munich,Bavaria,Germany"`)}},
			{Query: "a", CountryCode: "at", Location: Place{raw: json.RawMessage(`{"latitude":100}`)}},
			{Query: "a", CountryCode: "at", Location: Place{raw: json.RawMessage(`{"latitude":100}`)}},
			{Query: "a", CountryCode: "xx", Location: Place{raw: json.RawMessage(`"Munich,Bavaria,Germany"`)}}}},
			[]string{"targets[0].device", "targets[0].location", "targets[1].location.latitude", "targets[1].location.longitude",
				"targets[2]", "targets[2].location.latitude", "targets[2].location.longitude", "targets[3].countryCode"}},
		{"web search query too long", Definition{Name: "x", Schedule: Schedule{Type: Hourly}, Targets: []Target{
			{Surface: SurfaceWebSearch, Query: strings.Repeat("a", 101)}, {Surface: SurfaceAIMode, Query: strings.Repeat("a", 101)}}},
			[]string{"targets[0].query"}},
		{"country not served", Definition{Name: "x", Schedule: Schedule{Type: Hourly},
			Targets: []Target{{Query: "a", CountryCode: "fr"}}}, []string{"targets[0].countryCode"}},
		{"repeated target", Definition{Name: "x", Schedule: Schedule{Type: Hourly}, Targets: []Target{
			{Query: "A b", CountryCode: "us", LanguageCode: "en"}, {Query: "a  B", CountryCode: "US", LanguageCode: "en"}}},
			[]string{"targets[1]"}},
		{"subdomain watched", Definition{Name: "x", Schedule: Schedule{Type: Hourly},
			Targets: []Target{{Query: "a", CountryCode: "us", LanguageCode: "en"}},
			Watch:   Watch{Domains: []string{"blog.example.com", "co.uk", "127.0.0.1"}}},
			[]string{"watch.domains[0]", "watch.domains[1]", "watch.domains[2]"}},
		{"bad webhook", Definition{Name: "x", Schedule: Schedule{Type: Hourly},
			Targets: []Target{{Query: "a", CountryCode: "us", LanguageCode: "en"}}, Webhook: &Hook{URL: "ftp://x"}},
			[]string{"webhook.url"}},
	}
	refuse := func(string) error { return errors.New("must be an https URL") }
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := tt.def.Normalize(Vetting{WebhookURL: refuse, Country: func(c string) bool { return c != "fr" }})
			var inv *InvalidError
			if !errors.As(err, &inv) {
				t.Fatalf("Normalize = %v, want an *InvalidError", err)
			}
			var got []string
			for _, f := range tt.fields {
				if inv.Fields[f] != "" {
					got = append(got, f)
				}
			}
			if diff := cmp.Diff(tt.fields, got); diff != "" || len(inv.Fields) != len(tt.fields) {
				t.Errorf("fields named (-want +got):\n%s\nall: %v", diff, inv.Fields)
			}
		})
	}
}

// TestIdentity checks that a target's device and location make it
// another target, and that a desktop target for the whole country keeps
// the identity targets had before devices and locations.
func TestIdentity(t *testing.T) {
	base := Target{Surface: SurfaceAIOverview, Query: "Trail  Shoes", CountryCode: "at", LanguageCode: "de", Device: "desktop"}
	old := sha256.Sum256([]byte("ai-overview\x00trail shoes\x00at\x00de"))
	if got := base.Identity(); got != hex.EncodeToString(old[:16]) {
		t.Errorf("desktop, whole country: identity %s, want the one before devices %x", got, old[:16])
	}
	mobile, named, point, moved := base, base, base, base
	mobile.Device = "mobile"
	named.Location = PlaceOf(geo.Location{Name: "Graz,Styria,Austria"})
	point.Location = PlaceOf(geo.Location{Point: &geo.Point{Latitude: 47.07, Longitude: 15.44}})
	moved.Location = PlaceOf(geo.Location{Point: &geo.Point{Latitude: 47.07, Longitude: 15.45}})
	seen := map[string]string{}
	for name, tg := range map[string]Target{"base": base, "mobile": mobile, "named": named, "point": point, "moved": moved} {
		if other, ok := seen[tg.Identity()]; ok {
			t.Errorf("%s and %s have one identity", name, other)
		}
		seen[tg.Identity()] = name
	}
	same := point
	same.Location = PlaceOf(geo.Location{Point: &geo.Point{Latitude: 47.07, Longitude: 15.44}})
	if same.Identity() != point.Identity() {
		t.Error("the same point made another identity")
	}
}

func TestLimits(t *testing.T) {
	l := Limits{Monitors: 2, Targets: 10, VisitsPerDay: 48}
	tests := []struct {
		name   string
		others []Plan
		p      Plan
		fields []string
	}{
		{"fits", []Plan{{Targets: 1, RunsPerDay: 24}}, Plan{Targets: 1, RunsPerDay: 24}, nil},
		{"too many monitors", []Plan{{Targets: 1}, {Targets: 1}}, Plan{Targets: 1}, []string{"monitors"}},
		{"too many targets", nil, Plan{Targets: 11, RunsPerDay: 1}, []string{"targets"}},
		{"too many visits", []Plan{{Targets: 2, RunsPerDay: 24}}, Plan{Targets: 1, RunsPerDay: 1}, []string{"schedule"}},
		{"paused ones plan no visits", []Plan{{Targets: 9, RunsPerDay: 0}}, Plan{Targets: 1, RunsPerDay: 24}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := l.Check(tt.others, tt.p)
			var got []string
			var inv *InvalidError
			if errors.As(err, &inv) {
				for _, f := range []string{"monitors", "targets", "schedule"} {
					if inv.Fields[f] != "" {
						got = append(got, f)
					}
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.fields, got); diff != "" {
				t.Errorf("fields (-want +got):\n%s", diff)
			}
		})
	}
	if !l.RunFits(40, 8) || l.RunFits(41, 8) || !(Limits{}).RunFits(1e6, 1e6) {
		t.Error("RunFits does not bound the day's visits")
	}
}
