package browser

import (
	"bytes"
	"context"
	"encoding/json"
	"image/png"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/geo"
	"github.com/kisa-dev/kisa/serpfixture"
)

// pageSignals is what the fixture's presence page reads about the browser
// (serpfixture.PresenceQuery).
type pageSignals struct {
	UserAgent      string   `json:"userAgent"`
	Webdriver      *bool    `json:"webdriver"`
	Platform       string   `json:"platform"`
	Languages      []string `json:"languages"`
	Locale         string   `json:"locale"`
	TimeZone       string   `json:"timeZone"`
	OuterWidth     int      `json:"outerWidth"`
	OuterHeight    int      `json:"outerHeight"`
	InnerWidth     int      `json:"innerWidth"`
	ScreenWidth    int      `json:"screenWidth"`
	ScreenHeight   int      `json:"screenHeight"`
	DPR            float64  `json:"devicePixelRatio"`
	MaxTouchPoints int      `json:"maxTouchPoints"`
	TouchEvents    bool     `json:"touchEvents"`
	Chrome         string   `json:"chrome"`
	Notification   string   `json:"notification"`
	NotificationP  string   `json:"notificationPermission"`
	GeolocationP   string   `json:"geolocationPermission"`
	Brands         []brand  `json:"brands"`
	Mobile         *bool    `json:"mobile"`
	HintPlatform   string   `json:"hintPlatform"`
	HighEntropy    struct {
		FullVersionList []brand `json:"fullVersionList"`
		Architecture    string  `json:"architecture"`
		Bitness         string  `json:"bitness"`
		Model           string  `json:"model"`
		PlatformVersion string  `json:"platformVersion"`
	} `json:"highEntropy"`
	Position *geo.Point `json:"position"`
}

type brand struct {
	Brand   string `json:"brand"`
	Version string `json:"version"`
}

// TestPresence visits the fixture's presence page as a desktop and as a
// phone in three countries, one of them at coordinates, and asserts every
// signal a page or the search request can read: one consistent identity
// of this Chromium (its version in the user agent, brands and full
// version list; Linux, or Android on the phone), navigator.webdriver
// false, the language, locale and time zone of the request, real window
// dimensions, the phone's screen and touch, the position for the search
// host only. The fixture would have answered any disagreement with its
// CAPTCHA page, which fails the visit.
func TestPresence(t *testing.T) {
	fixture := serpfixture.New(serpfixture.Options{OverviewDelay: -1, Logger: testLogger(t)})
	srv := httptest.NewServer(fixture)
	t.Cleanup(srv.Close)
	p := newTestPool(t, nil)
	munich := &geo.Point{Latitude: 48.137, Longitude: 11.575}
	places := []struct {
		country, lang, zone string
		loc                 geo.Location
	}{
		{"de", "de", "Europe/Berlin", geo.Location{Point: munich}},
		{"jp", "ja", "Asia/Tokyo", geo.Location{Name: "Osaka,Osaka,Japan"}},
		{"us", "en", "America/Chicago", geo.Location{Name: "Austin,Texas,United States"}},
	}
	for _, mobile := range []bool{false, true} {
		for _, pl := range places {
			name := pl.country + "/desktop"
			if mobile {
				name = pl.country + "/mobile"
			}
			t.Run(name, func(t *testing.T) {
				q := url.Values{"q": {serpfixture.PresenceQuery}, "gl": {pl.country}, "hl": {pl.lang}}
				raw := srv.URL + "/search?" + q.Encode() + "&" + pl.loc.Param(time.Now())
				zone := geo.TimeZone(pl.country, pl.loc)
				if zone != pl.zone {
					t.Fatalf("geo.TimeZone = %q, want %q", zone, pl.zone)
				}
				res, err := p.Visit(t.Context(), VisitRequest{URL: raw, Language: pl.lang, Mobile: mobile, TimeZone: zone,
					Geolocation: pl.loc.Point, Screenshots: true})
				if err != nil {
					t.Fatalf("Visit: %v", err)
				}
				sig, seen := readPresence(t, res.HTML)
				checkIdentity(t, p, sig, seen, mobile)
				checkPlace(t, sig, seen, pl.lang, pl.zone, pl.loc)
				checkScreen(t, sig, res, mobile)
			})
		}
	}
}

