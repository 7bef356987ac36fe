package main

import (
	"context"
	"encoding/json"
	"image/png"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/kisa-dev/kisa/client"
	"github.com/kisa-dev/kisa/geo"
	"github.com/kisa-dev/kisa/serpfixture"
)

// TestDevicesAndPlacesEndToEnd runs device and location through HTTP,
// asynq, the worker's real Chromium, MinIO and the fixture: the phone and
// the place reach the search engine (client hints, the uule, the phone's
// page and screenshots), the page sees the place's time zone and
// position, each device and location is a cache entry of its own, and
// async jobs show and keep them.
func TestDevicesAndPlacesEndToEnd(t *testing.T) {
	s := startStack(t, stackOptions{waitTimeout: "60s", fixture: serpfixture.Options{OverviewDelay: 600 * time.Millisecond}})

	t.Run("a phone in Munich is not the desktop in Germany", func(t *testing.T) {
		desktop := s.mustOK(t, `{"query":"beste pizza","countryCode":"de","languageCode":"de","screenshots":false}`)
		seen, _ := s.fixture.Seen("beste pizza")
		if seen.Mobile || !seen.Location.IsZero() || seen.ClientHints[1] != "?0" {
			t.Errorf("desktop request seen as %+v, want a desktop without location", seen)
		}
		phone := s.mustOK(t, `{"query":"beste pizza","countryCode":"de","languageCode":"de","device":"mobile","location":"Munich,Bavaria,Germany"}`)
		if phone.Data.IsCached {
			t.Error("the phone in Munich was answered from the desktop's cache entry")
		}
		seen, _ = s.fixture.Seen("beste pizza")
		if !seen.Mobile || seen.Location.Name != "Munich,Bavaria,Germany" || seen.ClientHints[1] != "?1" || seen.ClientHints[2] != `"Android"` {
			t.Errorf("phone request seen as %+v, want a phone in Munich", seen)
		}
		if n := s.fixture.Visits("beste pizza"); n != 2 {
			t.Errorf("%d visits, want 2 (one per device and place)", n)
		}
		if phone.Data.Results.Text != desktop.Data.Results.Text || !phone.Data.Results.HasOverview {
			t.Errorf("the phone's overview %.60q differs from the desktop's %.60q", phone.Data.Results.Text, desktop.Data.Results.Text)
		}
		if w := pngWidth(t, phone.Data.Results.Screenshots["initial"]); w != 1082 {
			t.Errorf("the phone's initial screenshot is %d px wide, want 1082 (412 at 2.625)", w)
		}
		again := s.mustOK(t, `{"query":"Beste  Pizza","countryCode":"DE","languageCode":"de","device":"mobile","location":"Munich,Bavaria,Germany"}`)
		if !again.Data.IsCached {
			t.Error("the same phone in Munich was not answered from its cache entry")
		}
	})

	t.Run("coordinates: the page's time zone and position", func(t *testing.T) {
		body := `{"query":"` + serpfixture.PresenceQuery + `","countryCode":"us","languageCode":"en","device":"mobile",
			"location":{"latitude":30.2672,"longitude":-97.7431},"rawHtml":true,"screenshots":false}`
		out := s.mustOK(t, body)
		doc, err := goquery.NewDocumentFromReader(strings.NewReader(download(t, out.Data.Results.RawHTML)))
		if err != nil {
			t.Fatal(err)
		}
		var page struct {
			Webdriver *bool      `json:"webdriver"`
			TimeZone  string     `json:"timeZone"`
			Mobile    bool       `json:"mobile"`
			Position  *geo.Point `json:"position"`
			Languages []string   `json:"languages"`
		}
		pre := doc.Find("#kisa-presence")
		if err := json.Unmarshal([]byte(pre.Text()), &page); err != nil || pre.AttrOr("data-done", "") != "1" {
			t.Fatalf("presence report %q: %v", pre.Text(), err)
		}
		want := geo.Point{Latitude: 30.2672, Longitude: -97.7431}
		if page.Webdriver == nil || *page.Webdriver || page.TimeZone != "America/Chicago" || !page.Mobile ||
			page.Position == nil || *page.Position != want || len(page.Languages) != 1 || page.Languages[0] != "en" {
			t.Errorf("the page read %+v, want no webdriver, America/Chicago, a phone at %+v, English", page, want)
		}
		seen, _ := s.fixture.Seen(serpfixture.PresenceQuery)
		if seen.Location.Point == nil || *seen.Location.Point != want {
			t.Errorf("uule read as %q, want %+v", seen.Location, want)
		}
	})

	t.Run("async jobs show and keep device and location", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		req := client.OverviewRequest{Query: "tokyo ramen", CountryCode: "jp", LanguageCode: "ja", Device: "mobile",
			Location: &geo.Location{Name: "Shibuya,Tokyo,Japan"}, Screenshots: new(bool)}
		job, err := s.api.SubmitOverview(ctx, req, "")
		if err != nil {
			t.Fatal(err)
		}
		done, err := s.api.WaitJob(ctx, job.ID, 200*time.Millisecond)
		if err != nil || done.Status != "done" || done.Result == nil || !done.Result.Results.HasOverview {
			t.Fatalf("job = %+v, %v; want done with an overview", done, err)
		}
		var view struct {
			Device   string `json:"device"`
			Location string `json:"location"`
		}
		if err := json.Unmarshal(done.Request, &view); err != nil || view.Device != "mobile" || view.Location != "Shibuya,Tokyo,Japan" {
			t.Errorf("job request %s, want device mobile and the location", done.Request)
		}
		seen, _ := s.fixture.Seen("tokyo ramen")
		if !seen.Mobile || seen.Location.Name != "Shibuya,Tokyo,Japan" {
			t.Errorf("the job's visit was seen as %+v", seen)
		}
	})

	t.Run("a batch's items are visits of their own devices and places", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		item := func(device string, loc *geo.Location) client.OverviewRequest {
			return client.OverviewRequest{Query: "wiener schnitzel", CountryCode: "at", LanguageCode: "de", Device: device,
				Location: loc, Screenshots: new(bool)}
		}
		vienna := &geo.Location{Point: &geo.Point{Latitude: 48.2082, Longitude: 16.3738}}
		b, err := s.api.SubmitBatch(ctx, []client.OverviewRequest{item("", nil), item("mobile", nil), item("mobile", vienna), item("mobile", vienna)}, "")
		if err != nil {
			t.Fatal(err)
		}
		for _, j := range b.Jobs {
			if done, err := s.api.WaitJob(ctx, j.ID, 200*time.Millisecond); err != nil || done.Status != "done" {
				t.Fatalf("job %s = %+v, %v; want done", j.ID, done, err)
			}
		}
		if n := s.fixture.Visits("wiener schnitzel"); n != 3 {
			t.Errorf("%d visits for desktop, phone, phone in Vienna and that again; want 3", n)
		}
	})

	t.Run("contradictions are refused before any visit", func(t *testing.T) {
		res, _, raw := s.post(t, `{"query":"beste pizza","countryCode":"at","location":"Munich,Bavaria,Germany"}`)
		if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(string(raw), `"location":"names a place in \"Germany\"`) {
			t.Errorf("status %d %s, want 422 on location", res.StatusCode, raw)
		}
	})
}

// pngWidth downloads the PNG at u and returns its width.
func pngWidth(tb testing.TB, u string) int {
	tb.Helper()
	res, err := http.Get(u)
	if err != nil {
		tb.Fatal(err)
	}
	defer res.Body.Close()
	cfg, err := png.DecodeConfig(res.Body)
	if err != nil {
		tb.Fatalf("screenshot %s: %v", u, err)
	}
	return cfg.Width
}
