package testenv

import (
	"context"
	"net"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// RedisServer is a redis-server of a test's own on a free loopback port,
// that the test may kill and start again (same port, empty data), e.g.
// to restart Redis under a running service or to build a Sentinel set.
type RedisServer struct {
	tb   testing.TB
	Port int
	args []string
	cmd  *exec.Cmd
	Logs *Buffer
}

// StartRedisServer runs redis-server (or `redis-server --sentinel` when
// args start with "--sentinel") with args after a port of its own, no
// persistence and a working folder under the test's temporary folder. It
// waits until the server accepts connections, and stops it when the test
// ends. Pass port 0 for a free port.
func StartRedisServer(tb testing.TB, port int, args ...string) *RedisServer {
	tb.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		tb.Fatalf("redis-server not found: apt-get install redis-server; %s", startHint)
	}
	if port == 0 {
		port = FreePort(tb)
	}
	s := &RedisServer{tb: tb, Port: port, args: args, Logs: &Buffer{}}
	s.Start()
	tb.Cleanup(s.Kill)
	return s
}

// Addr is the server's host:port.
func (s *RedisServer) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.Port)) }

// Start starts the server (again) and waits until its port accepts.
func (s *RedisServer) Start() {
	s.tb.Helper()
	var args []string
	if len(s.args) > 0 && s.args[0] == "--sentinel" {
		args = append(args, s.tb.TempDir()+"/sentinel.conf", "--sentinel")
		s.writeEmpty(args[0])
		args = append(args, s.args[1:]...)
	}
	args = append(args, "--port", strconv.Itoa(s.Port), "--bind", "127.0.0.1", "--dir", s.tb.TempDir())
	if len(s.args) == 0 || s.args[0] != "--sentinel" {
		args = append(args, "--save", "", "--appendonly", "no")
		args = append(args, s.args...)
	}
	s.cmd = exec.Command("redis-server", args...)
	s.cmd.Stdout, s.cmd.Stderr = s.Logs, s.Logs
	if err := s.cmd.Start(); err != nil {
		s.tb.Fatalf("start redis-server: %v", err)
	}
	s.waitListening()
}

// writeEmpty creates the config file that sentinel rewrites.
func (s *RedisServer) writeEmpty(path string) {
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		s.tb.Fatal(err)
	}
}

func (s *RedisServer) waitListening() {
	s.tb.Helper()
	listening := false
	defer func() {
		if !listening {
			s.tb.Logf("redis-server on %s wrote:\n%s", s.Addr(), s.Logs)
		}
	}()
	Eventually(s.tb, 10*time.Second, "redis-server to accept connections on "+s.Addr(), func() bool {
		c, err := net.Dial("tcp", s.Addr())
		if err == nil {
			c.Close()
		}
		return err == nil
	})
	listening = true
}

// Kill stops the server at once (SIGKILL), as a crash would.
func (s *RedisServer) Kill() {
	if s.cmd != nil && s.cmd.Process != nil {
		s.cmd.Process.Kill()
		s.cmd.Wait()
		s.cmd = nil
	}
}

// Client returns a client of database 0 of the server, closed when the
// test ends.
func (s *RedisServer) Client() *redis.Client {
	rdb := redis.NewClient(&redis.Options{Addr: s.Addr()})
	s.tb.Cleanup(func() { rdb.Close() })
	return rdb
}

// Do runs one command on the server and fails the test on an error.
func (s *RedisServer) Do(args ...any) any {
	s.tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	rdb := redis.NewClient(&redis.Options{Addr: s.Addr()})
	defer rdb.Close()
	v, err := rdb.Do(ctx, args...).Result()
	if err != nil {
		s.tb.Fatalf("redis %s %v: %v", s.Addr(), args, err)
	}
	return v
}

// FreePort returns a loopback TCP port that was free a moment ago.
func FreePort(tb testing.TB) int {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}
