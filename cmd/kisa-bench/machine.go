package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
)

// stackCPU is the CPU time spent so far, in seconds, by the whole machine
// (/proc/stat: every process, the kernel's interrupts included) and by
// the processes of the rest of the stack by name (kisa web, serpfixture,
// MinIO, PostgreSQL, Redis, wrk; each with the children it reaped), the
// worker's tree left out: what a visit costs beyond the worker, since the
// suite runs the whole stack on the same cores.
type stackCPU struct {
	machine float64
	byName  map[string]float64
}

// stackNames are the process names (comm) counted by name; the rest of
// the machine is "other".
var stackNames = map[string]string{"kisa": "web", "serpfixture": "serpfixture", "minio": "minio",
	"postgres": "postgres", "redis-server": "redis"}

// readStackCPU reads the machine's CPU time and the stack's by name,
// leaving out worker and its descendants.
func readStackCPU(worker int) stackCPU {
	out := stackCPU{byName: map[string]float64{}}
	if f, err := os.Open("/proc/stat"); err == nil {
		sc := bufio.NewScanner(f)
		if sc.Scan() {
			// cpu user nice system idle iowait irq softirq steal ...
			fields := strings.Fields(sc.Text())
			for i, v := range fields[1:] {
				if i == 3 || i == 4 || i > 7 { // idle, iowait; guest times are in user already
					continue
				}
				n, _ := strconv.ParseFloat(v, 64)
				out.machine += n / clockTicks
			}
		}
		f.Close()
	}
	skip := map[int]bool{}
	for _, p := range tree(worker) {
		skip[p.pid] = true
	}
	all := processes()
	for pid, p := range all {
		if skip[pid] {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "comm"))
		if err != nil {
			continue
		}
		if name, ok := stackNames[strings.TrimSpace(string(b))]; ok && !skip[p.ppid] {
			out.byName[name] += p.cpu
		}
	}
	return out
}

// stackShare is what the stack and the machine spent between a and b, per
// visit of n, and how busy the machine's cores were over wall seconds.
type stackShare struct {
	MachinePerVisit float64            `json:"machine_cpu_s_per_visit"`
	Busy            float64            `json:"machine_busy"` // 0 to 1: the share of every core's time
	ByName          map[string]float64 `json:"stack_cpu_s_per_visit"`
}

func shareOf(a, b stackCPU, n int, wall float64) stackShare {
	out := stackShare{MachinePerVisit: (b.machine - a.machine) / float64(n), ByName: map[string]float64{},
		Busy: (b.machine - a.machine) / (wall * float64(runtime.NumCPU()))}
	for k, v := range b.byName {
		// A process that ended meanwhile (a reaped PostgreSQL backend)
		// moved its time into its parent's: never negative.
		out.ByName[k] = max(v-a.byName[k], 0) / float64(n)
	}
	return out
}

// String reads "machine 1.20 CPU-s per visit, cores 95% busy (web 0.05, minio 0.10, ...)".
func (s stackShare) String() string {
	return fmt.Sprintf("machine %.2f CPU-s per visit, cores %.0f%% busy (%s)", s.MachinePerVisit, 100*s.Busy, byKind(s.ByName))
}
