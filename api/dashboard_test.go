package api

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/hibiken/asynq"
	"github.com/hibiken/asynqmon"

	"github.com/kisa-dev/kisa/jobs"
	"github.com/kisa-dev/kisa/testenv"
)

// dashboardServer serves the API with asynqmon on the test Redis behind
// the admin token, on a real listener, with one pending overview task.
func dashboardServer(t *testing.T) (*httptest.Server, *asynq.Inspector, string) {
	t.Helper()
	rdb := testenv.Redis(t)
	opt := rdb.Options()
	mon := asynqmon.New(asynqmon.Options{RootPath: DashboardPath,
		RedisConnOpt: asynq.RedisClientOpt{Addr: opt.Addr, DB: opt.DB, Password: opt.Password}})
	t.Cleanup(func() { mon.Close() })
	srv := newTestServer(t, 0, func(o *Options) { o.AdminToken, o.Dashboard = testAdminToken, mon })
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	task, err := jobs.NewOverviewTask(jobs.OverviewPayload{Key: "dashboard-" + testenv.RandomHex(4), Query: "dashboard test",
		CountryCode: "us", LanguageCode: "en"}, time.Minute, 1)
	if err != nil {
		t.Fatal(err)
	}
	client := asynq.NewClientFromRedisClient(rdb)
	info, err := client.Enqueue(task)
	if err != nil {
		t.Fatal(err)
	}
	return hs, asynq.NewInspectorFromRedisClient(rdb), info.ID
}

// TestDashboardRequiresToken: without the credential the dashboard asks
// for it; without a token configured it does not exist.
func TestDashboardRequiresToken(t *testing.T) {
	hs, _, _ := dashboardServer(t)
	res, err := http.Get(hs.URL + DashboardPath)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(res.Header.Get("WWW-Authenticate"), "Basic ") {
		t.Errorf("no credential: %d, WWW-Authenticate %q; want 401 with a Basic challenge", res.StatusCode, res.Header.Get("WWW-Authenticate"))
	}
	without := newTestServer(t, 0, func(o *Options) { o.Dashboard = http.NotFoundHandler() })
	req := request(http.MethodGet, DashboardPath, "", "")
	req.SetBasicAuth("admin", testAdminToken)
	checkJSON(t, do(t, without, req), http.StatusNotFound, `{"status":false,"error":"no such endpoint"}`)
}

// TestDashboardDeletesTask: operators can act on tasks (not read-only).
func TestDashboardDeletesTask(t *testing.T) {
	hs, inspector, id := dashboardServer(t)
	req, err := http.NewRequest(http.MethodDelete, hs.URL+DashboardPath+"/api/queues/"+jobs.QueueOverview+"/pending_tasks/"+id, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.SetBasicAuth("operator", testAdminToken)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusNoContent {
		t.Errorf("DELETE pending task: %d, want 204", res.StatusCode)
	}
	if _, err := inspector.GetTaskInfo(jobs.QueueOverview, id); err == nil {
		t.Errorf("task %s still there after the dashboard deleted it", id)
	}
}

// TestDashboardInBrowser opens the dashboard as a person would, in
// headless Chromium with the admin token, and reads the rendered page:
// the overview queue on the home page, the pending task on its page. A
// screenshot is kept in .data/artifacts/dashboard.png.
func TestDashboardInBrowser(t *testing.T) {
	hs, _, id := dashboardServer(t)
	ctx := browserContext(t)
	var home, queue string
	var shot []byte
	err := chromedp.Run(ctx,
		network.Enable(),
		network.SetExtraHTTPHeaders(network.Headers{"Authorization": "Bearer " + testAdminToken}),
		chromedp.Navigate(hs.URL+DashboardPath),
		chromedp.WaitVisible(`//table//a[normalize-space(text())="`+jobs.QueueOverview+`"]`, chromedp.BySearch),
		chromedp.Text(`//table//tr[.//a[normalize-space(text())="`+jobs.QueueOverview+`"]]`, &home, chromedp.BySearch),
		chromedp.FullScreenshot(&shot, 100),
		chromedp.Navigate(hs.URL+DashboardPath+"/queues/"+jobs.QueueOverview+"?status=pending"),
		chromedp.WaitVisible(`//*[contains(text(), "`+id[:8]+`")]`, chromedp.BySearch),
		chromedp.Text(`body`, &queue, chromedp.ByQuery),
	)
	if err != nil {
		t.Fatalf("dashboard in Chromium: %v", err)
	}
	if f := strings.Fields(home); len(f) < 3 || f[0] != jobs.QueueOverview || f[1] != "run" || f[2] != "1" {
		t.Errorf("home page's queue row = %q, want the overview queue, running, with 1 task", home)
	}
	if !strings.Contains(queue, "Pending") {
		t.Errorf("queue page does not show the pending tasks:\n%.500s", queue)
	}
	saveArtifact(t, "dashboard.png", shot)
}

// browserContext is a headless Chromium tab that ends with the test.
func browserContext(t *testing.T) context.Context {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(testenv.Chromium(t)), chromedp.Headless, chromedp.NoSandbox, chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck, chromedp.WindowSize(1280, 900),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("disable-gpu", true), chromedp.Flag("disable-dev-shm-usage", true),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(actx)
	ctx, cancelTime := context.WithTimeout(ctx, 60*time.Second)
	t.Cleanup(func() { cancelTime(); cancelTab(); cancelAlloc() })
	return ctx
}

// saveArtifact writes a test artefact under the repository's .data/artifacts.
func saveArtifact(t *testing.T, name string, b []byte) {
	t.Helper()
	dir := filepath.Join("..", ".data", "artifacts")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", filepath.Join(dir, name))
}