// readPresence reads the presence page's two reports from a visit's HTML.
func readPresence(tb testing.TB, html string) (pageSignals, serpfixture.Seen) {
	tb.Helper()
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(html))
	if err != nil {
		tb.Fatal(err)
	}
	pre := doc.Find("#kisa-presence")
	if pre.AttrOr("data-done", "") != "1" {
		tb.Fatalf("the presence page had not finished reading the browser (%q)", pre.Text())
	}
	var sig pageSignals
	if err := json.Unmarshal([]byte(pre.Text()), &sig); err != nil {
		tb.Fatalf("page signals: %v", err)
	}
	var seen serpfixture.Seen
	if err := json.Unmarshal([]byte(doc.Find("#kisa-headers").Text()), &seen); err != nil {
		tb.Fatalf("headers: %v", err)
	}
	return sig, seen
}

// checkIdentity asserts one identity everywhere: this Chromium's version,
// the device's platform, webdriver false, no "Headless".
func checkIdentity(tb testing.TB, p *Pool, sig pageSignals, seen serpfixture.Seen, mobile bool) {
	tb.Helper()
	b := current(tb, p)
	major, _, _ := strings.Cut(b.version, ".")
	wantPlatform, wantMobile, navPlatform := "Linux", "?0", "Linux x86_64"
	if mobile {
		wantPlatform, wantMobile, navPlatform = "Android", "?1", phonePlatform
	}
	if sig.Webdriver == nil || *sig.Webdriver {
		tb.Errorf("navigator.webdriver = %v, want false", sig.Webdriver)
	}
	for where, ua := range map[string]string{"navigator.userAgent": sig.UserAgent, "User-Agent": seen.UserAgent} {
		if !strings.Contains(ua, " Chrome/"+major+".0.0.0 ") || strings.Contains(ua, "Headless") || strings.Contains(ua, "Android") != mobile {
			tb.Errorf("%s = %q, want Chrome/%s.0.0.0, mobile %v, no Headless", where, ua, major, mobile)
		}
	}
	if sig.UserAgent != seen.UserAgent {
		tb.Errorf("navigator.userAgent %q differs from the User-Agent header %q", sig.UserAgent, seen.UserAgent)
	}
	wantBrands := []brand{{"Chromium", major}}
	if got := withoutGrease(sig.Brands); !cmp.Equal(got, wantBrands) {
		tb.Errorf("navigator.userAgentData.brands = %v, want %v and a GREASE brand", sig.Brands, wantBrands)
	}
	if got := withoutGrease(sig.HighEntropy.FullVersionList); !cmp.Equal(got, []brand{{"Chromium", b.version}}) {
		tb.Errorf("fullVersionList = %v, want Chromium %s", sig.HighEntropy.FullVersionList, b.version)
	}
	if !strings.Contains(seen.ClientHints[0], `"Chromium";v="`+major+`"`) || seen.ClientHints[1] != wantMobile ||
		seen.ClientHints[2] != `"`+wantPlatform+`"` {
		tb.Errorf("Sec-CH-UA* = %q, want Chromium %s, %s, %q", seen.ClientHints, major, wantMobile, wantPlatform)
	}
	if sig.Mobile == nil || *sig.Mobile != mobile || sig.HintPlatform != wantPlatform || sig.Platform != navPlatform {
		tb.Errorf("userAgentData mobile %v platform %q, navigator.platform %q; want %v, %q, %q",
			sig.Mobile, sig.HintPlatform, sig.Platform, mobile, wantPlatform, navPlatform)
	}
	if mobile && (sig.HighEntropy.Model != phoneModel || sig.HighEntropy.Architecture != "") {
		tb.Errorf("phone model %q architecture %q, want %q and none", sig.HighEntropy.Model, sig.HighEntropy.Architecture, phoneModel)
	}
	if !mobile && (sig.HighEntropy.Architecture != "x86" || sig.HighEntropy.Bitness != "64") {
		tb.Errorf("architecture %q bitness %q, want x86 64", sig.HighEntropy.Architecture, sig.HighEntropy.Bitness)
	}
	if sig.Chrome != "object" {
		tb.Errorf("typeof window.chrome = %q, want object", sig.Chrome)
	}
	if sig.Notification != "denied" && sig.Notification != "default" || sig.NotificationP != map[string]string{"default": "prompt", "denied": "denied"}[sig.Notification] {
		tb.Errorf("Notification.permission %q, permissions API %q: they disagree", sig.Notification, sig.NotificationP)
	}
}

