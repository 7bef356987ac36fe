package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kisa-dev/kisa/monitor"
	"github.com/kisa-dev/kisa/serpfixture"
	"github.com/kisa-dev/kisa/testenv"
)

// TestMonitorsEndToEnd runs a monitor through real web and two worker
// processes, Chromium and the fixture search engine, whose answers change
// between runs: the scheduled run happens once although both workers
// schedule it, and the runs produce every change event, one webhook per
// run with changes, the history and the visibility.
func TestMonitorsEndToEnd(t *testing.T) {
	// A database of its own: the workers schedule every active monitor
	// they find, and other tests' monitors are none of this test's.
	db, dbURL := testenv.OwnPostgres(t)
	s := startStack(t, stackOptions{waitTimeout: "60s", noWorker: true,
		env:     []string{"KISA_WEBHOOK_ALLOW_PRIVATE=true", "KISA_LIMIT_OTHER=0", "DATABASE_URL=" + dbURL},
		fixture: serpfixture.Options{OverviewDelay: 200 * time.Millisecond}})
	_, logs1 := s.startProcess(t, "worker")
	_, logs2 := s.startProcess(t, "worker")
	// Both schedulers run once their process says it started.
	testenv.Eventually(t, 2*time.Minute, "both workers to start", func() bool {
		return strings.Contains(logs1.String(), `"msg":"worker started"`) && strings.Contains(logs2.String(), `"msg":"worker started"`)
	})
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("worker logs:\n%s\n%s", logs1, logs2)
		}
	})
	_, key := newAccountKey(t, db)
	rcv := newReceiver(t, 0)
	links := func(urls ...string) []serpfixture.VariantLink {
		out := make([]serpfixture.VariantLink, len(urls))
		for i, u := range urls {
			out[i] = serpfixture.VariantLink{Title: "Page " + fmt.Sprint(i), URL: u, Site: "Site"}
		}
		return out
	}
	trail := "trail running shoes " + testenv.RandomHex(3)
	road := "road running shoes " + testenv.RandomHex(3)
	s.fixture.SetVariant(trail, serpfixture.Variant{Kind: serpfixture.VariantOverview,
		Paragraphs: []string{"Trail shoes need grippy soles and a protective toe cap for rocky ground."},
		Links:      links("https://shop.example.com/trail", "https://guide.example.org/", "https://forum.example.net/t")})
	s.fixture.SetVariant(road, serpfixture.Variant{Kind: serpfixture.VariantNone})
	// A third target is read as a phone in Austin.
	city := "running shoes near me " + testenv.RandomHex(3)
	s.fixture.SetVariant(city, serpfixture.Variant{Kind: serpfixture.VariantNone})

	// A daily schedule at the next minute at least 45 s away: both
	// workers' schedulers sync (every 30 s) before it fires.
	at := time.Now().UTC().Add(105 * time.Second).Truncate(time.Minute)
	body := fmt.Sprintf(`{"name":"Shoes","schedule":{"type":"daily","time":"%s"},"watch":{"domains":["example.com"]},
		"webhook":{"url":%q},"targets":[{"query":%q,"countryCode":"us","languageCode":"en"},{"query":%q,"countryCode":"us","languageCode":"en"},
		{"query":%q,"countryCode":"us","languageCode":"en","device":"mobile","location":"Austin,Texas,United States"},
		{"surface":"web-search","query":%q,"countryCode":"us","languageCode":"en"},{"surface":"ai-mode","query":%q,"countryCode":"us","languageCode":"en"}]}`,
		at.Format("15:04"), rcv.url+"/monitor", trail, road, city, trail, trail)
	status, _, raw := call(t, http.MethodPost, s.base+"/v1/monitors", key, body)
	if status != http.StatusCreated {
		t.Fatalf("create: %d %s", status, raw)
	}
	mon := dataOf[monitor.View](t, raw)
	base := s.base + "/v1/monitors/" + mon.ID

	first := waitRun(t, s, key, base, func(r monitor.RunView) bool { return r.Trigger == monitor.TriggerSchedule }, time.Until(at)+3*time.Minute)
	if !first.Slot.Equal(at) || first.Counts != (monitor.RunCounts{Targets: 5, Readings: 5, Read: 5}) {
		t.Errorf("scheduled run = %+v, want slot %s and 5 targets read", first, at)
	}
	if seen, _ := s.fixture.Seen(city); !seen.Mobile || seen.Location.Name != "Austin,Texas,United States" || seen.ClientHints[1] != "?1" {
		t.Errorf("the phone in Austin's target was read as %+v", seen)
	}
	if seen, _ := s.fixture.Seen(trail); seen.Mobile || !seen.Location.IsZero() {
		t.Errorf("the desktop target for the whole country was read as %+v", seen)
	}
	if runs := listRuns(t, base, key); len(runs) != 1 {
		t.Errorf("%d runs after the scheduled one, want 1 (two schedulers, one run): %+v", len(runs), runs)
	}

	// Second run: the trail overview drops example.com, adds a source,
	// moves one and is rewritten; the road overview appears citing it.
	s.fixture.SetVariant(trail, serpfixture.Variant{Kind: serpfixture.VariantOverview,
		Paragraphs: []string{"For trails, choose shoes by the terrain: mud wants deep lugs, dry rock a sticky rubber."},
		Links:      links("https://forum.example.net/t", "https://guide.example.org/", "https://new.example.io/")})
	s.fixture.SetVariant(road, serpfixture.Variant{Kind: serpfixture.VariantOverview,
		Paragraphs: []string{"Road shoes favour cushioning."}, Links: links("https://www.example.com/road")})
	second := runNow(t, s, key, base)
	// Third run: the road overview disappears; the trail one is unchanged.
	s.fixture.SetVariant(road, serpfixture.Variant{Kind: serpfixture.VariantNone})
	third := runNow(t, s, key, base)

	kinds := map[string][]string{}
	status, _, raw = call(t, http.MethodGet, base+"/changes?since=2000-01-01", key, "")
	if status != http.StatusOK {
		t.Fatalf("changes: %d %s", status, raw)
	}
	for _, c := range dataOf[monitor.Page[monitor.ChangeView]](t, raw).Items {
		kinds[c.RunID] = append(kinds[c.RunID], strings.TrimPrefix(c.Target.Surface+" ", "ai-overview ")+c.Target.Query+" "+c.Kind)
	}
	// The web search's organic results are the overview's links here:
	// the same source and domain events, no text.changed. The AI Mode
	// answer does not change.
	want2 := []string{trail + " source.removed", trail + " source.moved", trail + " source.added", trail + " text.changed",
		trail + " domain.uncited", road + " overview.appeared", road + " domain.cited", "web-search " + trail + " source.removed",
		"web-search " + trail + " source.moved", "web-search " + trail + " source.added", "web-search " + trail + " domain.uncited"}
	want3 := []string{road + " overview.disappeared", road + " domain.uncited"}
	for _, c := range []struct {
		run  monitor.RunView
		want []string
	}{{first, nil}, {second, want2}, {third, want3}} {
		got := kinds[c.run.ID]
		slices.Sort(got)
		slices.Sort(c.want)
		if !slices.Equal(got, c.want) {
			t.Errorf("changes of run %s:\n got %v\nwant %v", c.run.ID, got, c.want)
		}
	}
	if second.Counts.Changed != 3 || third.Counts.Changed != 1 {
		t.Errorf("changed counts %d, %d; want 3, 1", second.Counts.Changed, third.Counts.Changed)
	}
	// The AI Mode target read an answer with sources; the web search's
	// readings have sources and no text or screenshots.
	for i, surface := range map[int]string{3: "web-search", 4: "ai-mode"} {
		status, _, raw := call(t, http.MethodGet, base+"/targets/"+mon.Targets[i].ID+"/history?from=2000-01-01", key, "")
		h := dataOf[monitor.History](t, raw)
		if status != http.StatusOK || h.Target.Surface != surface || len(h.Readings) != 3 {
			t.Fatalf("%s history: %d %.600s", surface, status, raw)
		}
		r := h.Readings[0]
		if r.HasOverview == nil || !*r.HasOverview || len(r.Sources) == 0 || (surface == "web-search") != (r.Screenshots == nil) ||
			(surface == "web-search") != (*r.Text == "") {
			t.Errorf("%s reading: %.600s", surface, raw)
		}
	}

	// One webhook per run with changes, signed, carrying its changes.
	testenv.Eventually(t, 60*time.Second, "two monitor.changed webhooks", func() bool { return len(rcv.deliveries()) >= 2 })
	for _, d := range rcv.deliveries() {
		var ev monitor.ChangedBody
		if err := json.Unmarshal(d.body, &ev); err != nil || ev.Event != "monitor.changed" || len(ev.Changes) == 0 ||
			(ev.Run.ID != second.ID && ev.Run.ID != third.ID) || d.signature == "" {
			t.Errorf("webhook %s (%v)", d.body, err)
		}
	}
	if n := len(rcv.deliveries()); n != 2 {
		t.Errorf("%d webhooks, want 2", n)
	}

	// History: three readings of the trail target; CSV one row per source.
	target := mon.Targets[0].ID
	status, _, raw = call(t, http.MethodGet, base+"/targets/"+target+"/history?from=2000-01-01", key, "")
	h := dataOf[monitor.History](t, raw)
	if status != http.StatusOK || len(h.Readings) != 3 || len(h.Readings[0].Sources) != 3 || h.Readings[0].Screenshots == nil {
		t.Errorf("history: %d %.600s", status, raw)
	}
	status, _, raw = call(t, http.MethodGet, base+"/targets/"+target+"/history?from=2000-01-01&format=csv", key, "")
	if rows := strings.Count(string(raw), "\n"); status != http.StatusOK || rows != 1+3*3 {
		t.Errorf("CSV: %d, %d lines:\n%s", status, rows, raw)
	}
	status, _, raw = call(t, http.MethodGet, base+"/visibility?from=2000-01-01&groupBy=country", key, "")
	vis := dataOf[monitor.Visibility](t, raw)
	if status != http.StatusOK || len(vis.Groups) != 1 || vis.Groups[0].Targets != 5 || vis.Groups[0].Domains[0].Domain != "example.com" {
		t.Errorf("visibility: %d %s", status, raw)
	}

	// The same through `kisa client monitors ...`; --device and --location
	// place the file's targets that name no place.
	file := filepath.Join(t.TempDir(), "targets.json")
	if err := os.WriteFile(file, []byte(`{"targets":[{"query":"shoes","countryCode":"us"},{"query":"shoes","countryCode":"de","location":"Berlin,Berlin,Germany"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	env := testenv.Environ(append(append([]string{}, s.environ...), "KISA_URL="+s.base, "KISA_API_KEY="+key)...)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"runs", mon.ID}, second.ID},
		{[]string{"changes", mon.ID, "--since", "2000-01-01T00:00:00Z"}, "overview.disappeared"},
		{[]string{"history", mon.ID, target, "--from", "2000-01-01T00:00:00Z", "--csv"}, "time,status,failure,query"},
		{[]string{"visibility", mon.ID, "--group-by", "country"}, `"citedShare"`},
		{[]string{"update", mon.ID, "--pause"}, `"paused": true`},
		{[]string{"update", mon.ID, "--file", file, "--device", "mobile", "--location", "30.2672,-97.7431"},
			`"latitude": 30.2672`},
		{[]string{"delete", mon.ID}, mon.ID},
	} {
		out, errOut, err := cliRun(t, env, "", append([]string{"client", "monitors"}, c.args...)...)
		if err != nil || !strings.Contains(out, c.want) {
			t.Errorf("kisa client monitors %v: %v %s\n%.800s", c.args, err, errOut, out)
		}
	}
	if status, _, _ := call(t, http.MethodGet, base, key, ""); status != http.StatusNotFound {
		t.Errorf("deleted monitor: %d, want 404", status)
	}
}

// runNow starts a run by hand and waits until it is done.
func runNow(t *testing.T, s *stack, key, base string) monitor.RunView {
	t.Helper()
	status, _, raw := call(t, http.MethodPost, base+"/run", key, "")
	if status != http.StatusAccepted {
		t.Fatalf("run now: %d %s", status, raw)
	}
	id := dataOf[monitor.RunView](t, raw).ID
	return waitRun(t, s, key, base, func(r monitor.RunView) bool { return r.ID == id }, 3*time.Minute)
}

// waitRun waits for a run that match selects to be done, and returns it.
func waitRun(t *testing.T, s *stack, key, base string, match func(monitor.RunView) bool, within time.Duration) monitor.RunView {
	t.Helper()
	var found monitor.RunView
	testenv.Eventually(t, within, "a monitor run", func() bool {
		for _, r := range listRuns(t, base, key) {
			if match(r) && r.Status != "running" {
				found = r
				return true
			}
		}
		return false
	})
	return found
}

func listRuns(t *testing.T, base, key string) []monitor.RunView {
	t.Helper()
	status, _, raw := call(t, http.MethodGet, base+"/runs", key, "")
	if status != http.StatusOK {
		t.Fatalf("runs: %d %s", status, raw)
	}
	return dataOf[monitor.Page[monitor.RunView]](t, raw).Items
}
