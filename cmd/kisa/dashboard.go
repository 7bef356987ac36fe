package main

import (
	"fmt"
	"net/http"

	"github.com/hibiken/asynq"
	"github.com/hibiken/asynqmon"

	"github.com/kisa-dev/kisa/api"
	"github.com/kisa-dev/kisa/config"
)

// newDashboard returns asynqmon rooted at /admin/queues, with retry and
// delete allowed, or nil when no admin token is set (the route does not
// exist then). Close it when done: it holds Redis connections of its own.
func newDashboard(cfg config.Config) (*asynqmon.HTTPHandler, error) {
	if cfg.AdminToken == "" {
		return nil, nil
	}
	opt, err := asynq.ParseRedisURI(cfg.RedisURL)
	if err != nil {
		return nil, fmt.Errorf("REDIS_URL: %w", err)
	}
	return asynqmon.New(asynqmon.Options{RootPath: api.DashboardPath, RedisConnOpt: opt}), nil
}

// dashboardHandler is h as an http.Handler, nil when there is none (a nil
// *HTTPHandler in an interface would not compare equal to nil).
func dashboardHandler(h *asynqmon.HTTPHandler) http.Handler {
	if h == nil {
		return nil
	}
	return h
}