// withoutGrease drops the GREASE brand ("Not...Brand").
func withoutGrease(bs []brand) []brand {
	var out []brand
	for _, b := range bs {
		if !strings.HasPrefix(b.Brand, "Not") {
			out = append(out, b)
		}
	}
	return out
}

// checkPlace asserts the language, locale, time zone, uule and position.
func checkPlace(tb testing.TB, sig pageSignals, seen serpfixture.Seen, lang, zone string, loc geo.Location) {
	tb.Helper()
	if !cmp.Equal(sig.Languages, []string{lang}) || seen.AcceptLanguage != lang || sig.Locale != lang {
		tb.Errorf("navigator.languages %v, Accept-Language %q, locale %q; want %q", sig.Languages, seen.AcceptLanguage, sig.Locale, lang)
	}
	if sig.TimeZone != zone {
		tb.Errorf("time zone %q, want %q", sig.TimeZone, zone)
	}
	if seen.Location.Key() != loc.Key() {
		tb.Errorf("uule read as %q, want %q", seen.Location, loc)
	}
	switch {
	case loc.Point == nil && sig.GeolocationP == "granted":
		tb.Error("geolocation granted to a visit without coordinates")
	case loc.Point != nil && (sig.GeolocationP != "granted" || sig.Position == nil || *sig.Position != *loc.Point):
		tb.Errorf("geolocation %q at %+v, want granted at %+v", sig.GeolocationP, sig.Position, *loc.Point)
	}
}

// checkScreen asserts real window dimensions, the phone's screen, pixel
// ratio and touch, and the screenshots' size.
func checkScreen(tb testing.TB, sig pageSignals, res VisitResult, mobile bool) {
	tb.Helper()
	if sig.OuterWidth <= 0 || sig.OuterHeight <= 0 || sig.OuterWidth < sig.InnerWidth {
		tb.Errorf("outer window %dx%d (inner width %d), want real dimensions", sig.OuterWidth, sig.OuterHeight, sig.InnerWidth)
	}
	wantW, wantTouch, scale := windowWidth, 0, 1.0
	if mobile {
		wantW, wantTouch, scale = phoneWidth, phoneTouchPoints, phoneScale
		if sig.ScreenWidth != phoneWidth || sig.ScreenHeight != phoneHeight || !sig.TouchEvents {
			tb.Errorf("phone screen %dx%d, touch events %v; want %dx%d with touch", sig.ScreenWidth, sig.ScreenHeight, sig.TouchEvents, phoneWidth, phoneHeight)
		}
	}
	if sig.InnerWidth != wantW || sig.DPR != scale || sig.MaxTouchPoints != wantTouch {
		tb.Errorf("viewport width %d at %g, %d touch points; want %d at %g, %d", sig.InnerWidth, sig.DPR, sig.MaxTouchPoints, wantW, scale, wantTouch)
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(res.Screenshots[kisa.ShotInitial]))
	if err != nil {
		tb.Fatalf("initial screenshot: %v", err)
	}
	if want := int(float64(wantW)*scale + 0.5); cfg.Width != want {
		tb.Errorf("initial screenshot %d px wide, want %d", cfg.Width, want)
	}
}

