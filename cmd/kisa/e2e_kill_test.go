package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/kisa-dev/kisa/serpfixture"
	"github.com/kisa-dev/kisa/testenv"
)

// TestWorkerKilledMidJob kills (SIGKILL) a worker process while it visits
// a page; asynq recovers the task once its lease expires and a second
// worker runs it, and the waiting request is answered. It takes about
// 100 s: asynq's lease (30 s) and recoverer pass (1 min) are fixed.
func TestWorkerKilledMidJob(t *testing.T) {
	bin := buildKisa(t) // first: the web process refuses requests after 30 s without a worker
	s := startStack(t, stackOptions{waitTimeout: "170s", noWorker: true,
		fixture: serpfixture.Options{OverviewDelay: 4 * time.Second}})
	first := exec.Command(bin, "worker")
	first.Env = append(os.Environ(), s.environ...)
	logs := &testenv.Buffer{}
	first.Stderr = logs
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { first.Process.Kill(); first.Wait() })

	const q = "what happens when a worker dies"
	type reply struct {
		status int
		out    overviewReply
		raw    []byte
	}
	done := make(chan reply, 1)
	go func() {
		res, out, raw, err := s.postErr(`{"query":"` + q + `","languageCode":"en","screenshots":true}`)
		if err != nil {
			t.Error(err)
			done <- reply{raw: raw}
			return
		}
		done <- reply{res.StatusCode, out, raw}
	}()
	testenv.Eventually(t, 60*time.Second, "the first worker to open the page", func() bool { return s.fixture.Visits(q) == 1 })
	if err := first.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	first.Wait()
	s.startProcess(t, "worker")

	select {
	case r := <-done:
		if r.status != 200 || !r.out.Data.Results.HasOverview {
			t.Fatalf("status %d, body %s\nfirst worker's log:\n%s", r.status, r.raw, logs.String())
		}
		s.checkScreenshots(t, r.out.Data.Results.Screenshots)
	case <-time.After(175 * time.Second):
		t.Fatal("the request was not answered after the worker died")
	}
	if n := s.fixture.Visits(q); n != 2 {
		t.Errorf("visits = %d, want 2 (the killed one and the recovered one)", n)
	}
}

// binDir holds the kisa binary that the tests build once (buildKisa).
var (
	binDir   string
	binOnce  sync.Once
	binBuild []byte
	binErr   error
)

// TestMain removes the binary built for the tests.
func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// buildKisa builds the binary once per test run and returns its path.
func buildKisa(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		if binDir, binErr = os.MkdirTemp("", "kisa-e2e-"); binErr == nil {
			binBuild, binErr = exec.Command("go", "build", "-o", filepath.Join(binDir, "kisa"), ".").CombinedOutput()
		}
	})
	if binErr != nil {
		t.Fatalf("go build: %v\n%s", binErr, binBuild)
	}
	return filepath.Join(binDir, "kisa")
}
