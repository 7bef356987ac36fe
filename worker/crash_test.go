package worker

import (
	"bytes"
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/kisa-dev/kisa/jobs"
	"github.com/kisa-dev/kisa/overview"
	"github.com/kisa-dev/kisa/serpfixture"
	"github.com/kisa-dev/kisa/storage"
	"github.com/kisa-dev/kisa/testenv"
	"github.com/kisa-dev/kisa/worker/browser"
)

// TestChromiumKilledMidJob kills the worker's Chromium (SIGKILL, as a
// crash would) while a task's visit waits for the overview to stream in:
// the pool relaunches it, asynq retries the task, which then succeeds,
// and the next tasks succeed too. (browser's TestCrashRecovery checks the
// pool alone; this checks the handler's retryable failure and the retry
// through a real asynq server.)
func TestChromiumKilledMidJob(t *testing.T) {
	rdb := testenv.Redis(t)
	fixture := serpfixture.New(serpfixture.Options{OverviewDelay: 4 * time.Second})
	fx := httptest.NewServer(fixture)
	t.Cleanup(fx.Close)
	timing := overview.Timing{Wait: 2 * time.Minute, Visit: 30 * time.Second, MaxRetry: 2}
	pool := startPool(t, timing.Visit)
	results := testenv.Results(t, rdb, "test:")
	h, err := NewHandler(HandlerOptions{Pool: pool, Artifacts: testArtifacts(t), Finisher: testFinisher(t, rdb, results), SearchURL: fx.URL + "/search",
		Observer: NewMetrics(prometheus.NewRegistry(), pool)})
	if err != nil {
		t.Fatal(err)
	}
	srv := NewServer(rdb, ServerOptions{Concurrency: 1, Timing: timing})
	if err := srv.Start(Mux(h)); err != nil {
		t.Fatalf("start asynq server: %v", err)
	}
	t.Cleanup(srv.Shutdown)
	client := asynq.NewClientFromRedisClient(rdb)

	const q = "what happens when chromium dies"
	w := submit(t, client, results, timing, q)
	testenv.Eventually(t, 60*time.Second, "the visit to reach the page", func() bool { return fixture.Visits(q) == 1 })
	killed := chromiumPID(t)
	if err := syscall.Kill(killed, syscall.SIGKILL); err != nil {
		t.Fatalf("kill chromium %d: %v", killed, err)
	}
	checkSucceeds(t, w, q)
	if n := fixture.Visits(q); n != 2 {
		t.Errorf("the page was visited %d times, want 2 (the killed visit and the retry)", n)
	}
	if pid := chromiumPID(t); pid == killed {
		t.Errorf("chromium pid %d still the killed one, want a relaunched browser", pid)
	}
	for _, next := range []string{"why is the sky blue", "best hiking boots"} {
		checkSucceeds(t, submit(t, client, results, timing, next), next)
	}
}

// startPool starts a one-tab pool, closed when the test ends.
func startPool(t *testing.T, visit time.Duration) *browser.Pool {
	t.Helper()
	pool, err := browser.NewPool(browser.Config{ExecPath: testenv.Chromium(t), Tabs: 1, VisitTimeout: visit,
		SettleQuiet: 300 * time.Millisecond, OverviewWait: 10 * time.Second, OverviewAppear: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if err := pool.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := pool.Close(); err != nil {
			t.Errorf("close pool: %v", err)
		}
	})
	return pool
}

// submit enqueues an overview task for query (no screenshots) and returns
// the subscription to its outcome, closed when the test ends.
func submit(t *testing.T, client *asynq.Client, results *storage.Results, timing overview.Timing, query string) *storage.Waiter {
	t.Helper()
	key := "k-" + testenv.RandomHex(4)
	w, err := results.Subscribe(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	task, err := jobs.NewOverviewTask(jobs.OverviewPayload{Key: key, Query: query, CountryCode: "us",
		LanguageCode: "en"}, timing.Task(), timing.MaxRetry)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.Enqueue(task); err != nil {
		t.Fatalf("enqueue: %v", err)
	}
	return w
}

// checkSucceeds waits for the outcome on w and fails the test unless it is
// a result with an overview.
func checkSucceeds(t *testing.T, w *storage.Waiter, query string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	out, err := w.Wait(ctx)
	switch {
	case err != nil:
		t.Fatalf("%q: no outcome: %v", query, err)
	case out.Result == nil || !out.Result.Overview.HasOverview:
		t.Fatalf("%q: outcome %+v, want a result with an overview", query, out)
	}
}

// chromiumPID returns the pid of the Chromium that this test process
// launched: its child whose command line names a kisa profile dir.
func chromiumPID(t *testing.T) int {
	t.Helper()
	procs, _ := filepath.Glob("/proc/[0-9]*")
	for _, proc := range procs {
		stat, err := os.ReadFile(proc + "/stat")
		i := bytes.LastIndexByte(stat, ')')
		if err != nil || i < 0 {
			continue
		}
		var state string
		var ppid int
		if _, err := fmt.Sscan(string(stat[i+1:]), &state, &ppid); err != nil || ppid != os.Getpid() || state == "Z" {
			continue
		}
		cmdline, _ := os.ReadFile(proc + "/cmdline")
		if bytes.Contains(cmdline, []byte("kisa-chromium-")) {
			pid, _ := strconv.Atoi(filepath.Base(proc))
			return pid
		}
	}
	t.Fatal("no Chromium child process found")
	return 0
}