// TestDesktopIdentityIsChromiums compares the client hints a desktop visit
// gives with those Chromium itself gives when nothing is overridden, so
// that the identity claims nothing the browser is not.
func TestDesktopIdentityIsChromiums(t *testing.T) {
	fixture := serpfixture.New(serpfixture.Options{OverviewDelay: -1, AllowAutomated: true})
	srv := httptest.NewServer(fixture)
	t.Cleanup(srv.Close)
	p := newTestPool(t, func(c *Config) { c.Tabs = 1 })
	b := current(t, p)
	ctx, cancel := chromedp.NewContext(b.ctx)
	defer cancel()
	ctx, cancel = context.WithTimeout(ctx, time.Minute)
	defer cancel()
	var own struct {
		Brands          []brand `json:"brands"`
		FullVersionList []brand `json:"fullVersionList"`
		Platform        string  `json:"platform"`
		Architecture    string  `json:"architecture"`
		Bitness         string  `json:"bitness"`
		Mobile          bool    `json:"mobile"`
		NavPlatform     string  `json:"navPlatform"`
	}
	err := chromedp.Run(ctx, chromedp.Navigate(srv.URL+"/"), chromedp.Evaluate(
		`navigator.userAgentData.getHighEntropyValues(["fullVersionList","architecture","bitness"]).then(v => Object.assign(v, {navPlatform: navigator.platform}))`,
		&own, func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }))
	if err != nil {
		t.Fatal(err)
	}
	id := b.desktopIdentity()
	toBrands := func(list []*emulation.UserAgentBrandVersion) []brand {
		var out []brand
		for _, x := range list {
			out = append(out, brand{x.Brand, x.Version})
		}
		return out
	}
	got := []any{toBrands(id.meta.Brands), toBrands(id.meta.FullVersionList), id.meta.Platform, id.meta.Architecture, id.meta.Bitness, id.meta.Mobile, id.platform}
	want := []any{own.Brands, own.FullVersionList, own.Platform, own.Architecture, own.Bitness, own.Mobile, own.NavPlatform}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("desktop identity differs from Chromium's own (-own +ours):\n%s", diff)
	}
}

// TestAutomatedBrowserGetsCaptcha: a bare Chromium (webdriver true, a
// headless user agent) gets the fixture's CAPTCHA page, so that a
// regression of the presence shows as a failing test; the pool's visit of
// the same page gets results.
func TestAutomatedBrowserGetsCaptcha(t *testing.T) {
	fixture := serpfixture.New(serpfixture.Options{OverviewDelay: -1})
	srv := httptest.NewServer(fixture)
	t.Cleanup(srv.Close)
	p := newTestPool(t, func(c *Config) { c.Tabs = 1 })
	page := srv.URL + "/search?q=why+is+the+sky+blue&hl=en&gl=us"
	ctx, cancel := chromedp.NewContext(current(t, p).ctx)
	defer cancel()
	ctx, cancel = context.WithTimeout(ctx, time.Minute)
	defer cancel()
	var at string
	if err := chromedp.Run(ctx, chromedp.Navigate(page), chromedp.Location(&at)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(at, "/sorry/") {
		t.Errorf("a bare Chromium ended at %s, want the CAPTCHA page", at)
	}
	if _, err := p.Visit(t.Context(), VisitRequest{URL: page}); err != nil {
		t.Errorf("Visit: %v, want results", err)
	}
}

// TestGeolocationOnlyForSearchOrigin: a located visit grants the
// geolocation permission to the search URL's origin and to no other, even
// one on the same host.
func TestGeolocationOnlyForSearchOrigin(t *testing.T) {
	page := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<!DOCTYPE html><title>x</title>"))
	})
	search, other := httptest.NewServer(page), httptest.NewServer(page)
	t.Cleanup(search.Close)
	t.Cleanup(other.Close)
	p := newTestPool(t, func(c *Config) { c.Tabs = 1 })
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	tb, err := openTab(ctx, current(t, p), p, p.policyFor(VisitRequest{URL: search.URL + "/search"}), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tb.close(nil)
	within, unbind := tb.bind(ctx)
	defer unbind()
	tb.ctx = within
	if err := tb.present(VisitRequest{URL: search.URL + "/search?q=x", Geolocation: &geo.Point{Latitude: 35.68, Longitude: 139.69}}); err != nil {
		t.Fatal(err)
	}
	state := func(u string) string {
		t.Helper()
		var s string
		err := chromedp.Run(within, chromedp.Navigate(u), chromedp.Evaluate(`navigator.permissions.query({name: "geolocation"}).then(p => p.state)`,
			&s, func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }))
		if err != nil {
			t.Fatalf("%s: %v", u, err)
		}
		return s
	}
	if got := state(search.URL + "/"); got != "granted" {
		t.Errorf("the search origin's geolocation permission is %q, want granted", got)
	}
	if got := state(other.URL + "/"); got == "granted" {
		t.Errorf("another origin's geolocation permission is %q, want not granted", got)
	}
}

