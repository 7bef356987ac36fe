package worker

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/jobs"
	"github.com/kisa-dev/kisa/proxies"
	"github.com/kisa-dev/kisa/serpfixture"
	"github.com/kisa-dev/kisa/storage"
	"github.com/kisa-dev/kisa/testenv"
	"github.com/kisa-dev/kisa/worker/browser"
)

// searchHost is the fixture search engine's name: only the test proxies
// resolve it (to the fixture), and Chromium resolves no name at all, so a
// request that leaves without a proxy fails.
const searchHost = "search.kisa.test"

// proxyHeader carries the tag of the proxy a request came through.
const proxyHeader = "X-Test-Proxy"

// testProxy is a forward HTTP proxy on loopback that sends requests for
// searchHost to the fixture, tagged with its name, and counts them. With
// a user set it answers 407 to requests without its credentials.
type testProxy struct {
	*httptest.Server
	tag, user, pass string
	fixture         string // host:port of the fixture

	mu         sync.Mutex
	searches   int      // /search requests forwarded
	challenges int      // 407s answered
	stray      []string // requests for other hosts
	tunnels    []string // CONNECTs (refused), see TestProxies
}

func newTestProxy(t *testing.T, tag, fixture, user, pass string) *testProxy {
	t.Helper()
	p := &testProxy{tag: tag, user: user, pass: pass, fixture: fixture}
	p.Server = httptest.NewServer(p)
	t.Cleanup(p.Close)
	return p
}

// url returns the proxy's URL for KISA_PROXIES, with its credentials.
func (p *testProxy) url() string {
	u, _ := url.Parse(p.URL)
	if p.user != "" {
		u.User = url.UserPassword(p.user, p.pass)
	}
	return u.String()
}

func (p *testProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	want := "Basic " + base64.StdEncoding.EncodeToString([]byte(p.user+":"+p.pass))
	p.mu.Lock()
	switch {
	case p.user != "" && r.Header.Get("Proxy-Authorization") != want:
		p.challenges++
		p.mu.Unlock()
		w.Header().Set("Proxy-Authenticate", `Basic realm="kisa-test"`)
		w.WriteHeader(http.StatusProxyAuthRequired)
		return
	case r.Method == http.MethodConnect:
		p.tunnels = append(p.tunnels, r.Host)
		p.mu.Unlock()
		http.Error(w, "no tunnels", http.StatusBadGateway)
		return
	case r.URL.Hostname() != searchHost:
		p.stray = append(p.stray, r.URL.Host)
		p.mu.Unlock()
		http.Error(w, "no such host", http.StatusBadGateway)
		return
	case r.URL.Path == "/search":
		p.searches++
	}
	p.mu.Unlock()
	p.forward(w, r)
}

// forward sends r to the fixture with the proxy's tag and copies the
// answer back.
func (p *testProxy) forward(w http.ResponseWriter, r *http.Request) {
	out := r.Clone(r.Context())
	out.RequestURI = ""
	out.URL.Host = p.fixture
	out.Header.Del("Proxy-Authorization")
	out.Header.Set(proxyHeader, p.tag)
	resp, err := http.DefaultTransport.RoundTrip(out)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(resp.StatusCode)
	io.Copy(w, resp.Body)
}

// counts returns the /search requests and 407s the proxy has seen.
func (p *testProxy) counts() (searches, challenges int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.searches, p.challenges
}

// blockProxies wraps the fixture: /search requests that came through a
// proxy whose tag is in blocked get the CAPTCHA redirect.
func blockProxies(fx http.Handler, blocked ...string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tag := r.Header.Get(proxyHeader)
		for _, b := range blocked {
			if r.URL.Path == "/search" && tag == b {
				http.Redirect(w, r, "/sorry/index?continue="+url.QueryEscape(r.URL.String()), http.StatusFound)
				return
			}
		}
		fx.ServeHTTP(w, r)
	})
}

// proxyEnv is a Handler whose visits go out through test proxies.
type proxyEnv struct {
	handlerEnv
	proxies map[string]*testProxy
	dead    string // host:port of the se proxy that nothing listens on
	logs    *testenv.Buffer
}

// password is the credentialed proxy's password; no log line may show it.
const password = "s3cret-proxy-pass"

