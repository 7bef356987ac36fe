package serp

// GenerationOf returns the name of the generation Extract reads page
// with, or "" when the page has no overview block of a known generation:
// each generation's golden tests check that their pages are read by it.
func GenerationOf(page string) string {
	doc, err := parse(page)
	if err != nil {
		return ""
	}
	r, _ := readAnswer(doc.Find(OverviewContainer).First())
	return r.g.name
}