// TestChromiumKnowsEveryZone: Chromium knows every time zone package geo
// can hand out (of every country, and the regions it tells apart) as Go's
// time zone database does: a page's offsets from UTC in January and July
// are the zone's.
func TestChromiumKnowsEveryZone(t *testing.T) {
	zones := map[string]bool{}
	for a := 'a'; a <= 'z'; a++ {
		for b := 'a'; b <= 'z'; b++ {
			zones[geo.TimeZone(string([]rune{a, b}), geo.Location{})] = true
		}
	}
	for _, country := range []string{"us", "ca", "au"} {
		for lat := -45.0; lat <= 72; lat += 1.5 {
			for lng := -180.0; lng <= 180; lng += 1.5 {
				zones[geo.TimeZone(country, geo.Location{Point: &geo.Point{Latitude: lat, Longitude: lng}})] = true
			}
		}
	}
	p := newTestPool(t, func(c *Config) { c.Tabs = 1 })
	ctx, cancel := chromedp.NewContext(current(t, p).ctx)
	defer cancel()
	if err := chromedp.Run(ctx); err != nil {
		t.Fatal(err)
	}
	jan, jul := time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC), time.Date(2026, 7, 15, 12, 0, 0, 0, time.UTC)
	for zone := range zones {
		loc, err := time.LoadLocation(zone)
		if err != nil {
			t.Errorf("Go does not know %q: %v", zone, err)
			continue
		}
		var got []int
		err = chromedp.Run(ctx, emulation.SetTimezoneOverride(zone), chromedp.Evaluate(
			`[new Date(Date.UTC(2026, 0, 15, 12)).getTimezoneOffset(), new Date(Date.UTC(2026, 6, 15, 12)).getTimezoneOffset()]`, &got))
		_, offJan := jan.In(loc).Zone()
		_, offJul := jul.In(loc).Zone()
		if want := []int{-offJan / 60, -offJul / 60}; err != nil || !cmp.Equal(got, want) {
			t.Errorf("Chromium in %q: offsets %v, %v; want %v", zone, got, err, want)
		}
	}
	if len(zones) < 100 {
		t.Errorf("only %d zones tried", len(zones))
	}
}

// framesScript reads, in a page, what it can see of its frames: whether it
// is visible and in the foreground, and the intervals between 40
// consecutive animation frames, in ms.
const framesScript = `new Promise(r => {
  const t = [];
  const f = ts => { t.push(ts); if (t.length < 41) { requestAnimationFrame(f); return; }
    r({visibility: document.visibilityState, hidden: document.hidden, focus: document.hasFocus(),
       gaps: t.slice(1).map((x, i) => x - t[i])}); };
  requestAnimationFrame(f);
})`

// TestFramesAsEnergySaver: a visit's page is visible, not hidden, and gets
// its animation frames as in a Chrome with Energy Saver on, 30 a second:
// no two frames closer than about 33 ms (60 a second would give gaps of
// about 17 ms; a busy machine can only make the gaps longer).
func TestFramesAsEnergySaver(t *testing.T) {
	page := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(`<!DOCTYPE html><title>x</title><style>div{width:300px;height:20px;background:linear-gradient(90deg,#eee,#ccc,#eee);` +
			`background-size:200% 100%;animation:s 1s infinite}@keyframes s{to{background-position:-100% 0}}</style><div></div>`))
	})
	srv := httptest.NewServer(page)
	t.Cleanup(srv.Close)
	p := newTestPool(t, func(c *Config) { c.Tabs = 1 })
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	tb, err := openTab(ctx, current(t, p), p, p.policyFor(VisitRequest{URL: srv.URL + "/search"}), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tb.close(nil)
	within, unbind := tb.bind(ctx)
	defer unbind()
	var got struct {
		Visibility string    `json:"visibility"`
		Hidden     bool      `json:"hidden"`
		Gaps       []float64 `json:"gaps"`
	}
	if err := chromedp.Run(within, chromedp.Navigate(srv.URL+"/"), chromedp.Evaluate(framesScript, &got, awaitPromise)); err != nil {
		t.Fatal(err)
	}
	if got.Visibility != "visible" || got.Hidden {
		t.Errorf("visibilityState %q, hidden %v; want visible, not hidden", got.Visibility, got.Hidden)
	}
	if len(got.Gaps) != 40 || slices.Min(got.Gaps) < 30 {
		t.Errorf("gaps between animation frames %v ms; want 40, none under 30 (Energy Saver's 30 frames a second)", got.Gaps)
	}
}
