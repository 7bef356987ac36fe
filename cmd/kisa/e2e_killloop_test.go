package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"github.com/kisa-dev/kisa/jobs"
	"github.com/kisa-dev/kisa/serpfixture"
	"github.com/kisa-dev/kisa/testenv"
)

// soakKills is how many workers TestKillLoop kills: KISA_SOAK_KILLS, 20
// by default (`make soak` runs 100).
func soakKills(tb testing.TB) int {
	tb.Helper()
	n, err := strconv.Atoi(testenv.Get("KISA_SOAK_KILLS", "20"))
	if err != nil || n < 1 {
		tb.Fatalf("KISA_SOAK_KILLS=%q: want a whole number of at least 1", os.Getenv("KISA_SOAK_KILLS"))
	}
	return n
}

// recoverAfter is when every task of a killed worker can be recovered:
// its lease (30 s) has expired and asynq's recoverer, which runs when a
// server starts and then every minute, takes only tasks whose lease
// expired 30 s ago or earlier.
const recoverAfter = 62 * time.Second

// TestKillLoop kills (SIGKILL) a worker process in the middle of a job
// again and again, starting a replacement each time, with one request per
// kill. In the end every request has been answered 200 or 503, every task
// has completed or been archived (nothing pending, scheduled, retrying or
// active is left in the queue), and once the last workers stop no
// Chromium process and no profile directory is left. Two workers run at
// once, so that the next job starts in the one already warm while the
// replacement of the killed one launches its browser; each worker reaches
// the search engine through a proxy of its own, which tells which worker
// opened which page. With the default 20 kills it takes about 100 s: a
// page load per kill, and the wait for asynq to recover the last killed
// task (recoverAfter).
func TestKillLoop(t *testing.T) {
	kills := soakKills(t)
	bin := buildKisa(t) // first: the web process refuses requests after 30 s without a worker
	s := startStack(t, stackOptions{waitTimeout: "45s", noWorker: true,
		fixture: serpfixture.Options{OverviewDelay: time.Second}})
	ws := &workerSet{bin: bin, env: s.environ, tmp: t.TempDir(), search: s.env("KISA_SEARCH_URL")}
	t.Cleanup(ws.killAll)
	t.Cleanup(func() { ws.logFailure(t) })

	t0 := time.Now()
	statuses := make(chan string, kills)
	ws.start(t)
	ws.start(t)
	testenv.Eventually(t, 2*time.Minute, "both workers to start", func() bool { return ws.serving(t, s.queue) })
	for i := range kills {
		q := fmt.Sprintf("kill loop %d", i)
		go func() {
			statuses <- s.postStatus(`{"query":"` + q + `","countryCode":"us","languageCode":"en","screenshots":false}`)
		}()
		var w *workerProc
		testenv.Eventually(t, 60*time.Second, "a worker to open the page of "+q, func() bool { w = ws.opened(q); return w != nil })
		ws.kill(t, w)
		ws.start(t)
	}
	lastKill := time.Now()

	for range kills {
		if st := <-statuses; st != "200" && st != "503" {
			t.Errorf("request answered %s, want 200 or 503", st)
		}
	}
	// A worker started once the killed workers' tasks can be recovered
	// recovers them at once, instead of at its elders' next minutely pass.
	rdb := redisOf(t, s)
	testenv.Eventually(t, recoverAfter+time.Minute, "the killed workers' tasks to be recoverable", func() bool {
		return ws.recoverable(t, s.queue, rdb)
	})
	ws.start(t)
	s.waitIdleWithin(t, 2*time.Minute)
	if q, err := s.queue.GetQueueInfo(jobs.QueueOverview); err == nil {
		t.Logf("%d kills in %s: %d tasks archived, %d attempts; queue empty after %s",
			kills, lastKill.Sub(t0).Round(time.Second), q.Archived, q.ProcessedTotal, time.Since(t0).Round(time.Second))
	}
	ws.stopAll(t)
	ws.checkNothingLeft(t)
}

// workerSet runs `kisa worker` subprocesses whose browsers keep their
// profile directories in tmp.
type workerSet struct {
	bin    string
	env    []string
	tmp    string
	search string // the fixture's search URL

	mu   sync.Mutex
	live []*workerProc
}

