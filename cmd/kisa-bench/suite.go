package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/kisa-dev/kisa/storage"
	"github.com/kisa-dev/kisa/testenv/redisdb"
)

// counts are the sizes of a run: full by default, small with BENCH_QUICK=1.
type counts struct {
	Rounds    int           // A B pairs per wrk figure
	WrkTime   time.Duration // each wrk run
	Misses    int           // timed misses per side and round
	Queries   int           // distinct queries per tab count
	Fresh     int           // jobs with a browser each
	Coalesce  int           // identical concurrent misses
	Stability int           // jobs in a row
	Targets   int           // of the monitor
	Waits     int           // visits per stream length of the waiting figure
}

func countsFor(quick bool) counts {
	if quick {
		return counts{Rounds: 2, WrkTime: 3 * time.Second, Misses: 2, Queries: 16, Fresh: 8, Coalesce: 50, Stability: 100, Targets: 40, Waits: 3}
	}
	return counts{Rounds: 5, WrkTime: 10 * time.Second, Misses: 5, Queries: 200, Fresh: 200, Coalesce: 50, Stability: 1000, Targets: 1000, Waits: 20}
}

// suite is one run: the processes it started and what they need.
type suite struct {
	ctx     context.Context
	bin     string
	dir     string // .data/bench/<time>: logs and the worker's TMPDIR
	env     []string
	n       counts
	only    map[string]bool
	profile bool // BENCH_PROFILE=1: CPU profiles of web under wrk
	log     io.Writer
	key     string // API key of the demo account
	account string
	integ   string // an integration id of that account
	token   string // KISA_ADMIN_TOKEN
	web     string // base URL of kisa web
	webOff  string // base URL of a second kisa web with KISA_LIMIT_OTHER=0
	// webQuiet is the base URL of a third kisa web with KISA_OBSERVATIONS=false:
	// the reads and cache hits without recording, beside the figures with it.
	webQuiet string
	fixture  string // base URL of serpfixture
	// plainFixture is a second serpfixture that serves automated browsers
	// (the page baseline's plain chromedp tab).
	plainFixture string
	// slowFixture is a serpfixture whose overview streams for slowDelay,
	// started by the figures that need it.
	slowFixture string
	bare        string         // base URL of the bare baselines
	pids        map[string]int // of web, webOff and bare, by base URL
	rdb         *redis.Client  // the suite's Redis, asked for its CPU time
	// releaseRedis gives the suite's Redis database back.
	releaseRedis func()
	worker       *proc
	procs        []*proc
	res          *report
}

func runSuite(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("kisa-bench", flag.ContinueOnError)
	bin := fs.String("bin", "bin", "directory of the kisa, serpfixture and kisa-bench binaries")
	out := fs.String("out", "bench/results", "directory of the results")
	if err := fs.Parse(args); err != nil {
		return err
	}
	s, err := newSuite(ctx, *bin, getenv, stdout)
	if err != nil {
		return err
	}
	defer s.stopAll()
	if err := s.start(); err != nil {
		return err
	}
	s.figures()
	return s.res.write(*out, stdout)
}

func newSuite(ctx context.Context, bin string, getenv func(string) string, log io.Writer) (*suite, error) {
	quick := getenv("BENCH_QUICK") == "1"
	stamp := time.Now().UTC().Format("20060102T150405Z")
	dir, err := filepath.Abs(filepath.Join(".data", "bench", stamp))
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(dir, "tmp"), 0o755); err != nil {
		return nil, err
	}
	dbURL, err := benchDatabase(getenv)
	if err != nil {
		return nil, err
	}
	redisURL, releaseRedis, err := benchRedis(ctx, getenv)
	if err != nil {
		return nil, err
	}
	env := append(os.Environ(), "DATABASE_URL="+dbURL, "REDIS_URL="+redisURL, "KISA_LOG_LEVEL=warn")
	opt, err := redis.ParseURL(redisURL)
	if err != nil {
		releaseRedis()
		return nil, err
	}
	s := &suite{ctx: ctx, bin: bin, dir: dir, env: env, n: countsFor(quick), log: log, token: randomHex(16),
		res: newReport(stamp, quick), profile: getenv("BENCH_PROFILE") == "1",
		pids: map[string]int{}, rdb: redis.NewClient(opt), releaseRedis: releaseRedis}
	if v := getenv("BENCH_ONLY"); v != "" {
		s.only = map[string]bool{}
		for _, f := range strings.Split(v, ",") {
			s.only[strings.TrimSpace(f)] = true
		}
	}
	return s, nil
}

// benchDatabase is the suite's database: BENCH_DATABASE_URL, or
// DATABASE_URL's server with the database kisa_bench, created if missing.
func benchDatabase(getenv func(string) string) (string, error) {
	if v := getenv("BENCH_DATABASE_URL"); v != "" {
		return v, nil
	}
	base := getenv("DATABASE_URL")
	u, err := url.Parse(base)
	if err != nil || base == "" {
		return "", fmt.Errorf("DATABASE_URL %q: run through make bench (it sources .data/services.env)", base)
	}
	db, err := storage.Open(context.Background(), base)
	if err != nil {
		return "", err
	}
	defer db.Close()
	_, err = db.SQL().Exec("CREATE DATABASE kisa_bench")
	if err != nil && !strings.Contains(err.Error(), "already exists") {
		return "", fmt.Errorf("create database kisa_bench: %w", err)
	}
	u.Path = "/kisa_bench"
	return u.String(), nil
}

