package main

import (
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kisa-dev/kisa/serpfixture"
	"github.com/kisa-dev/kisa/testenv"
)

// startBinary runs `kisa <cmd>` as a process of its own with the stack's
// settings (plus env), and kills it if it still runs when the test ends.
func (s *stack) startBinary(t *testing.T, cmd string, env ...string) (*exec.Cmd, *testenv.Buffer) {
	t.Helper()
	c := exec.Command(buildKisa(t), cmd)
	c.Env = append(append(os.Environ(), s.environ...), env...)
	logs := &testenv.Buffer{}
	c.Stderr = logs
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if c.ProcessState == nil {
			c.Process.Kill()
			c.Wait()
		}
	})
	return c, logs
}

// descendants lists the live processes below pid (children, their
// children...), read from /proc.
func descendants(pid int) []int {
	parent := map[int]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so cut after ')'.
		fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(fields) > 1 && fields[0] != "Z" {
			parent[p], _ = strconv.Atoi(fields[1])
		}
	}
	var out []int
	for p := range parent {
		for q := parent[p]; q > 1; q = parent[q] {
			if q == pid {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

// alive keeps the pids that still run (zombies count as gone).
func alive(pids []int) []int {
	var out []int
	for _, p := range pids {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(p) + "/stat")
		if err == nil && !strings.Contains(string(stat[strings.LastIndexByte(string(stat), ')'):]), ") Z") {
			out = append(out, p)
		}
	}
	return out
}

// TestSIGTERM stops web and worker processes with SIGTERM while a
// request waits on a job in a browser tab: the worker finishes the job
// within KISA_SHUTDOWN_TIMEOUT, web answers the request, both exit 0, and
// no Chromium process is left.
func TestSIGTERM(t *testing.T) {
	s := startStack(t, stackOptions{waitTimeout: "25s", noWorker: true, env: quickJobs,
		fixture: serpfixture.Options{OverviewDelay: 3 * time.Second}})
	web, webLogs := s.startBinary(t, "web", "KISA_SHUTDOWN_TIMEOUT=20s")
	base := "http://" + listenAddr(t, webLogs, "web listening")
	worker, workerLogs := s.startBinary(t, "worker", "KISA_SHUTDOWN_TIMEOUT=20s")
	testenv.Eventually(t, 30*time.Second, "the worker to start", func() bool { return strings.Contains(workerLogs.String(), "worker started") })
	browsers := descendants(worker.Process.Pid)
	if len(browsers) == 0 {
		t.Fatalf("the worker has no Chromium process; its log:\n%s", workerLogs)
	}

	const q = "what happens on sigterm"
	s.base = base
	done := make(chan int, 1)
	go func() {
		res, _, _, err := s.postErr(`{"query":"` + q + `","languageCode":"en","screenshots":true}`)
		if err != nil {
			t.Error(err)
			done <- 0
			return
		}
		done <- res.StatusCode
	}()
	testenv.Eventually(t, 30*time.Second, "the worker to open the page", func() bool { return s.fixture.Visits(q) == 1 })
	browsers = append(browsers, descendants(worker.Process.Pid)...)
	for _, p := range []*exec.Cmd{web, worker} {
		if err := p.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
	}
	if code := <-done; code != http.StatusOK {
		t.Errorf("the request in flight got %d, want 200", code)
	}
	for name, p := range map[string]*exec.Cmd{"web": web, "worker": worker} {
		if err := p.Wait(); err != nil {
			logs := map[string]*testenv.Buffer{"web": webLogs, "worker": workerLogs}[name]
			t.Errorf("kisa %s after SIGTERM: %v, want exit 0; log:\n%s", name, err, logs)
		}
	}
	testenv.Eventually(t, 5*time.Second, "the Chromium processes to end", func() bool { return len(alive(browsers)) == 0 })
	if n := s.fixture.Visits(q); n != 1 {
		t.Errorf("visits = %d, want 1 (the job was finished, not handed back)", n)
	}
}
