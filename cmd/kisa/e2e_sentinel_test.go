package main

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"github.com/kisa-dev/kisa/config"
	"github.com/kisa-dev/kisa/jobs"
	"github.com/kisa-dev/kisa/serpfixture"
	"github.com/kisa-dev/kisa/testenv"
)

// sentinelSet is a master, its replica and three sentinels watching them
// as "mymaster", all on loopback, with a failure noticed after 1 s.
type sentinelSet struct {
	master, replica *testenv.RedisServer
	sentinels       []*testenv.RedisServer
}

func startSentinelSet(t *testing.T) sentinelSet {
	t.Helper()
	master := testenv.StartRedisServer(t, 0, "--repl-diskless-sync-delay", "0")
	replica := testenv.StartRedisServer(t, 0, "--replicaof", "127.0.0.1", strconv.Itoa(master.Port))
	s := sentinelSet{master: master, replica: replica}
	for range 3 {
		sn := testenv.StartRedisServer(t, 0, "--sentinel")
		sn.Do("SENTINEL", "MONITOR", "mymaster", "127.0.0.1", master.Port, 2)
		sn.Do("SENTINEL", "SET", "mymaster", "down-after-milliseconds", 1000, "failover-timeout", 5000)
		s.sentinels = append(s.sentinels, sn)
	}
	testenv.Eventually(t, 20*time.Second, "the replica to sync", func() bool {
		return strings.Contains(fmt.Sprint(replica.Do("INFO", "replication")), "master_link_status:up")
	})
	return s
}

// url is REDIS_URL for the set.
func (s sentinelSet) url() string {
	var addrs []string
	for _, sn := range s.sentinels {
		addrs = append(addrs, sn.Addr())
	}
	return "redis-sentinel://" + strings.Join(addrs, ",") + "/mymaster/0"
}

// masterPort is the master port the first sentinel names now.
func (s sentinelSet) masterPort() string {
	v, _ := s.sentinels[0].Do("SENTINEL", "get-master-addr-by-name", "mymaster").([]any)
	if len(v) != 2 {
		return ""
	}
	return fmt.Sprint(v[1])
}

// recoverRunning is when a running worker has recovered a task that was
// active when its master died: the task's lease (30 s from its last
// extension) has expired, asynq's recoverer takes only tasks whose lease
// expired 30 s ago or earlier, and it runs once a minute (no new server
// starts here to run it at once, as in TestKillLoop); then the retry
// runs (a visit of a few seconds).
const recoverRunning = 30*time.Second + 30*time.Second + time.Minute + 20*time.Second

// TestSentinelFailover kills the Redis master while overview requests
// wait on their tasks: the sentinels promote the replica, kisa follows it
// without a restart, requests fail with 503 at most during the switch,
// and every task enqueued before the kill still runs.
func TestSentinelFailover(t *testing.T) {
	set := startSentinelSet(t)
	s := startStack(t, stackOptions{waitTimeout: "21s", fixture: serpfixture.Options{OverviewDelay: -1},
		env: []string{"REDIS_URL=" + set.url(), "KISA_BROWSER_CONCURRENCY=1", "KISA_VISIT_TIMEOUT=6s",
			"KISA_OVERVIEW_WAIT=3s", "KISA_OVERVIEW_APPEAR=1s", "KISA_OVERVIEW_SETTLE=200ms"}})
	opt, err := config.ParseSentinelURL(set.url())
	if err != nil {
		t.Fatal(err)
	}
	fc := redis.NewFailoverClient(opt)
	t.Cleanup(func() { fc.Close() })
	s.queue = asynq.NewInspectorFromRedisClient(fc)

	const n = 6
	body := func(i int) string {
		return fmt.Sprintf(`{"query":"failover question %d","languageCode":"en","screenshots":false}`, i)
	}
	codes := make(chan [2]int, n)
	for i := range n {
		go func() {
			res, _, _, err := s.postErr(body(i))
			if err != nil {
				t.Error(err)
				codes <- [2]int{i, 0}
				return
			}
			retryAfter := 1
			if res.StatusCode != http.StatusOK && res.Header.Get("Retry-After") == "" {
				retryAfter = 0
			}
			codes <- [2]int{i, res.StatusCode*10 + retryAfter}
		}()
	}
	testenv.Eventually(t, 20*time.Second, "the tasks to be enqueued", func() bool {
		q, err := s.queue.GetQueueInfo(jobs.QueueOverview)
		return err == nil && q.Pending+q.Active+q.Completed >= n-1
	})
	if acked := set.master.Do("WAIT", 1, 5000); acked != int64(1) {
		t.Fatalf("WAIT: %v replicas have the tasks, want 1", acked)
	}
	set.master.Kill()
	killed := time.Now()
	testenv.Eventually(t, 30*time.Second, "the sentinels to promote the replica", func() bool { return set.masterPort() == strconv.Itoa(set.replica.Port) })

	var retry []int
	for range n {
		r := <-codes
		switch r[1] {
		case 2001:
		case 5031:
			retry = append(retry, r[0])
		default:
			t.Errorf("request %d: status %d (Retry-After present: %v), want 200 or 503 with Retry-After", r[0], r[1]/10, r[1]%10 == 1)
		}
	}
	t.Logf("%d of %d requests were answered 503 during the switch", len(retry), n)
	// A task whose completion was written to the master that died stays
	// active on the new one until asynq's recoverer takes it back, so a
	// client that was told 503 retries, as Retry-After tells it to, until
	// then.
	for _, i := range retry {
		testenv.Eventually(t, recoverRunning, fmt.Sprintf("request %d to be answered 200 on retry", i), func() bool {
			status, _, _, err := s.tryPost(body(i))
			if err == nil && status != http.StatusOK && status != http.StatusServiceUnavailable {
				t.Fatalf("retry of request %d: status %d, want 200 or 503", i, status)
			}
			return err == nil && status == http.StatusOK
		})
	}
	s.mustOK(t, `{"query":"after the failover","languageCode":"en","screenshots":false}`)
	s.waitIdleWithin(t, recoverRunning)
	t.Logf("the queue was empty %s after the kill", time.Since(killed).Round(time.Second))
	// The worker's two schedulers (maintenance, monitors) follow the new
	// master too: each writes its heartbeat (asynq:schedulers, scored
	// with the time it expires, 20 s after it was written) every 10 s.
	testenv.Eventually(t, time.Minute, "both schedulers to write their heartbeat to the new master", func() bool {
		n, err := fc.ZCount(t.Context(), "asynq:schedulers", strconv.FormatInt(killed.Add(21*time.Second).Unix(), 10), "+inf").Result()
		return err == nil && n >= 2
	})
	q, err := s.queue.GetQueueInfo(jobs.QueueOverview)
	if err != nil || q.Archived != 0 {
		t.Errorf("queue after the failover: %+v, %v; want no archived (failed) task", q, err)
	}
	for i := range n {
		if v := s.fixture.Visits(fmt.Sprintf("failover question %d", i)); v < 1 {
			t.Errorf("task %d was lost: its page was never visited", i)
		}
	}
}
