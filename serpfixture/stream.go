package serpfixture

import (
	"fmt"
	"net/url"
	"time"
)

// Stream is how an answer (the overview, an AI Mode turn) streams in,
// measured from the start of the page's script: a first phase without
// answer, the answer's chunks, then the end the page marks (the overview's
// data-loaded and "Show more" control; the turn's aria-busy cleared, its
// status line gone and its feedback buttons shown).
type Stream struct {
	// Delay is when the answer ends. Zero or less streams it at once
	// (still by script).
	Delay time.Duration
	// Generating, when set, is the length of the first phase, in which the
	// block shows the engine's "Generating" status (role="status") in its
	// heading and no answer; the answer's chunks follow. Zero keeps the
	// quiet loading phase of 40% of Delay (a skeleton, no status).
	Generating time.Duration
	// Pause, when set, makes the chunks come in bursts Pause apart, with
	// silences of Pause between them (and up to Pause before the end);
	// zero spreads them evenly until Delay.
	Pause time.Duration
}

// Stream parameters a request may give (/search, /aimode/turn) to
// override the server's Options for that page: Go durations such as "8s".
const (
	ParamDelay      = "delay"
	ParamGenerating = "generating"
	ParamPause      = "pause"
)

// generatingStatus is the status line of an answer being generated.
const generatingStatus = "Generating"

// streamFor returns the server's stream changed by the request's stream
// parameters, and an error naming a parameter that is not a duration of 0
// or more.
func (s *Server) streamFor(q url.Values) (Stream, error) {
	st := s.stream
	for _, p := range []struct {
		name string
		to   *time.Duration
	}{{ParamDelay, &st.Delay}, {ParamGenerating, &st.Generating}, {ParamPause, &st.Pause}} {
		v := q.Get(p.name)
		if v == "" {
			continue
		}
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			return Stream{}, fmt.Errorf("%s=%q: want a duration of 0 or more, such as 8s", p.name, v)
		}
		*p.to = d
	}
	return st, nil
}

// params returns the stream parameters of q, for pages that pass them on
// (AI Mode's prompt box, its follow-up turns).
func streamParams(q url.Values) url.Values {
	out := url.Values{}
	for _, k := range []string{ParamDelay, ParamGenerating, ParamPause} {
		if v := q.Get(k); v != "" {
			out.Set(k, v)
		}
	}
	return out
}

// schedule is when a stream of n chunks does what, in milliseconds after
// the page's script starts: At[i] inserts chunk i, End marks the answer
// whole; Status is the status line shown until the first chunk ("" for
// the quiet loading phase).
type schedule struct {
	At     []int64 `json:"at"`
	End    int64   `json:"end"`
	Status string  `json:"status"`
}

// scheduleOf returns the schedule of n chunks streaming as s says.
func (s Stream) scheduleOf(n int) schedule {
	end := max(s.Delay, 0)
	start := end * 2 / 5
	sc := schedule{At: make([]int64, n), End: end.Milliseconds()}
	if s.Generating > 0 {
		start, sc.Status = min(s.Generating, end), generatingStatus
	}
	for i := range n {
		at := end - start
		if n > 1 {
			at = (end - start) * time.Duration(i) / time.Duration(n-1)
		}
		if s.Pause > 0 {
			at = at / s.Pause * s.Pause
		}
		sc.At[i] = (start + at).Milliseconds()
	}
	return sc
}
