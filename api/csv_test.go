package api

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"

	"github.com/kisa-dev/kisa/monitor"
	"github.com/kisa-dev/kisa/storage"
	"github.com/kisa-dev/kisa/testenv"
)

func TestCSVCell(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"formula", `=HYPERLINK("http://evil.example","x")`, `'=HYPERLINK("http://evil.example","x")`},
		{"plus", "+1+cmd|' /C calc'!A0", "'+1+cmd|' /C calc'!A0"},
		{"minus", "-2+3", "'-2+3"},
		{"at", "@SUM(A1:A2)", "'@SUM(A1:A2)"},
		{"tab", "\t=1", "'\t=1"},
		{"carriage return", "\r=1", "'\r=1"},
		{"text", "Frogs are green", "Frogs are green"},
		{"inner equals", "a=b", "a=b"},
		{"empty", "", ""},
		{"apostrophe", "'quoted", "'quoted"},
	} {
		if got := csvCell(tc.in); got != tc.want {
			t.Errorf("%s: csvCell(%q) = %q, want %q", tc.name, tc.in, got, tc.want)
		}
	}
}

// TestHistoryCSVHostileCells reads the history CSV of a target whose
// query, source title and overview text begin with formulas, as a user
// would open it: every such cell reads as text, and the JSON history
// keeps them exact.
func TestHistoryCSVHostileCells(t *testing.T) {
	rdb := testenv.Redis(t)
	srv := newTestServer(t, 0, withOverviews(t, rdb, time.Second))
	acc, key := newCaller(t, srv.db)
	ctx := context.Background()
	query := `=HYPERLINK("http://evil.example","x")`
	body, _ := json.Marshal(map[string]any{"name": "hostile", "paused": true,
		"schedule": map[string]string{"type": "daily", "time": "06:00"},
		"targets":  []map[string]string{{"query": query, "countryCode": "us", "languageCode": "en"}}})
	d, err := monitor.Decode(body)
	if err != nil {
		t.Fatal(err)
	}
	v, err := srv.opts.Monitors.Create(ctx, acc, d, monitor.Vetting{})
	if err != nil {
		t.Fatal(err)
	}
	run, _ := uuid.NewV7()
	_, readings, _, err := srv.db.StartRun(ctx, storage.NewRun{ID: run, MonitorID: uuid.MustParse(v.ID), AccountID: acc,
		Slot: time.Now().UTC(), Trigger: monitor.TriggerManual, Targets: []uuid.UUID{uuid.MustParse(v.Targets[0].ID)}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := srv.db.FinishReading(ctx, readings[0], storage.ReadingResult{HasOverview: true, Complete: true,
		Text: "@SUM(1+1)*cmd", Sources: []byte(`[{"url":"https://evil.example/","title":"=1+1","source":"-evil","icon":""}]`),
		Citations: []byte(`[]`), TakenAt: time.Now().UTC()}, nil); err != nil {
		t.Fatal(err)
	}
	hist := monitorsPath + "/" + v.ID + "/targets/" + v.Targets[0].ID + "/history?from=2000-01-01&to=2100-01-01"
	res := get(t, srv, hist+"&format=csv", key)
	if res.Status != 200 {
		t.Fatalf("csv: %d %s", res.Status, res.Body)
	}
	rows, err := csv.NewReader(strings.NewReader(res.Body)).ReadAll()
	if err != nil || len(rows) != 2 {
		t.Fatalf("csv rows: %v %q", err, res.Body)
	}
	cell := map[string]string{}
	for i, c := range rows[0] {
		cell[c] = rows[1][i]
	}
	got := map[string]string{"query": cell["query"], "sourceTitle": cell["sourceTitle"], "sourceName": cell["sourceName"], "text": cell["text"]}
	want := map[string]string{"query": "'" + query, "sourceTitle": "'=1+1", "sourceName": "'-evil", "text": "'@SUM(1+1)*cmd"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("hostile cells (-want +got):\n%s", diff)
	}
	js := get(t, srv, hist, key)
	for _, exact := range []string{`"query":"=HYPERLINK(\"http://evil.example\",\"x\")"`, `"title":"=1+1"`, `"text":"@SUM(1+1)*cmd"`} {
		if !strings.Contains(js.Body, exact) {
			t.Errorf("JSON history lacks %s: %s", exact, js.Body)
		}
	}
}
