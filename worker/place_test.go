package worker

import (
	"net/url"
	"testing"
	"time"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/geo"
	"github.com/kisa-dev/kisa/jobs"
)

// TestVisitRequestPlaces: the task's device, location and country become
// the browser's request: the uule in the search URL, the time zone of the
// place, the coordinates as the page's position, the phone.
func TestVisitRequestPlaces(t *testing.T) {
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	h := &Handler{searchURL: &url.URL{Scheme: "http", Host: "127.0.0.1:9", Path: "/search"}, now: func() time.Time { return now }}
	austin := geo.Location{Point: &geo.Point{Latitude: 30.2672, Longitude: -97.7431}}
	tests := []struct {
		name     string
		p        jobs.OverviewPayload
		wantZone string
		mobile   bool
	}{
		{"whole country", jobs.OverviewPayload{Query: "q", CountryCode: "de", LanguageCode: "de"}, "Europe/Berlin", false},
		{"place name, phone", jobs.OverviewPayload{Query: "q", CountryCode: "jp", LanguageCode: "ja", Device: kisa.DeviceMobile,
			Location: &geo.Location{Name: "Osaka,Osaka,Japan"}}, "Asia/Tokyo", true},
		{"coordinates", jobs.OverviewPayload{Query: "q", CountryCode: "us", LanguageCode: "en", Device: kisa.DeviceDesktop,
			Location: &austin}, "America/Chicago", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := h.visitRequest(tt.p)
			u, err := url.Parse(req.URL)
			if err != nil {
				t.Fatal(err)
			}
			q := u.Query()
			var want geo.Location
			if tt.p.Location != nil {
				want = *tt.p.Location
			}
			got := geo.Location{}
			if raw := q.Get("uule"); raw != "" {
				if got, err = geo.Decode(raw); err != nil {
					t.Fatalf("uule %q: %v", raw, err)
				}
			}
			if got.Key() != want.Key() || q.Get("gl") != tt.p.CountryCode || q.Get("hl") != tt.p.LanguageCode {
				t.Errorf("URL %s: uule %q, want %q", req.URL, got, want)
			}
			if req.TimeZone != tt.wantZone || req.Mobile != tt.mobile || req.Language != tt.p.LanguageCode {
				t.Errorf("visit request %+v, want zone %s, mobile %v", req, tt.wantZone, tt.mobile)
			}
			if (req.Geolocation == nil) != (want.Point == nil) || want.Point != nil && *req.Geolocation != *want.Point {
				t.Errorf("geolocation %v, want %v", req.Geolocation, want.Point)
			}
		})
	}
}
