package browser

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSweepProfiles checks that only the profile dirs of dead workers are
// removed at start: a SIGKILLed worker cannot clean up after itself.
func TestSweepProfiles(t *testing.T) {
	tmp := t.TempDir()
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	names := []string{
		profilePrefix + strconv.Itoa(os.Getpid()) + "-1",      // live
		profilePrefix + strconv.Itoa(dead.Process.Pid) + "-2", // dead
		profilePrefix + "3", // no pid
		"other-dir-" + strconv.Itoa(dead.Process.Pid) + "-4", // not a profile
	}
	for _, name := range names {
		if err := os.Mkdir(filepath.Join(tmp, name), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	// What a dead browser's helper left in its dir is removed with it.
	if err := os.WriteFile(filepath.Join(tmp, names[1], "Local State"), []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	if n := sweepProfiles(tmp); n != 1 {
		t.Errorf("sweepProfiles removed %d dirs, want 1", n)
	}
	entries, err := os.ReadDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, e := range entries {
		left = append(left, e.Name())
	}
	want := []string{names[0], names[2], names[3]}
	slices.Sort(want) // as ReadDir sorts
	if diff := cmp.Diff(want, left); diff != "" {
		t.Errorf("dirs left (-want +got):\n%s", diff)
	}
}

// TestReapAsPID1 runs a pool as PID 1 of a new PID namespace, where
// Chromium's orphans are reparented to it, kills its browser, and checks
// that after Close no child at all is left, zombie or alive.
func TestReapAsPID1(t *testing.T) {
	if os.Getenv("KISA_TEST_PID1") == "1" {
		runAsPID1(t)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestReapAsPID1$", "-test.v")
	cmd.Env = append(os.Environ(), "KISA_TEST_PID1=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWPID}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if errors.Is(err, syscall.EPERM) {
		if os.Getenv("CI") == "true" {
			t.Fatal("no permission to create a PID namespace: run the tests as root (CAP_SYS_ADMIN)")
		}
		t.Skip("no permission to create a PID namespace (needs CAP_SYS_ADMIN)")
	}
	if err != nil {
		t.Fatalf("pool as PID 1: %v\n%s", err, out.Bytes())
	}
	if !strings.Contains(out.String(), "--- PASS: TestReapAsPID1") {
		t.Fatalf("pool as PID 1 did not pass:\n%s", out.Bytes())
	}
}

// runAsPID1 is TestReapAsPID1 inside the namespace.
func runAsPID1(t *testing.T) {
	if os.Getpid() != 1 {
		t.Fatalf("pid = %d, want 1", os.Getpid())
	}
	s := newSite(t)
	p := newTestPool(t, func(c *Config) { c.Tabs = 1 })
	visitOK(t, p, s.url("/fast"))
	killBrowser(t, p)
	visitOK(t, p, s.url("/fast"))
	if err := p.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	var ws syscall.WaitStatus
	pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
	if !errors.Is(err, syscall.ECHILD) {
		t.Errorf("after Close: Wait4 = %d, %v; want ECHILD (no child left)", pid, err)
	}
}
