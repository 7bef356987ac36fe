package serpfixture_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/kisa-dev/kisa/geo"
	"github.com/kisa-dev/kisa/serpfixture"
)

const (
	desktopUA = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36"
	phoneUA   = "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Mobile Safari/537.36"
	hints156  = `"Not:A-Brand";v="8", "Chromium";v="156"`
)

// TestAutomatedHeaders: the search request of a browser that claims to be
// Chrome gets the CAPTCHA unless its client hints agree with its user
// agent; clients that do not claim to be a browser, and browsers on an
// origin without client hints, are judged by the user agent alone.
func TestAutomatedHeaders(t *testing.T) {
	tests := []struct {
		name        string
		host        string // empty: 127.0.0.1
		ua          string
		hints       []string // Sec-CH-UA, -Mobile, -Platform
		wantCaptcha bool
	}{
		{name: "desktop", ua: desktopUA, hints: []string{hints156, "?0", `"Linux"`}},
		{name: "phone", ua: phoneUA, hints: []string{hints156, "?1", `"Android"`}},
		{name: "plain client", ua: "Go-http-client/1.1"},
		{name: "headless user agent", ua: strings.Replace(desktopUA, "Chrome/", "HeadlessChrome/", 1), hints: []string{hints156, "?0", `"Linux"`}, wantCaptcha: true},
		{name: "no client hints", ua: desktopUA, wantCaptcha: true},
		{name: "hints of another version", ua: desktopUA, hints: []string{`"Chromium";v="120"`, "?0", `"Linux"`}, wantCaptcha: true},
		{name: "desktop that says mobile", ua: desktopUA, hints: []string{hints156, "?1", `"Linux"`}, wantCaptcha: true},
		{name: "phone without mobile hint", ua: phoneUA, hints: []string{hints156, "?0", `"Android"`}, wantCaptcha: true},
		{name: "Linux agent, Windows hint", ua: desktopUA, hints: []string{hints156, "?0", `"Windows"`}, wantCaptcha: true},
		{name: "no hints on a plain http host", host: "www.example.test", ua: desktopUA},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := serpfixture.New(serpfixture.Options{})
			req := httptest.NewRequest(http.MethodGet, "/search?q=why+is+the+sky+blue&hl=en", nil)
			if tt.host != "" {
				req.Host = tt.host
			} else {
				req.Host = "127.0.0.1:8080"
			}
			req.Header.Set("User-Agent", tt.ua)
			for i, name := range []string{"Sec-CH-UA", "Sec-CH-UA-Mobile", "Sec-CH-UA-Platform"} {
				if i < len(tt.hints) {
					req.Header.Set(name, tt.hints[i])
				}
			}
			rec := httptest.NewRecorder()
			srv.ServeHTTP(rec, req)
			captcha := rec.Code == http.StatusFound && strings.HasPrefix(rec.Header().Get("Location"), "/sorry/")
			if captcha != tt.wantCaptcha || !captcha && rec.Code != http.StatusOK {
				t.Errorf("status %d to %q; want CAPTCHA %v", rec.Code, rec.Header().Get("Location"), tt.wantCaptcha)
			}
			if got := srv.Visits("why is the sky blue"); got != 1 {
				t.Errorf("%d visits counted, want 1", got)
			}
		})
	}
}

// TestSeenAndMobile: the fixture reads the uule and serves the phone's
// layout to a phone; the presence page carries the headers; pages have
// the presence check unless automated browsers are allowed.
func TestSeenAndMobile(t *testing.T) {
	srv := serpfixture.New(serpfixture.Options{})
	loc := geo.Location{Name: "Munich,Bavaria,Germany"}
	target := "/search?" + url.Values{"q": {serpfixture.PresenceQuery}, "hl": {"de"}}.Encode() + "&" + loc.Param(time.Unix(1764000000, 0))
	req := httptest.NewRequest(http.MethodGet, target, nil)
	req.Host = "127.0.0.1"
	req.Header.Set("User-Agent", phoneUA)
	req.Header.Set("Sec-CH-UA", hints156)
	req.Header.Set("Sec-CH-UA-Mobile", "?1")
	req.Header.Set("Sec-CH-UA-Platform", `"Android"`)
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, req)
	body := rec.Body.String()
	seen, ok := srv.Seen(serpfixture.PresenceQuery)
	if !ok || !seen.Mobile || seen.Location.Name != loc.Name || seen.ClientHints[1] != "?1" {
		t.Errorf("Seen = %+v, %v; want the phone in Munich", seen, ok)
	}
	for _, want := range []string{`data-device="mobile"`, `id="kisa-headers"`, `"Munich,Bavaria,Germany"`, `id="kisa-presence"`, "n.webdriver !== false"} {
		if !strings.Contains(body, want) {
			t.Errorf("presence page for a phone lacks %q", want)
		}
	}
	plain := get(t, serpfixture.New(serpfixture.Options{AllowAutomated: true}), "/search?q=why+is+the+sky+blue", http.StatusOK)
	if strings.Contains(plain, "n.webdriver") || strings.Contains(plain, `data-device="mobile"`) {
		t.Error("a desktop page with AllowAutomated has the presence check or the phone's layout")
	}
}