// newProxyEnv starts the fixture behind six proxies: at (tag at), de
// (de1, which the fixture blocks, then de2), fr (needs credentials), nl
// (blocked) and se (after a proxy where nothing listens). Everything logs
// at debug level into env.logs.
func newProxyEnv(t *testing.T) *proxyEnv {
	t.Helper()
	rdb := testenv.Redis(t)
	fx := httptest.NewServer(blockProxies(serpfixture.New(serpfixture.Options{OverviewDelay: -1}), "de1", "nl"))
	t.Cleanup(fx.Close)
	addr := strings.TrimPrefix(fx.URL, "http://")
	env := &proxyEnv{proxies: map[string]*testProxy{}, logs: &testenv.Buffer{}}
	var entries []string
	for _, e := range []struct{ country, tag, user string }{
		{"at", "at", ""}, {"de", "de1", ""}, {"de", "de2", ""}, {"fr", "fr", "kisa-user"}, {"nl", "nl", ""},
		{"se", "se", ""},
	} {
		if e.country == "se" {
			env.dead = deadAddr(t)
			entries = append(entries, "se=http://"+env.dead)
		}
		pass := ""
		if e.user != "" {
			pass = password
		}
		p := newTestProxy(t, e.tag, addr, e.user, pass)
		env.proxies[e.tag] = p
		entries = append(entries, e.country+"="+p.url())
	}
	set, err := proxies.Parse(strings.Join(entries, ","))
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(env.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	searchURL := "http://" + searchHost + "/search"
	pool, err := browser.NewPool(browser.Config{ExecPath: testenv.Chromium(t), Tabs: 1, VisitTimeout: 30 * time.Second,
		SettleQuiet: 300 * time.Millisecond, OverviewWait: 5 * time.Second, OverviewAppear: time.Second,
		SearchURL: searchURL, HostResolverRules: "MAP * ~NOTFOUND , EXCLUDE 127.0.0.1", Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	if err := pool.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pool.Close() })
	prefix := "test-" + testenv.RandomHex(4) + ":"
	results := testenv.Results(t, rdb, prefix)
	reg := prometheus.NewRegistry()
	m := NewMetrics(reg, pool)
	h, err := NewHandler(HandlerOptions{Pool: pool, Artifacts: testArtifacts(t), Finisher: testFinisher(t, rdb, results), SearchURL: searchURL, Proxies: set,
		Rotation: storage.NewProxyRotation(rdb, prefix, time.Hour), CountProxy: m.ProxyVisit, Logger: log, Observer: m})
	if err != nil {
		t.Fatal(err)
	}
	env.handlerEnv = handlerEnv{h: h, results: results, pool: pool, reg: reg}
	return env
}

// searches returns the /search requests each proxy forwarded.
// deadAddr returns a loopback host:port where nothing listens.
func deadAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

func (e *proxyEnv) searches() map[string]int {
	out := map[string]int{}
	for tag, p := range e.proxies {
		if n, _ := p.counts(); n > 0 {
			out[tag] = n
		}
	}
	return out
}

// host returns the host:port of the proxy tagged tag, as metrics name it.
func (e *proxyEnv) host(tag string) string { return strings.TrimPrefix(e.proxies[tag].URL, "http://") }

// TestProxies runs tasks of several countries through the test proxies:
// each country's requests leave through its own proxies only; with one of
// two proxies blocked every request is still answered, the blocked proxy
// tried once and then avoided; a proxy with credentials works; a proxy
// where nothing listens gives way to the next one; a country
// whose every proxy is blocked gets the CAPTCHA failure, without another
// visit once its proxy cools down. No log line shows the password.
func TestProxies(t *testing.T) {
	e := newProxyEnv(t)
	overview := func(t *testing.T, country string) jobs.Outcome {
		t.Helper()
		out, _ := e.processIn(t, "why is the sky blue", country)
		return out
	}
	t.Run("a country goes through its proxy", func(t *testing.T) {
		if out := overview(t, "at"); out.Result == nil || !out.Result.Overview.HasOverview {
			t.Fatalf("outcome %+v, want an overview", out)
		}
		if diff := cmp.Diff(map[string]int{"at": 1}, e.searches()); diff != "" {
			t.Errorf("searches by proxy (-want +got):\n%s", diff)
		}
	})
	t.Run("a blocked proxy is tried, then avoided", func(t *testing.T) {
		for i := range 3 {
			if out := overview(t, "de"); out.Result == nil {
				t.Fatalf("request %d: outcome %+v, want a result", i, out)
			}
		}
		if diff := cmp.Diff(map[string]int{"at": 1, "de1": 1, "de2": 3}, e.searches()); diff != "" {
			t.Errorf("searches by proxy (-want +got):\n%s", diff)
		}
	})
	t.Run("a proxy with credentials", func(t *testing.T) {
		if out := overview(t, "fr"); out.Result == nil || !out.Result.Overview.HasOverview {
			t.Fatalf("outcome %+v, want an overview", out)
		}
		if searches, challenges := e.proxies["fr"].counts(); searches != 1 || challenges == 0 {
			t.Errorf("fr proxy: %d searches, %d 407s; want 1 search after at least one 407", searches, challenges)
		}
	})
	t.Run("every proxy blocked", func(t *testing.T) {
		want := jobs.Outcome{Failure: kisa.Blocked, Part: kisa.PartBrowser}
		for i := range 2 {
			if out := overview(t, "nl"); out != want {
				t.Errorf("request %d: outcome %+v, want %+v", i, out, want)
			}
		}
		if n, _ := e.proxies["nl"].counts(); n != 1 {
			t.Errorf("nl proxy: %d searches, want 1 (then it cools down)", n)
		}
	})
	t.Run("a dead proxy is skipped", func(t *testing.T) {
		if out := overview(t, "se"); out.Result == nil || !out.Result.Overview.HasOverview {
			t.Fatalf("outcome %+v, want an overview through the second proxy", out)
		}
		if n, _ := e.proxies["se"].counts(); n != 1 {
			t.Errorf("se proxy: %d searches, want 1", n)
		}
	})
	t.Run("metrics by proxy", func(t *testing.T) {
		name := func(tag, outcome string) string {
			return "kisa_worker_proxy_visits_total{outcome=" + outcome + "}{proxy=" + e.host(tag) + "}"
		}
		want := map[string]float64{
			name("at", "ok"): 1, name("de1", "blocked"): 1, name("de2", "ok"): 3,
			name("fr", "ok"): 1, name("nl", "blocked"): 1, name("se", "ok"): 1,
			"kisa_worker_proxy_visits_total{outcome=unavailable}{proxy=" + e.dead + "}": 1,
		}
		got := map[string]float64{}
		for k, v := range series(t, e.reg) {
			if strings.HasPrefix(k, "kisa_worker_proxy_visits_total") {
				got[k] = v
			}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("proxy series (-want +got):\n%s", diff)
		}
	})
	// The tab's guard stops every request for another host before it is
	// sent; Chromium may still open a tunnel (a CONNECT, no request in it)
	// for a navigation the guard then stops.
	for tag, p := range e.proxies {
		if len(p.stray) > 0 {
			t.Errorf("proxy %s was asked for other hosts: %q", tag, p.stray)
		}
		if len(p.tunnels) > 0 {
			t.Logf("proxy %s was asked for tunnels to %q (refused)", tag, p.tunnels)
		}
	}
	logs := e.logs.String()
	if !strings.Contains(logs, "level=DEBUG") {
		t.Errorf("no debug line logged; the password check proves nothing")
	}
	if strings.Contains(logs, password) {
		t.Errorf("a log line shows the proxy password:\n%s", logs)
	}
}

// processIn runs one task for query in country and returns the outcome
// published.
func (e handlerEnv) processIn(t *testing.T, query, country string) (jobs.Outcome, error) {
	t.Helper()
	key := "k-" + testenv.RandomHex(4)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	w, err := e.results.Subscribe(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	task, err := jobs.NewOverviewTask(jobs.OverviewPayload{Key: key, Query: query, CountryCode: country,
		LanguageCode: "en"}, time.Minute, 1)
	if err != nil {
		t.Fatal(err)
	}
	perr := e.h.ProcessTask(ctx, task)
	out, err := w.Wait(ctx)
	if err != nil {
		t.Fatalf("no outcome published: %v (handler error %v)", err, perr)
	}
	if strings.Contains(fmt.Sprint(out, perr), password) {
		t.Errorf("the outcome or the error shows the proxy password")
	}
	return out, perr
}

// TestRotateOnRefusedPages: an assistant's page that refused the visit
// as a human check, sign-in wall or usage limit (kisa.Blocked, with its
// evidence) cools its proxy down and tries the next, as Google's CAPTCHA
// does; the engine's own error (kisa.Unavailable) does not.
func TestRotateOnRefusedPages(t *testing.T) {
	blocked := &browser.EvidenceError{Err: fmt.Errorf("%w: ChatGPT showed a human check", kisa.Blocked)}
	failed := &browser.EvidenceError{Err: fmt.Errorf("%w: ChatGPT answered with its own error", kisa.Unavailable)}
	if !rotate(blocked) || !rotate(fmt.Errorf("visit: %w", blocked)) {
		t.Error("a refused page does not rotate the proxy")
	}
	if rotate(failed) {
		t.Error("the engine's own error rotates the proxy")
	}
}