// workerProc is one `kisa worker` process, reaching the search engine through
// a proxy that records the queries of the pages it opens.
type workerProc struct {
	cmd   *exec.Cmd
	logs  *testenv.Buffer
	proxy *httptest.Server

	mu      sync.Mutex
	queries map[string]bool
}

// start starts a worker process; it does not wait for it to be ready.
func (ws *workerSet) start(t *testing.T) *workerProc {
	t.Helper()
	target, err := url.Parse(ws.search)
	if err != nil {
		t.Fatal(err)
	}
	w := &workerProc{logs: &testenv.Buffer{}, queries: map[string]bool{}}
	rp := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: target.Scheme, Host: target.Host})
	w.proxy = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.URL.Path == target.Path {
			w.mu.Lock()
			w.queries[r.URL.Query().Get("q")] = true
			w.mu.Unlock()
		}
		rp.ServeHTTP(rw, r)
	}))
	t.Cleanup(w.proxy.Close)
	w.cmd = exec.Command(ws.bin, "worker")
	w.cmd.Env = append(append(os.Environ(), ws.env...), "TMPDIR="+ws.tmp,
		"KISA_SEARCH_URL="+w.proxy.URL+target.Path)
	w.cmd.Stderr = w.logs
	if err := w.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ws.mu.Lock()
	defer ws.mu.Unlock()
	ws.live = append(ws.live, w)
	return w
}

// logFailure logs what the live workers wrote, when the test failed.
func (ws *workerSet) logFailure(t *testing.T) {
	if !t.Failed() {
		return
	}
	ws.mu.Lock()
	defer ws.mu.Unlock()
	for i, w := range ws.live {
		t.Logf("live worker %d (pid %d) wrote:\n%s", i, w.cmd.Process.Pid, w.logs)
	}
}

// opened returns the live worker that has opened the page of query q, or nil.
func (ws *workerSet) opened(q string) *workerProc {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	for _, w := range ws.live {
		w.mu.Lock()
		ok := w.queries[q]
		w.mu.Unlock()
		if ok {
			return w
		}
	}
	return nil
}

// kill SIGKILLs the worker w and reaps it.
func (ws *workerSet) kill(t *testing.T, w *workerProc) {
	t.Helper()
	if err := w.cmd.Process.Kill(); err != nil {
		t.Fatalf("kill worker %d: %v", w.cmd.Process.Pid, err)
	}
	w.cmd.Wait()
	ws.forget(w)
}

// forget drops w from the live workers.
func (ws *workerSet) forget(w *workerProc) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	for i, c := range ws.live {
		if c == w {
			ws.live = append(ws.live[:i], ws.live[i+1:]...)
			return
		}
	}
}

// stopAll stops the live workers as a platform would (SIGTERM), and fails
// the test when one does not exit cleanly within 30 s.
func (ws *workerSet) stopAll(t *testing.T) {
	t.Helper()
	ws.mu.Lock()
	defer ws.mu.Unlock()
	for _, w := range ws.live {
		w.cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan error, 1)
		go func() { done <- w.cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("worker %d exited with %v\n%s", w.cmd.Process.Pid, err, w.logs.String())
			}
		case <-time.After(30 * time.Second):
			t.Errorf("worker %d did not stop within 30 s of SIGTERM", w.cmd.Process.Pid)
		}
	}
	ws.live = nil
}

// killAll kills whatever workers are still running (a failed test).
func (ws *workerSet) killAll() {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	for _, w := range ws.live {
		w.cmd.Process.Kill()
		w.cmd.Wait()
	}
	ws.live = nil
}

// checkNothingLeft fails unless, within 10 s, no process of a browser
// of these workers runs and no profile directory is left in tmp.
func (ws *workerSet) checkNothingLeft(t *testing.T) {
	t.Helper()
	testenv.Eventually(t, 10*time.Second, "the workers' Chromium processes to exit", func() bool {
		return len(processesWithEnv("KISA_CHROMIUM_PROFILE="+ws.tmp+"/")) == 0
	})
	dirs, _ := filepath.Glob(filepath.Join(ws.tmp, "kisa-chromium-*"))
	if len(dirs) > 0 {
		t.Errorf("profile directories left behind: %q", dirs)
	}
}

