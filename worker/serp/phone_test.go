package serp_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kisa-dev/kisa/worker/serp"
)

// phoneOverviewPage is a phone's results page of February 2026 modelled on
// the real one (kjellberg/serp_parser, spec/files/google/2026-02-18-mobile-
// smhi-nykyrka-motala.html, 537 KB, not stored here, read in parts): the
// overview and two organic results rebuilt from its markup, the elements,
// classes and hooks as saved, scripts, styles, images and the rest of the
// page left out; the chip's record and the source list are the ones the
// page's script inserts, and the second list item's text (filled by the
// script) is the publisher's expected answer. The overview stands between
// the organic results; its aimc answer sits in the 2025 generation's
// column, its sources are a list inside the block (li.ZZh6Vb a.KEVENd).
const phoneOverviewPage = "phone-aio-smhi-2026.html"

// TestExtractPhoneOverview2026 reads the phone page's overview (first
// words, list items, the five sources of its list, the chip's record) and
// its organic results around it.
func TestExtractPhoneOverview2026(t *testing.T) {
	page := readPage(t, phoneOverviewPage)
	ov := extract(t, page)
	if !ov.HasOverview || !strings.HasPrefix(ov.Text, "För att få den mest exakta och aktuella väderprognosen för Nykyrka, Motala, rekommenderas att du besöker SMHIs webbplats.") ||
		!strings.Contains(ov.Text, "Sök på SMHI: Gå till smhi.se") || strings.Contains(ov.Text, "AI-översikt") {
		t.Errorf("overview text = %q (has %v)", ov.Text, ov.HasOverview)
	}
	var urls []string
	for _, s := range ov.Sources {
		urls = append(urls, s.URL)
	}
	want := []string{
		"https://www.smhi.se/kunskapsbanken/meteorologi/vaderprognoser/varfor-kan-vaderprognoser-skilja-sig-at",
		"https://www.smhi.se/klimat/klimatet-da-och-nu/arets-och-arstidernas-vader",
		"https://pctidningen.se/program/app/de-3-basta-vadertjansterna",
		"https://www.smhi.se/kunskapsbanken/meteorologi/vaderprognoser/tolka-smhis-vaderprognoser",
		"https://illvet.se/naturen/vadret/hur-langt-framat-i-tiden-kan-man-forutsaga-vadret",
	}
	if diff := cmp.Diff(want, urls); diff != "" {
		t.Errorf("sources mismatch (-want +got):\n%s", diff)
	}
	if len(ov.Sources) > 0 && (ov.Sources[0].Title != "Varför kan väderprognoser skilja sig åt? - SMHI" || ov.Sources[0].Source != "smhi.se") {
		t.Errorf("first source = %+v, want the title of the page's record", ov.Sources[0])
	}
	web, err := serp.ExtractWeb(page)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range web.Organic {
		got = append(got, r.URL)
	}
	if diff := cmp.Diff([]string{"https://www.smhi.se/vader/prognoser-och-varningar/vaderprognos/q/Motala/2690960", "https://www.klart.se/se/v%C3%A4der-nykyrke/"}, got); diff != "" {
		t.Errorf("organic mismatch (-want +got):\n%s", diff)
	}
}
