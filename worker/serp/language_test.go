package serp_test

import (
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kisa-dev/kisa/serpfixture"
	"github.com/kisa-dev/kisa/worker/serp"
)

// languagePages are final pages of the fixture server in the languages
// it serves besides English and German: the structure of the 2026
// generation with each language's real interface strings. The pages are
// rendered by the fixture's templates; only their extraction is kept, in
// testdata/fixture-<hl>.golden.json.
var languagePages = []struct {
	hl, gl, query, starts string
}{
	{"pt", "br", "por que o céu é azul", "“por que o céu é azul” é respondido pelo servidor"},
	{"fr", "fr", "pourquoi le ciel est bleu", "« pourquoi le ciel est bleu » reçoit du serveur"},
	{"es", "es", "por qué el cielo es azul", "«por qué el cielo es azul» recibe del servidor"},
	{"it", "it", "perché il cielo è blu", "«perché il cielo è blu» riceve dal server"},
	{"nl", "nl", "waarom is de lucht blauw", "‘waarom is de lucht blauw’ krijgt van de testzoekserver"},
	{"pl", "pl", "dlaczego niebo jest niebieskie", "Na „dlaczego niebo jest niebieskie” testowy serwer"},
	{"ja", "jp", "空はなぜ青い", "「空はなぜ青い」には、kisa のテスト用検索サーバー"},
	{"zh", "cn", "天空为什么是蓝色的", "对于“天空为什么是蓝色的”，kisa 的测试搜索服务器"},
	{"ar", "eg", "لماذا السماء زرقاء", "يجيب خادم البحث التجريبي في kisa عن «لماذا السماء زرقاء»"},
	{"he", "il", "למה השמיים כחולים", "על „למה השמיים כחולים” עונה שרת החיפוש"},
}

// TestExtractLanguages checks that in every language the text starts
// with the answer, holds none of that language's interface strings, and
// matches its golden file (-update rewrites them). No phrase of these
// languages is in serp's lists: the structure alone keeps them out.
func TestExtractLanguages(t *testing.T) {
	srv := serpfixture.New(serpfixture.Options{})
	for _, lp := range languagePages {
		t.Run(lp.hl, func(t *testing.T) {
			page := serve(t, srv, "/search?q="+url.QueryEscape(lp.query)+"&hl="+lp.hl+"&gl="+lp.gl+"&final=1")
			ov := extract(t, page)
			if !ov.HasOverview || !strings.HasPrefix(ov.Text, lp.starts) {
				t.Errorf("HasOverview %v, Text begins %.80q; want %q", ov.HasOverview, ov.Text, lp.starts)
			}
			for _, s := range serpfixture.InterfaceStrings(lp.hl) {
				if strings.Contains(ov.Text, s) || strings.Contains(toJSON(t, ov.Paragraphs), s) {
					t.Errorf("text holds the interface string %q", s)
				}
			}
			if len(ov.Sources) != 5 || len(ov.Citations) == 0 {
				t.Errorf("got %d sources and %d citations, want 5 and some", len(ov.Sources), len(ov.Citations))
			}
			assertParagraphsMatchText(t, ov)
			got := toJSON(t, ov)
			golden := filepath.Join("testdata", "fixture-"+lp.hl+".golden.json")
			if *update {
				writeFile(t, golden, got)
			}
			if diff := cmp.Diff(readFile(t, golden), got); diff != "" {
				t.Errorf("Extract mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestLanguagesNotInPhraseLists checks that the languages above are read
// by structure: no interface string of theirs is in serp's phrase lists.
func TestLanguagesNotInPhraseLists(t *testing.T) {
	lists := strings.Join(append(append([]string{}, serp.InterfaceLines...), serp.InterfacePrefixes...), "\n")
	for _, lp := range languagePages {
		for _, s := range serpfixture.InterfaceStrings(lp.hl) {
			if strings.Contains(lists, s) {
				t.Errorf("%s: %q is in the phrase lists", lp.hl, s)
			}
		}
	}
}
