package serp

import (
	"regexp"
	"slices"
	"testing"
)

// TestPageJSSelectors checks that page.js reads exactly the selectors it
// is given, and writes none of its own into a DOM query.
func TestPageJSSelectors(t *testing.T) {
	given := PageSelectors()
	used := map[string]bool{}
	for _, m := range regexp.MustCompile(`\bsel\.([A-Za-z]+)`).FindAllStringSubmatch(pageJS, -1) {
		used[m[1]] = true
		if _, ok := given[m[1]]; !ok {
			t.Errorf("page.js uses sel.%s, which PageSelectors does not give", m[1])
		}
	}
	for name := range given {
		if !used[name] {
			t.Errorf("PageSelectors gives %s, which page.js never reads", name)
		}
	}
	literal := regexp.MustCompile("(querySelector(All)?|closest|matches)\\(\\s*[\"'`]")
	if m := literal.FindString(pageJS); m != "" {
		t.Errorf("page.js queries the DOM with a selector of its own: %q", m)
	}
}

// TestPageJSQuestions checks that every Ask* question is one page.js
// answers.
func TestPageJSQuestions(t *testing.T) {
	var cases []string
	for _, m := range regexp.MustCompile(`case "([A-Za-z]+)"`).FindAllStringSubmatch(pageJS, -1) {
		cases = append(cases, m[1])
	}
	for _, q := range []string{AskInspect, AskRejectConsent, AskOverviewChange, AskCollapsed, AskExpandedChange, AskShowMoreBox, AskOverviewArea, AskPageArea} {
		if !slices.Contains(cases, q) {
			t.Errorf("page.js does not answer %q", q)
		}
	}
}
