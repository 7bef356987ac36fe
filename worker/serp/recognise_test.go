package serp_test

import (
	"testing"

	"github.com/kisa-dev/kisa/serpfixture"
	"github.com/kisa-dev/kisa/worker/serp"
)

// TestIsCaptcha checks recognition of the "unusual traffic" page.
func TestIsCaptcha(t *testing.T) {
	tests := []struct {
		name string
		url  string
		page string
		want bool
	}{
		{name: "captured page, real address", url: "https://www.google.com/sorry/index?continue=x", page: readPage(t, "sorry-captcha.html"), want: true},
		{name: "captured page, unknown address", url: "", page: readPage(t, "sorry-captcha.html"), want: true},
		{name: "sorry path alone", url: "http://127.0.0.1:8080/sorry/index?continue=x", page: "", want: true},
		{name: "results page", url: "https://www.google.com/search?q=why+are+frogs+green", page: readPage(t, "aio-why-are-frogs-green.html"), want: false},
		{name: "consent page", url: "https://consent.google.com/ml", page: readPage(t, "fixture-de-consent.html"), want: false},
		{name: "query mentioning sorry", url: "https://www.google.com/search?q=/sorry/", page: "", want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := serp.IsCaptcha(tt.url, tt.page); got != tt.want {
				t.Errorf("IsCaptcha = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestCaptchaHasNoOverview checks that the CAPTCHA page the fixture server
// sends a "captcha" query to is recognised and yields no overview.
func TestCaptchaHasNoOverview(t *testing.T) {
	page, err := serpfixture.FinalPage("captcha please", "en")
	if err != nil {
		t.Fatal(err)
	}
	if !serp.IsCaptcha("http://127.0.0.1/sorry/index", page) {
		t.Error("IsCaptcha = false, want true")
	}
	if ov := extract(t, page); ov.HasOverview {
		t.Error("HasOverview = true, want false")
	}
}

// TestIsConsent checks recognition of the consent interstitial.
func TestIsConsent(t *testing.T) {
	english := serve(t, serpfixture.New(serpfixture.Options{}), "/consent?continue=%2Fsearch%3Fq%3Dx&gl=US&hl=en")
	tests := []struct {
		name string
		page string
		want bool
	}{
		{name: "German consent page", page: readPage(t, "fixture-de-consent.html"), want: true},
		{name: "English consent page", page: english, want: true},
		{name: "accept form only", page: `<form action="https://consent.google.com/save"><input type="hidden" name="set_eom" value="false"></form>`, want: false},
		{name: "reject form", page: `<form action="https://consent.google.com/save" method="POST"><input type="hidden" name="set_eom" value="true"><button aria-label="Reject all">Reject all</button></form>`, want: true},
		{name: "results page", page: readPage(t, "aio-why-are-frogs-green.html"), want: false},
		{name: "captcha page", page: readPage(t, "sorry-captcha.html"), want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := serp.IsConsent(tt.page); got != tt.want {
				t.Errorf("IsConsent = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestOverviewState checks the presence, collapse and pending readings.
func TestOverviewState(t *testing.T) {
	collapsed := `<div jscontroller="EYwa3d"><div id="m-x-content"><div data-xid="VpUvz"><div class="Y3BBE">Answer.</div></div></div>` +
		`<div role="button" aria-controls="m-x-content" aria-expanded="false">Show more</div></div>`
	tests := []struct {
		name                        string
		page                        string
		present, collapsed, pending bool
	}{
		{name: "real page, expanded", page: readPage(t, "aio-why-are-frogs-green.html"), present: true},
		{name: "fixture final page", page: readPage(t, "fixture-en-why-is-the-sky-blue.html"), present: true},
		{name: "collapsed", page: collapsed, present: true, collapsed: true},
		{name: "loading", page: loadingPage, pending: true},
		{name: "heading only", page: `<h1>Übersicht mit KI</h1>`, pending: true},
		{name: "no overview", page: readPage(t, "fixture-en-no-overview.html")},
		{name: "captcha", page: readPage(t, "sorry-captcha.html")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			present, collapsed := serp.OverviewState(tt.page)
			if present != tt.present || collapsed != tt.collapsed {
				t.Errorf("OverviewState = (%v, %v), want (%v, %v)", present, collapsed, tt.present, tt.collapsed)
			}
			if got := serp.OverviewPending(tt.page); got != tt.pending {
				t.Errorf("OverviewPending = %v, want %v", got, tt.pending)
			}
		})
	}
}
