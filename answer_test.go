package kisa

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestAnswerFinish(t *testing.T) {
	yes, no := true, false
	a := Answer{HasAnswer: true, AnswerTurn: AnswerTurn{
		Text: "Frogs are green. They hide.",
		Paragraphs: []Paragraph{
			{Text: "Frogs are green.", Citations: []Citation{{URL: "https://b.example/"}, {URL: "https://a.example/"}}},
			{Text: "They hide.", Citations: []Citation{{URL: "https://b.example/"}}},
		},
		Citations: []Citation{{URL: "https://a.example/"}, {URL: "https://b.example/"}},
		Sources:   []Source{{URL: "https://c.example/"}, {URL: "https://b.example/"}},
	}, Turns: []AnswerTurn{{Text: "Yes.", Markdown: "**Yes.**", Sources: []Source{{URL: "https://d.example/", Position: 7}}}}}
	a.Finish()
	want := Answer{HasAnswer: true, AnswerTurn: AnswerTurn{
		Text:     "Frogs are green. They hide.",
		Markdown: "Frogs are green. [2] [1]\n\nThey hide. [2]",
		Paragraphs: []Paragraph{
			{Text: "Frogs are green.", Citations: []Citation{{URL: "https://b.example/"}, {URL: "https://a.example/"}}},
			{Text: "They hide.", Citations: []Citation{{URL: "https://b.example/"}}},
		},
		Citations: []Citation{{URL: "https://a.example/", Position: 1}, {URL: "https://b.example/", Position: 2}},
		Sources:   []Source{{URL: "https://c.example/", Position: 1, Cited: &no}, {URL: "https://b.example/", Position: 2, Cited: &yes}},
	}, Turns: []AnswerTurn{{Text: "Yes.", Markdown: "**Yes.**", Sources: []Source{{URL: "https://d.example/", Position: 7, Cited: &no}}}}}
	if diff := cmp.Diff(want, a); diff != "" {
		t.Errorf("Finish (-want +got):\n%s", diff)
	}
}

func TestAnswerCheck(t *testing.T) {
	a := Answer{HasAnswer: true, AnswerTurn: AnswerTurn{Text: " "}}
	if err := a.Check(); !errors.Is(err, Unrecognised) {
		t.Errorf("Check of an empty answer = %v, want Unrecognised", err)
	}
	none := Answer{Reason: ReasonNotAvailable}
	if err := none.Check(); err != nil {
		t.Errorf("Check of no answer = %v", err)
	}
}
