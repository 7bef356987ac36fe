package overview

import (
	"context"

	"github.com/hibiken/asynq"

	"github.com/kisa-dev/kisa/jobs"
	"github.com/kisa-dev/kisa/observe"
)

// traceQuery is what a request's trace keeps of req (for accounts that
// store their queries).
func traceQuery(req Request) observe.Query {
	return observe.Query{Query: req.Query, Country: req.Country, Language: req.Language}
}

// traceHit notes a cache hit in the trace of ctx's request.
func traceHit(ctx context.Context, req Request) {
	observe.FromContext(ctx).CacheHit(traceQuery(req))
}

// traceVisit notes in the trace of ctx's request that req waits on run
// of key, started or joined.
func traceVisit(ctx context.Context, key, run string, joined bool, req Request) {
	observe.FromContext(ctx).Visit(key, run, joined, traceQuery(req))
}

// runOf is the run named in a task's payload; "" when it cannot be read.
func runOf(info *asynq.TaskInfo) string {
	p, err := jobs.ParseOverviewPayload(asynq.NewTask(info.Type, info.Payload))
	if err != nil {
		return ""
	}
	return p.Run
}
