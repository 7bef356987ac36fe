package main

import (
	"os"
	"os/exec"
	"testing"
)

// TestProcKind: the root of a tree is the worker, a helper is named by its
// --type argument, and a process without one is the browser.
func TestProcKind(t *testing.T) {
	helper := exec.Command("sh", "-c", "sleep 30", "--type=renderer")
	// As Chromium's helpers show it: one argument holding them all.
	rewritten := exec.Command("sh", "-c", "sleep 30", "/usr/lib/chromium/chromium --type=gpu-process --no-sandbox")
	browser := exec.Command("sleep", "30")
	for _, c := range []*exec.Cmd{helper, rewritten, browser} {
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() { c.Process.Kill(); c.Wait() }()
	}
	root := os.Getpid()
	for pid, want := range map[int]string{root: "worker", helper.Process.Pid: "renderer", rewritten.Process.Pid: "gpu-process",
		browser.Process.Pid: "browser"} {
		if got := procKind(pid, root); got != want {
			t.Errorf("procKind(%d) = %q, want %q", pid, got, want)
		}
	}
	if by := treeCPUByKind(root); len(by) == 0 || by["worker"] <= 0 {
		t.Errorf("treeCPUByKind = %v, want the test process's own CPU as worker", by)
	}
}
