package serpfixture_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/google/go-cmp/cmp"

	"github.com/kisa-dev/kisa/serpfixture"
)

// schedule is the stream's schedule in a page's (or a turn's) stream data.
type schedule struct {
	At     []int64 `json:"at"`
	End    int64   `json:"end"`
	Status string  `json:"status"`
}

// TestStreamShapes checks the schedules that the options and a request's
// stream parameters give: the quiet loading phase of 40% by default; a
// "Generating" phase, bursts with silences and the end as asked; a request
// overriding the server; a bad parameter refused.
func TestStreamShapes(t *testing.T) {
	tests := []struct {
		name   string
		opts   serpfixture.Options
		params url.Values
		want   func(t *testing.T, s schedule)
	}{{
		name: "default: loading for 40%, then evenly",
		opts: serpfixture.Options{OverviewDelay: 5 * time.Second},
		want: func(t *testing.T, s schedule) {
			if s.Status != "" || s.At[0] != 2000 || s.At[len(s.At)-1] != 5000 || s.End != 5000 {
				t.Errorf("schedule %+v, want no status, chunks from 2000 to 5000 ms, the end at 5000", s)
			}
		},
	}, {
		name:   "a request's slow shape over the server's",
		opts:   serpfixture.Options{OverviewDelay: time.Second},
		params: url.Values{"delay": {"12s"}, "generating": {"4s"}, "pause": {"3s"}},
		want: func(t *testing.T, s schedule) {
			if s.Status != "Generating" || s.At[0] != 4000 || s.End != 12000 {
				t.Errorf("schedule %+v, want the Generating status until the first chunk at 4000 ms, the end at 12000", s)
			}
			times := slices.Compact(slices.Clone(s.At))
			for i := 1; i < len(times); i++ {
				if gap := times[i] - times[i-1]; gap < 3000 {
					t.Errorf("chunks at %v: a silence of %d ms, want bursts 3000 ms apart or more", s.At, gap)
				}
			}
			if len(times) < 3 || s.At[len(s.At)-1] > s.End {
				t.Errorf("chunks at %v, want at least three bursts before the end at %d", s.At, s.End)
			}
		},
	}, {
		name: "the server's options",
		opts: serpfixture.Options{OverviewDelay: 8 * time.Second, Generating: 2 * time.Second, Pause: 2 * time.Second},
		want: func(t *testing.T, s schedule) {
			if s.Status != "Generating" || s.At[0] != 2000 || s.End != 8000 {
				t.Errorf("schedule %+v, want Generating until 2000 ms, the end at 8000", s)
			}
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := serpfixture.New(tt.opts)
			v := url.Values{"q": {"why is the sky blue"}, "hl": {"en"}}
			for k, vs := range tt.params {
				v[k] = vs
			}
			page := streamOf(t, get(t, srv, "/search?"+v.Encode(), http.StatusOK))
			tt.want(t, page.Schedule)
			// AI Mode's follow-up turns stream on the same schedule.
			v.Set("n", "2")
			var turn struct {
				Schedule schedule `json:"schedule"`
				Actions  string   `json:"actions"`
			}
			if err := json.Unmarshal([]byte(get(t, srv, "/aimode/turn?"+v.Encode(), http.StatusOK)), &turn); err != nil {
				t.Fatal(err)
			}
			if turn.Schedule.End != page.Schedule.End || turn.Schedule.Status != page.Schedule.Status || !strings.Contains(turn.Actions, `aria-pressed`) {
				t.Errorf("turn schedule %+v with actions %q, want the page's end and status and the feedback buttons", turn.Schedule, turn.Actions)
			}
		})
	}
	srv := serpfixture.New(serpfixture.Options{})
	for _, target := range []string{"/search?q=x&delay=soon", "/search?q=x&pause=-1s", "/search?udm=50&q=x&generating=x", "/aimode/turn?q=x&delay=1"} {
		get(t, srv, target, http.StatusBadRequest)
	}
}

// TestAIModeParamsPassedOn checks that AI Mode's page hands the request's
// stream parameters to its prompt box, so that the question asked there
// and the follow-ups stream the same way.
func TestAIModeParamsPassedOn(t *testing.T) {
	srv := serpfixture.New(serpfixture.Options{})
	doc := parseHTML(t, get(t, srv, "/search?udm=50&hl=en&gl=us&delay=9s&pause=2s", http.StatusOK))
	got := map[string]string{}
	doc.Find(`form.aim-ask input[type="hidden"]`).Each(func(_ int, s *goquery.Selection) { got[s.AttrOr("name", "")] = s.AttrOr("value", "") })
	want := map[string]string{"udm": "50", "hl": "en", "gl": "us", "delay": "9s", "pause": "2s"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("prompt box's hidden fields (-want +got):\n%s", diff)
	}
}