// benchRedis is the suite's Redis db: BENCH_REDIS_URL, or a database of
// REDIS_URL's server claimed the way the tests claim theirs (redisdb), so
// that a test running meanwhile never has it flushed under it. It is
// flushed first; release gives a claimed database back.
func benchRedis(ctx context.Context, getenv func(string) string) (raw string, release func(), err error) {
	raw, release = getenv("BENCH_REDIS_URL"), func() {}
	if raw == "" {
		u, err := url.Parse(getenv("REDIS_URL"))
		if err != nil || u.Host == "" {
			return "", nil, fmt.Errorf("REDIS_URL %q: run through make bench", getenv("REDIS_URL"))
		}
		opt, err := redis.ParseURL(u.String())
		if err != nil {
			return "", nil, err
		}
		lease, err := redisdb.Claim(ctx, *opt, 2*time.Minute)
		if err != nil {
			return "", nil, err
		}
		u.Path = fmt.Sprintf("/%d", lease.DB)
		raw, release = u.String(), lease.Release
	}
	opt, err := redis.ParseURL(raw)
	if err != nil {
		release()
		return "", nil, err
	}
	rdb := redis.NewClient(opt)
	defer rdb.Close()
	if err := rdb.FlushDB(ctx).Err(); err != nil {
		release()
		return "", nil, fmt.Errorf("flush the bench Redis db %s: %w", raw, err)
	}
	return raw, release, nil
}

// start migrates, makes a key, and starts the fixture, web, a worker and
// the bare baselines.
func (s *suite) start() error {
	if err := s.cmd("migrate"); err != nil {
		return err
	}
	if err := s.demoKey(); err != nil {
		return err
	}
	var err error
	if s.fixture, err = s.startHTTP("serpfixture", nil, "/healthz", "--delay", "1s"); err != nil {
		return err
	}
	// The page's own time is measured by a plain chromedp tab, which the
	// fixture would answer with its CAPTCHA (it looks automated): that
	// baseline has a fixture of its own, the same page and delay.
	if s.plainFixture, err = s.startHTTP("serpfixture", nil, "/healthz", "--delay", "1s", "--allow-automated"); err != nil {
		return err
	}
	web := []string{"KISA_HOST=127.0.0.1", "KISA_LIMIT_OTHER=1000000000", "KISA_LIMIT_AI=1000000000",
		"KISA_LIMIT_CONCURRENT=100000", "KISA_ADMIN_TOKEN=" + s.token, "KISA_OVERVIEW_TIMEOUT=600s",
		"KISA_VISIT_TIMEOUT=120s", "KISA_QUEUE_MAX=100000", "KISA_MONITOR_MAX_TARGETS=0", "KISA_MONITOR_MAX_VISITS=0"}
	if s.web, err = s.startHTTP("kisa", web, "/readyz", "web"); err != nil {
		return err
	}
	if s.only == nil || s.only["reads"] {
		// The same web with no limit on reads, to show what the limiter
		// costs a read (an informational row beside the reads figure).
		off := append(slices.Clone(web), "KISA_LIMIT_OTHER=0")
		if s.webOff, err = s.startHTTP("kisa", off, "/readyz", "web"); err != nil {
			return err
		}
	}
	if s.only == nil || s.only["reads"] || s.only["hits"] {
		quiet := append(slices.Clone(web), "KISA_OBSERVATIONS=false")
		if s.webQuiet, err = s.startHTTP("kisa", quiet, "/readyz", "web"); err != nil {
			return err
		}
	}
	if s.bare, err = s.startHTTP("kisa-bench", nil, "", "bare"); err != nil {
		return err
	}
	return s.integration()
}

// cmd runs `kisa args...` to completion.
func (s *suite) cmd(args ...string) error {
	c := exec.CommandContext(s.ctx, filepath.Join(s.bin, "kisa"), args...)
	c.Env = s.env
	out, err := c.CombinedOutput()
	if err != nil {
		return fmt.Errorf("kisa %s: %w: %s", strings.Join(args, " "), err, out)
	}
	return nil
}

func (s *suite) demoKey() error {
	c := exec.CommandContext(s.ctx, filepath.Join(s.bin, "kisa"), "admin", "demo")
	c.Env = s.env
	out, err := c.Output()
	if err != nil {
		return fmt.Errorf("kisa admin demo: %w", err)
	}
	var v struct{ Account, Key string }
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &v); err != nil || v.Key == "" {
		return fmt.Errorf("kisa admin demo printed %q", out)
	}
	s.key, s.account = v.Key, v.Account
	return nil
}

