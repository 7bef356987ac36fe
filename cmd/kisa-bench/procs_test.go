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
	browser := exec.Command("sleep", "30")
	for _, c := range []*exec.Cmd{helper, browser} {
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() { c.Process.Kill(); c.Wait() }()
	}
	root := os.Getpid()
	for pid, want := range map[int]string{root: "worker", helper.Process.Pid: "renderer", browser.Process.Pid: "browser"} {
		if got := procKind(pid, root); got != want {
			t.Errorf("procKind(%d) = %q, want %q", pid, got, want)
		}
	}
	if by := treeCPUByKind(root); len(by) == 0 || by["worker"] <= 0 {
		t.Errorf("treeCPUByKind = %v, want the test process's own CPU as worker", by)
	}
}
