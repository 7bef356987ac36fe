package serp_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/worker/serp"
)

// TestExtractAIModeChipLinks reads the chips of September 2026 that carry
// their first site in a link beside the button, labelled "Site (+N) –
// Title. Related results", with no comment naming their links: direct
// and through the engine's opaque redirect (kept, resolved false). The
// chip's link is a citation, not a related link.
func TestExtractAIModeChipLinks(t *testing.T) {
	page := `<html><body><div data-scope-id="turn"><span role="heading" aria-level="2">how far is mars</span>` +
		`<div data-subtree="aimc"><div data-container-id="main-col"><div class="Y3BBE">Mars is 225 million km away on average.` +
		`<span><a href="/goto?url=CAESmars1" aria-label="NASA (+2) – Mars Facts. Related results"></a><button data-icl-uuid="u1">NASA +2</button></span></div>` +
		`<div class="Y3BBE">It takes light about 12.5 minutes.<span><a href="https://www.space.com/mars-distance" aria-label="Space.com – How far away is Mars? Related results"></a>` +
		`<button data-icl-uuid="u2">Space.com</button></span></div></div></div></div></body></html>`
	res, err := serp.ExtractAIMode(page)
	if err != nil {
		t.Fatal(err)
	}
	no := false
	want := []kisa.Citation{
		{URL: "https://www.google.com/goto?url=CAESmars1", Title: "Mars Facts", Source: "NASA", LinkState: kisa.LinkState{Resolved: &no}},
		{URL: "https://www.space.com/mars-distance", Title: "How far away is Mars?", Source: "Space.com"},
	}
	if diff := cmp.Diff(want, res.Citations); diff != "" {
		t.Errorf("citations (-want +got):\n%s", diff)
	}
	if len(res.Paragraphs) != 2 || len(res.Paragraphs[0].Citations) != 1 || len(res.RelatedLinks) != 0 {
		t.Errorf("paragraphs %+v, related links %+v; want one citation each and no related link", res.Paragraphs, res.RelatedLinks)
	}
	if res.Text != "Mars is 225 million km away on average.\nIt takes light about 12.5 minutes." {
		t.Errorf("text %q", res.Text)
	}
}
