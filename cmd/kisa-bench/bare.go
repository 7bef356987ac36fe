package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"

	"github.com/kisa-dev/kisa/storage"
)

// runBare serves the baselines of the reads and cache-hit figures: plain
// net/http handlers with the same driver, pool and query as kisa, and
// nothing else (no auth, no logs); the read makes the same rate-limiter
// call as kisa's (redis_rate's GCRA script, one Redis round trip), which
// is part of the floor of any limited read.
//
//	GET /read?account=A&id=I  the limiter's call for the account, then one integration, the query of GET /v1/integrations/{id}
//	GET /cache?key=K          one Redis GET, the bytes written as they are
func runBare(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	fs := flag.NewFlagSet("bare", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:0", "listen address")
	if err := fs.Parse(args); err != nil {
		return err
	}
	db, err := storage.Open(ctx, getenv("DATABASE_URL"))
	if err != nil {
		return err
	}
	defer db.Close()
	opt, err := redis.ParseURL(getenv("REDIS_URL"))
	if err != nil {
		return fmt.Errorf("REDIS_URL: %w", err)
	}
	rdb := redis.NewClient(opt)
	defer rdb.Close()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /read", bareRead(db, redis_rate.NewLimiter(rdb)))
	mux.HandleFunc("GET /cache", bareCache(rdb))
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, "bare listening", ln.Addr().String())
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { <-ctx.Done(); hs.Close() }()
	if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

func bareRead(db *storage.DB, limiter *redis_rate.Limiter) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		account, err1 := uuid.Parse(r.URL.Query().Get("account"))
		id, err2 := uuid.Parse(r.URL.Query().Get("id"))
		if err1 != nil || err2 != nil {
			http.Error(w, "bad ids", http.StatusBadRequest)
			return
		}
		res, err := limiter.Allow(r.Context(), "kisa-bench:bare:"+account.String(), redis_rate.PerMinute(1_000_000_000))
		if err != nil || res.Allowed == 0 {
			http.Error(w, fmt.Sprint("limited: ", err), http.StatusTooManyRequests)
			return
		}
		in, err := db.Integration(r.Context(), account, id)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"data": in})
	}
}

func bareCache(rdb *redis.Client) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		b, err := rdb.Get(r.Context(), r.URL.Query().Get("key")).Bytes()
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(b)
	}
}
