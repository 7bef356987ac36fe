package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// procInfo is one process of /proc: parent, state, resident memory and
// CPU time.
type procInfo struct {
	pid, ppid int
	state     string
	rssKB     int
	// cpu is the process's user + system time and that of its children
	// it has reaped (cutime, cstime), in seconds.
	cpu float64
}

// processes reads every process of /proc.
func processes() map[int]procInfo {
	out := map[int]procInfo{}
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		pid, _ := strconv.Atoi(filepath.Base(d))
		b, err := os.ReadFile(filepath.Join(d, "stat"))
		if err != nil {
			continue
		}
		// The command name is in parentheses and may hold spaces.
		f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
		if len(f) < 22 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		pages, _ := strconv.Atoi(f[21])
		var ticks float64
		for _, i := range []int{11, 12, 13, 14} { // utime, stime, cutime, cstime: fields 14 to 17
			v, _ := strconv.ParseFloat(f[i], 64)
			ticks += v
		}
		out[pid] = procInfo{pid: pid, ppid: ppid, state: f[0], rssKB: pages * os.Getpagesize() / 1024, cpu: ticks / clockTicks}
	}
	return out
}

// tree is root and its descendants.
func tree(root int) []procInfo {
	all := processes()
	kids := map[int][]int{}
	for _, p := range all {
		kids[p.ppid] = append(kids[p.ppid], p.pid)
	}
	var out []procInfo
	todo := []int{root}
	for len(todo) > 0 {
		pid := todo[0]
		todo = todo[1:]
		if p, ok := all[pid]; ok {
			out = append(out, p)
		}
		todo = append(todo, kids[pid]...)
	}
	return out
}

// rssMB is the resident memory of root and its descendants (Chromium's
// helpers share pages, so the sum overstates what the machine spends).
func rssMB(root int) float64 {
	kb := 0
	for _, p := range tree(root) {
		kb += p.rssKB
	}
	return float64(kb) / 1024
}

// treeCPU is the CPU time, in seconds, spent so far by root and every
// descendant, alive or ended: a process's own time plus what its reaped
// children spent (cutime), summed over the processes alive now (a child's
// time moves into its parent's cutime only when the parent reaps it, so
// nothing counts twice). Chromium's renderers, started and reaped inside
// the tree during a visit, count this way.
func treeCPU(root int) float64 {
	var sum float64
	for _, p := range tree(root) {
		sum += p.cpu
	}
	return sum
}

// treeCPUByKind is treeCPU split by kind of process: the root itself
// ("worker"), Chromium's browser process, and its helpers by their
// --type (renderer, gpu-process, utility, zygote, ...), each with the time
// of the children it reaped.
func treeCPUByKind(root int) map[string]float64 {
	out := map[string]float64{}
	for _, p := range tree(root) {
		out[procKind(p.pid, root)] += p.cpu
	}
	return out
}

// procKind names what process pid is, from its command line.
func procKind(pid, root int) string {
	if pid == root {
		return "worker"
	}
	// Chromium's helpers rewrite their command line as one string of
	// space-separated arguments (setproctitle), others keep NUL-separated
	// ones.
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	for _, arg := range strings.Fields(strings.ReplaceAll(string(b), "\x00", " ")) {
		if t, ok := strings.CutPrefix(arg, "--type="); ok {
			return t
		}
	}
	return "browser"
}

// zombies returns the defunct processes under root.
func zombies(root int) map[int]bool {
	z := map[int]bool{}
	for _, p := range tree(root) {
		if p.state == "Z" {
			z[p.pid] = true
		}
	}
	return z
}

// lastingZombies counts the defunct processes under root that are still
// there two seconds later: a child that just exited is a zombie until its
// parent reaps it, which is not a leak.
func lastingZombies(root int) int {
	first := zombies(root)
	time.Sleep(2 * time.Second)
	n := 0
	for pid := range zombies(root) {
		if first[pid] {
			n++
		}
	}
	return n
}

// pssMB is the proportional set size of root and its descendants: each
// shared page counts once over the processes that share it, so the sum is
// what the tree costs the machine (RSS sums overstate it).
func pssMB(root int) float64 {
	kb := 0
	for _, p := range tree(root) {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps_rollup", p.pid))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n") {
			if f := strings.Fields(line); len(f) >= 2 && f[0] == "Pss:" {
				v, _ := strconv.Atoi(f[1])
				kb += v
			}
		}
	}
	return float64(kb) / 1024
}

// peakSampler samples a process tree's RSS and PSS every 250 ms until
// stopped.
type peakSampler struct {
	mu      sync.Mutex
	peak    float64
	peakPSS float64
	stop    chan struct{}
	done    chan struct{}
}

func samplePeak(root int) *peakSampler {
	p := &peakSampler{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(p.done)
		for {
			v, pss := rssMB(root), pssMB(root)
			p.mu.Lock()
			p.peak, p.peakPSS = max(p.peak, v), max(p.peakPSS, pss)
			p.mu.Unlock()
			select {
			case <-p.stop:
				return
			case <-time.After(250 * time.Millisecond):
			}
		}
	}()
	return p
}

// end stops sampling and returns the peak RSS and the peak PSS in MB.
func (p *peakSampler) end() (rss, pss float64) {
	close(p.stop)
	<-p.done
	return p.peak, p.peakPSS
}

// profiles counts Chromium profile directories in dir.
func profiles(dir string) int {
	m, _ := filepath.Glob(filepath.Join(dir, "kisa-chromium-*"))
	return len(m)
}

func mb(v float64) string { return fmt.Sprintf("%.0f MB", v) }
