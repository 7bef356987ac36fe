package browser

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/testenv"
)

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		edit func(*Config)
		want string // in the error; empty means valid
	}{
		{"valid", func(*Config) {}, ""},
		{"no tabs", func(c *Config) { c.Tabs = 0 }, "Tabs"},
		{"negative recycle", func(c *Config) { c.RecycleAfter = -1 }, "RecycleAfter"},
		{"no job timeout", func(c *Config) { c.VisitTimeout = 0 }, "VisitTimeout"},
		{"no settle quiet", func(c *Config) { c.SettleQuiet = 0 }, "SettleQuiet"},
		{"wait shorter than quiet", func(c *Config) { c.OverviewWait = c.SettleQuiet }, "OverviewWait"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := testConfig(t)
			tt.edit(&cfg)
			err := cfg.Validate()
			if got := errString(err); (tt.want == "") != (err == nil) || !strings.Contains(got, tt.want) {
				t.Errorf("Validate() = %q, want an error naming %q", got, tt.want)
			}
		})
	}
}

func TestNewPoolNoChromium(t *testing.T) {
	cfg := testConfig(t)
	cfg.ExecPath = filepath.Join(t.TempDir(), "no-such-chromium")
	_, err := NewPool(cfg)
	if err == nil || !strings.Contains(err.Error(), "apt-get install chromium") {
		t.Errorf("NewPool error = %v, want one saying `apt-get install chromium`", err)
	}
}

// TestClose checks that Close leaves no profile dir, no Chromium process
// and no unreaped browser behind, and that the pool then refuses visits.
func TestClose(t *testing.T) {
	s := newSite(t)
	p := newTestPool(t, nil)
	visitOK(t, p, s.url("/fast"))
	b := current(t, p)

	if err := p.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if _, err := os.Stat(b.dir); !os.IsNotExist(err) {
		t.Errorf("profile dir %s still there after Close (stat: %v)", b.dir, err)
	}
	if _, err := os.Stat("/proc/" + strconv.Itoa(b.pid)); !os.IsNotExist(err) {
		t.Errorf("chromium pid %d still exists after Close (not reaped?)", b.pid)
	}
	waitNoProcesses(t, b.dir)
	if _, err := p.Visit(t.Context(), VisitRequest{URL: s.url("/fast")}); !errors.Is(err, kisa.Unavailable) {
		t.Errorf("Visit after Close: error = %v, want kisa.Unavailable", err)
	}
	if err := p.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// visitOK visits url and fails the test on error.
func visitOK(tb testing.TB, p *Pool, url string) VisitResult {
	tb.Helper()
	res, err := p.Visit(context.Background(), VisitRequest{URL: url})
	if err != nil {
		tb.Fatalf("Visit %s: %v", url, err)
	}
	return res
}

// current returns the pool's running browser.
func current(tb testing.TB, p *Pool) *chromium {
	tb.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cur == nil {
		tb.Fatal("pool has no running browser")
	}
	return p.cur
}

// killBrowser SIGKILLs the pool's Chromium, as a crash would.
func killBrowser(tb testing.TB, p *Pool) {
	tb.Helper()
	b := current(tb, p)
	if err := syscall.Kill(b.pid, syscall.SIGKILL); err != nil {
		tb.Fatalf("kill chromium %d: %v", b.pid, err)
	}
}

// profileDirs lists the browser profile dirs in TMPDIR.
func profileDirs(tb testing.TB) []string {
	tb.Helper()
	dirs, err := filepath.Glob(filepath.Join(os.TempDir(), profilePrefix+"*"))
	if err != nil {
		tb.Fatal(err)
	}
	return dirs
}

// waitNoProcesses waits until no live process belongs to the browser of
// profile dir (named in its command line or environment), and fails the
// test if some are still there after 10s: Chromium's helpers exit shortly
// after the browser.
func waitNoProcesses(tb testing.TB, dir string) {
	tb.Helper()
	testenv.Eventually(tb, 10*time.Second, "the chromium processes of "+dir+" to exit after Close", func() bool {
		return len(browserProcesses(dir)) == 0
	})
}

// browserProcesses returns the pids of live processes whose command line
// or environment names dir.
func browserProcesses(dir string) []int {
	procs, _ := filepath.Glob("/proc/[0-9]*")
	var pids []int
	for _, proc := range procs {
		pid, _ := strconv.Atoi(filepath.Base(proc))
		if pid == os.Getpid() || isZombie(proc) {
			continue
		}
		cmdline, _ := os.ReadFile(proc + "/cmdline")
		environ, _ := os.ReadFile(proc + "/environ")
		if bytes.Contains(cmdline, []byte(dir)) || bytes.Contains(environ, []byte(profileEnv+"="+dir)) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// isZombie reports whether the process at proc has exited (state Z or X).
func isZombie(proc string) bool {
	stat, err := os.ReadFile(proc + "/stat")
	if err != nil {
		return true
	}
	i := bytes.LastIndexByte(stat, ')')
	return i < 0 || i+2 >= len(stat) || stat[i+2] == 'Z' || stat[i+2] == 'X'
}

// errString is err's message, or "" for nil.
func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