// integration finds an integration of the demo account for the reads.
func (s *suite) integration() error {
	var v struct {
		Data []struct{ ID string } `json:"data"`
	}
	if err := s.getJSON(s.web+"/v1/integrations", &v); err != nil || len(v.Data) == 0 {
		return fmt.Errorf("list integrations: %v (%d)", err, len(v.Data))
	}
	s.integ = v.Data[0].ID
	return nil
}

func (s *suite) getJSON(u string, v any) error {
	req, _ := http.NewRequestWithContext(s.ctx, http.MethodGet, u, nil)
	req.Header.Set("Authorization", "Bearer "+s.key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("GET %s: %s %s", u, resp.Status, b)
	}
	return json.NewDecoder(resp.Body).Decode(v)
}

// proc is a child process of the suite.
type proc struct {
	name string
	cmd  *exec.Cmd
	done chan struct{}
}

// startHTTP starts bin/name on a free port and waits until health answers
// (or, for the bare server, until it prints its address). It returns the
// base URL.
func (s *suite) startHTTP(name string, env []string, health string, args ...string) (string, error) {
	addr, err := freeAddr()
	if err != nil {
		return "", err
	}
	_, port, _ := net.SplitHostPort(addr)
	switch {
	case name == "serpfixture" || name == "kisa-bench":
		args = append(args, "--addr", addr)
	default:
		env = append(env, "PORT="+port)
	}
	p, err := s.spawn(name, env, args...)
	if err != nil {
		return "", err
	}
	base := "http://" + addr
	s.pids[base] = p.cmd.Process.Pid
	return base, waitHealthy(s.ctx, p, base+health)
}

// spawn starts bin/name with the suite's environment plus env; its
// output goes to <dir>/<name>-<n>.log.
func (s *suite) spawn(name string, env []string, args ...string) (*proc, error) {
	logf, err := os.Create(filepath.Join(s.dir, fmt.Sprintf("%s-%d.log", name, len(s.procs))))
	if err != nil {
		return nil, err
	}
	c := exec.Command(filepath.Join(s.bin, name), args...)
	c.Env = append(append([]string{}, s.env...), env...)
	c.Stdout, c.Stderr = logf, logf
	// Its own process group (a signal to the suite's group does not reach
	// it midway), and SIGKILL when the suite dies: a worker or web left
	// behind would keep serving the Redis database the suite claimed,
	// which goes back to the tests a minute later (a stray worker then
	// answers another stack's tasks).
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := c.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &proc{name: name, cmd: c, done: make(chan struct{})}
	go func() { c.Wait(); logf.Close(); close(p.done) }()
	s.procs = append(s.procs, p)
	return p, nil
}

// stop ends p with SIGTERM (SIGKILL to its group after 30 s).
func (p *proc) stop() {
	select {
	case <-p.done:
		return
	default:
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(30 * time.Second):
		syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-p.done
	}
}

func (s *suite) stopAll() {
	for i := len(s.procs) - 1; i >= 0; i-- {
		s.procs[i].stop()
	}
	s.rdb.Close()
	s.releaseRedis()
}

// startWorker (re)starts the worker with tabs tabs and waits until it is
// ready; its TMPDIR is <dir>/tmp, where its profiles go. extraEnv is added
// to its environment.
func (s *suite) startWorker(tabs int, extraEnv ...string) error {
	if s.worker != nil {
		s.worker.stop()
	}
	addr, err := freeAddr()
	if err != nil {
		return err
	}
	env := []string{"KISA_WORKER_ADDR=" + addr, fmt.Sprintf("KISA_BROWSER_CONCURRENCY=%d", tabs),
		"KISA_SEARCH_URL=" + s.fixture + "/search", "TMPDIR=" + filepath.Join(s.dir, "tmp"),
		"KISA_VISIT_TIMEOUT=120s", "KISA_OVERVIEW_TIMEOUT=600s", "KISA_ADMIN_TOKEN=" + s.token,
		"KISA_MONITOR_MAX_TARGETS=0", "KISA_MONITOR_MAX_VISITS=0"}
	env = append(env, extraEnv...)
	p, err := s.spawn("kisa", env, "worker")
	if err != nil {
		return err
	}
	s.worker = p
	return waitHealthy(s.ctx, p, "http://"+addr+"/readyz")
}

// waitHealthy polls u until it answers 200 (u without a path: until the
// process printed "listening") for up to two minutes.
func waitHealthy(ctx context.Context, p *proc, u string) error {
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		select {
		case <-p.done:
			return fmt.Errorf("%s exited at start (see its log under .data/bench)", p.name)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
		if strings.HasSuffix(u, "/") || !strings.Contains(strings.TrimPrefix(u, "http://"), "/") {
			if printed(p) {
				return nil
			}
			continue
		}
		resp, err := http.Get(u)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
	}
	return fmt.Errorf("%s: %s not ready within two minutes", p.name, u)
}

// printed reports whether p's log says it listens.
func printed(p *proc) bool {
	f, ok := p.cmd.Stdout.(*os.File)
	if !ok {
		return false
	}
	r, err := os.Open(f.Name())
	if err != nil {
		return false
	}
	defer r.Close()
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if strings.Contains(sc.Text(), "listening") {
			return true
		}
	}
	return false
}

func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}
