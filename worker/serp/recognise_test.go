package serp_test

import (
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/kisa-dev/kisa/serpfixture"
	"github.com/kisa-dev/kisa/worker/serp"
)

// TestIsCaptchaURL checks recognition of the "unusual traffic" address.
func TestIsCaptchaURL(t *testing.T) {
	tests := []struct {
		name string
		url  string
		want bool
	}{
		{name: "real address", url: "https://www.google.com/sorry/index?continue=x", want: true},
		{name: "fixture address", url: "http://127.0.0.1:8080/sorry/index?continue=x", want: true},
		{name: "results page", url: "https://www.google.com/search?q=why+are+frogs+green", want: false},
		{name: "query mentioning sorry", url: "https://www.google.com/search?q=/sorry/", want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := serp.IsCaptchaURL(tt.url); got != tt.want {
				t.Errorf("IsCaptchaURL = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestPageSelectors checks that the selectors the browser's in-page
// checks receive (CaptchaForm, ConsentRejectForm) match the pages they
// recognise and no other.
func TestPageSelectors(t *testing.T) {
	english := serve(t, serpfixture.New(serpfixture.Options{}), "/consent?continue=%2Fsearch%3Fq%3Dx&gl=US&hl=en")
	tests := []struct {
		name          string
		page          string
		captcha, cons bool
	}{
		{name: "captured CAPTCHA page", page: readPage(t, "sorry-captcha.html"), captcha: true},
		{name: "German consent page", page: readPage(t, "fixture-de-consent.html"), cons: true},
		{name: "English consent page", page: english, cons: true},
		{name: "accept form only", page: `<form action="https://consent.google.com/save"><input type="hidden" name="set_eom" value="false"></form>`},
		{name: "reject form", page: `<form action="https://consent.google.com/save" method="POST"><input type="hidden" name="set_eom" value="true"><button aria-label="Reject all">Reject all</button></form>`, cons: true},
		{name: "results page", page: readPage(t, "aio-why-are-frogs-green.html")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := matches(t, tt.page, serp.CaptchaForm); got != tt.captcha {
				t.Errorf("CaptchaForm matches = %v, want %v", got, tt.captcha)
			}
			if got := matches(t, tt.page, serp.ConsentRejectForm); got != tt.cons {
				t.Errorf("ConsentRejectForm matches = %v, want %v", got, tt.cons)
			}
		})
	}
}

// TestCaptchaHasNoOverview checks that the CAPTCHA page the fixture server
// sends a "captcha" query to yields no overview.
func TestCaptchaHasNoOverview(t *testing.T) {
	page, err := serpfixture.FinalPage("captcha please", "en")
	if err != nil {
		t.Fatal(err)
	}
	if !matches(t, page, serp.CaptchaForm) {
		t.Error("CaptchaForm does not match the fixture's CAPTCHA page")
	}
	if ov := extract(t, page); ov.HasOverview {
		t.Error("HasOverview = true, want false")
	}
}

// matches reports whether page holds an element matching sel.
func matches(tb testing.TB, page, sel string) bool {
	tb.Helper()
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(page))
	if err != nil {
		tb.Fatal(err)
	}
	return doc.Find(sel).Length() > 0
}