// processesWithEnv lists the live processes (pid and command) whose
// environment holds an entry starting with prefix.
func processesWithEnv(prefix string) []string {
	procs, _ := filepath.Glob("/proc/[0-9]*")
	var found []string
	for _, proc := range procs {
		environ, err := os.ReadFile(proc + "/environ")
		if err != nil || !hasEntry(environ, prefix) || exited(proc) {
			continue
		}
		cmdline, _ := os.ReadFile(proc + "/cmdline")
		cmd, _, _ := bytes.Cut(cmdline, []byte{0})
		found = append(found, filepath.Base(proc)+" "+string(cmd))
	}
	return found
}

// hasEntry reports whether a NUL-separated environment has an entry
// starting with prefix.
func hasEntry(environ []byte, prefix string) bool {
	for _, e := range bytes.Split(environ, []byte{0}) {
		if bytes.HasPrefix(e, []byte(prefix)) {
			return true
		}
	}
	return false
}

// exited reports whether the process at proc is a zombie (or gone).
func exited(proc string) bool {
	stat, err := os.ReadFile(proc + "/stat")
	if err != nil {
		return true
	}
	i := bytes.LastIndexByte(stat, ')')
	return i < 0 || i+2 >= len(stat) || stat[i+2] == 'Z' || stat[i+2] == 'X'
}

// serving reports whether every live worker process has registered its
// overview server with asynq. A worker registers two servers (overview
// tasks, and webhooks and maintenance), so the count of servers alone
// says nothing about how many workers are up; their PIDs do.
func (ws *workerSet) serving(t *testing.T, queue *asynq.Inspector) bool {
	t.Helper()
	servers, err := queue.Servers()
	if err != nil {
		t.Fatalf("asynq inspector: %v", err)
	}
	up := map[int]bool{}
	for _, srv := range servers {
		if _, ok := srv.Queues[jobs.QueueOverview]; ok {
			up[srv.PID] = true
		}
	}
	ws.mu.Lock()
	defer ws.mu.Unlock()
	for _, w := range ws.live {
		if !up[w.cmd.Process.Pid] {
			return false
		}
	}
	return len(ws.live) > 0
}

// recoverable reports whether asynq's recoverer, run now, would take
// every overview task that a killed worker left active: each active task
// that no live worker reports running has a lease (in asynq's sorted set
// of leases) that expired 30 s ago or earlier.
func (ws *workerSet) recoverable(t *testing.T, queue *asynq.Inspector, rdb *redis.Client) bool {
	t.Helper()
	servers, err := queue.Servers()
	if err != nil {
		t.Fatalf("asynq inspector: %v", err)
	}
	live := map[int]bool{}
	ws.mu.Lock()
	for _, w := range ws.live {
		live[w.cmd.Process.Pid] = true
	}
	ws.mu.Unlock()
	running := map[string]bool{}
	for _, srv := range servers {
		for _, w := range srv.ActiveWorkers {
			running[w.TaskID] = running[w.TaskID] || live[srv.PID]
		}
	}
	active, err := queue.ListActiveTasks(jobs.QueueOverview, asynq.PageSize(1000))
	if err != nil {
		t.Fatalf("asynq inspector: %v", err)
	}
	cutoff := time.Now().Add(-30 * time.Second)
	for _, task := range active {
		if running[task.ID] {
			continue
		}
		lease, err := rdb.ZScore(context.Background(), "asynq:{"+jobs.QueueOverview+"}:lease", task.ID).Result()
		if errors.Is(err, redis.Nil) {
			continue // it has just ended
		}
		if err != nil || time.Unix(int64(lease), 0).After(cutoff) {
			return false
		}
	}
	return true
}

// redisOf is a client of the stack's Redis database, closed when the test
// ends.
func redisOf(t *testing.T, s *stack) *redis.Client {
	t.Helper()
	opt, err := redis.ParseURL(s.env("REDIS_URL"))
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opt)
	t.Cleanup(func() { rdb.Close() })
	return rdb
}

// postStatus sends an overview request and returns its status, or the
// error as text; it may run on any goroutine.
func (s *stack) postStatus(body string) string {
	status, _, _, err := s.tryPost(body)
	if err != nil {
		return err.Error()
	}
	return strconv.Itoa(status)
}

// tryPost is postErr with the status alone, for goroutines other than
// the test's own.
func (s *stack) tryPost(body string) (int, overviewReply, []byte, error) {
	res, out, raw, err := s.postErr(body)
	if res == nil {
		return 0, out, raw, err
	}
	return res.StatusCode, out, raw, err
}

// errString is err's message, "" for nil.
func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
