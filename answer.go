package kisa

import (
	"fmt"
	"strconv"
	"strings"
)

// Conversation is the reading of a conversation's page in res: AI Mode's
// or an assistant's answer, nil on the other surfaces' results.
func (res Result) Conversation() *Answer {
	if res.AIMode != nil {
		return res.AIMode
	}
	return res.Answer
}

// Finish completes what every conversational answer shows alike, whoever
// read it: each citation's and source's position (1-based, in the order
// the page lists them), whether a source is cited (an inline citation
// points at its URL), and the Markdown of each turn when its reading made
// none (its paragraphs, each followed by the numbers of its citations).
func (a *Answer) Finish() {
	a.AnswerTurn.finish()
	for i := range a.Turns {
		a.Turns[i].finish()
	}
}

// Check returns an error wrapping Unrecognised for an answer that says it
// has one but holds no text: a page no reading knows is never an empty
// answer.
func (a *Answer) Check() error {
	if a.HasAnswer && strings.TrimSpace(a.Text) == "" {
		return fmt.Errorf("%w: an answer without text", Unrecognised)
	}
	return nil
}

// finish is Finish for one turn.
func (t *AnswerTurn) finish() {
	cited := map[string]bool{}
	for i := range t.Citations {
		if t.Citations[i].Position == 0 {
			t.Citations[i].Position = i + 1
		}
		cited[t.Citations[i].URL] = true
	}
	for _, p := range t.Paragraphs {
		for _, c := range p.Citations {
			cited[c.URL] = true
		}
	}
	for i := range t.Sources {
		s := &t.Sources[i]
		if s.Position == 0 {
			s.Position = i + 1
		}
		if s.Cited == nil {
			c := cited[s.URL]
			s.Cited = &c
		}
	}
	if t.Markdown == "" {
		t.Markdown = t.markdown()
	}
}

// markdown is the turn's text as Markdown: its paragraphs, each followed
// by the markers of its citations ([n] is Citations[n-1]), or its text
// when it has no paragraphs.
func (t *AnswerTurn) markdown() string {
	if len(t.Paragraphs) == 0 {
		return t.Text
	}
	number := map[string]int{}
	for i, c := range t.Citations {
		if _, ok := number[c.URL]; !ok {
			number[c.URL] = i + 1
		}
	}
	blocks := make([]string, 0, len(t.Paragraphs))
	for _, p := range t.Paragraphs {
		var b strings.Builder
		b.WriteString(strings.TrimSpace(p.Text))
		seen := map[int]bool{}
		for _, c := range p.Citations {
			if n, ok := number[c.URL]; ok && !seen[n] {
				seen[n] = true
				b.WriteString(" [" + strconv.Itoa(n) + "]")
			}
		}
		if s := strings.TrimSpace(b.String()); s != "" {
			blocks = append(blocks, s)
		}
	}
	return strings.Join(blocks, "\n\n")
}
