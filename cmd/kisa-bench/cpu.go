package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"
)

// clockTicks is the unit of /proc/<pid>/stat's times (USER_HZ, 100 on
// Linux on every architecture Go supports).
const clockTicks = 100

// cpuSample is a reading of the CPU time spent so far by a server process
// and by Redis, and of the Redis calls of the limiter's script, taken
// before and after a wrk run so that a run can say what one request cost.
type cpuSample struct {
	proc      float64 // seconds, user + system, of the process
	redis     float64 // seconds, user + system, of the Redis server
	evalCalls float64 // EVALSHA calls Redis has counted
	evalUsec  float64 // microseconds Redis spent in them
}

// procCPU is pid's user + system CPU time in seconds, 0 when unknown.
func procCPU(pid int) float64 {
	if pid <= 0 {
		return 0
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The command name (field 2) may hold spaces; count from after it.
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return 0
	}
	utime, _ := strconv.ParseFloat(f[11], 64) // field 14 of the line
	stime, _ := strconv.ParseFloat(f[12], 64) // field 15
	return (utime + stime) / clockTicks
}

// sampleCPU reads pid's CPU time and Redis's (INFO cpu, commandstats);
// Redis's parts stay 0 when it cannot be asked.
func sampleCPU(ctx context.Context, rdb *redis.Client, pid int) cpuSample {
	c := cpuSample{proc: procCPU(pid)}
	if rdb == nil {
		return c
	}
	info, err := rdb.Info(ctx, "cpu", "commandstats").Result()
	if err != nil {
		return c
	}
	for line := range strings.Lines(info) {
		line = strings.TrimSpace(line)
		if k, v, ok := strings.Cut(line, ":"); ok && (k == "used_cpu_sys" || k == "used_cpu_user") {
			x, _ := strconv.ParseFloat(v, 64)
			c.redis += x
		}
		if v, ok := strings.CutPrefix(line, "cmdstat_evalsha:"); ok {
			for _, kv := range strings.Split(v, ",") {
				k, x, _ := strings.Cut(kv, "=")
				n, _ := strconv.ParseFloat(x, 64)
				switch k {
				case "calls":
					c.evalCalls = n
				case "usec":
					c.evalUsec = n
				}
			}
		}
	}
	return c
}

// perRequest fills r's CPU figures from the samples taken around it.
func (r *wrkRun) perRequest(before, after cpuSample) {
	if r.Requests <= 0 {
		return
	}
	n, calls := float64(r.Requests), after.evalCalls-before.evalCalls
	r.ProcCPUus = (after.proc - before.proc) * 1e6 / n
	r.RedisCPUus = (after.redis - before.redis) * 1e6 / n
	r.ScriptCalls = calls / n
	if calls > 0 {
		r.ScriptUsec = (after.evalUsec - before.evalUsec) / calls
	}
}
