// Package jobs is the wire format of the tasks that the overview service
// enqueues and the worker runs: their type names, queues, payloads,
// constructors and the outcome a finished task publishes. Nothing here
// talks to Redis or a browser.
package jobs

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/hibiken/asynq"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/geo"
)

// TypeOverview is the asynq task type of one AI overview visit.
const TypeOverview = "overview:run"

// QueueOverview is the asynq queue that overview tasks go to: those of
// every surface but the AI assistants'.
const QueueOverview = "overview"

// QueueAssistants is the queue of the AI assistants' tasks: their visits
// take 10 to 60 s a prompt, and the worker serves this queue with tabs of
// its own (KISA_ASSISTANT_CONCURRENCY) so that they never hold a tab the
// fast surfaces wait for.
const QueueAssistants = "assistants"

// QueueOf is the queue of a task of surface s.
func QueueOf(s kisa.Surface) string {
	if s.Assistant() {
		return QueueAssistants
	}
	return QueueOverview
}

// OverviewPayload is what the worker needs to visit one results page.
// Key is the normalised cache key; the worker publishes its result under
// it, and caches it there for the longest ttl that the requests sharing
// the task asked for (CacheTTL, and the wishes recorded under Run).
type OverviewPayload struct {
	Key          string `json:"key"`
	Query        string `json:"query"`
	CountryCode  string `json:"countryCode"`
	LanguageCode string `json:"languageCode"`
	// Device is kisa.DeviceMobile for a phone; empty or
	// kisa.DeviceDesktop for a desktop.
	Device string `json:"device,omitempty"`
	// Location narrows the place inside the country; nil for the whole
	// country.
	Location    *geo.Location `json:"location,omitempty"`
	Screenshots bool          `json:"screenshots"`
	// CacheTTL is the enqueuing request's cache ttl in seconds; 0 when
	// it asked for no caching.
	CacheTTL int `json:"cacheTTL,omitempty"`
	// Run names this enqueuing of the task (a task id is reused by later
	// identical requests): requests that join it record their cache
	// wishes under it (storage.Results.Wish).
	Run string `json:"run,omitempty"`
	// Surface is the page to read; empty is the overview (tasks from
	// before surfaces existed).
	Surface kisa.Surface `json:"surface,omitempty"`
	// FollowUps are the further prompts of a conversation's visit (AI
	// Mode, an assistant).
	FollowUps []string `json:"followUps,omitempty"`
	// WebSearch turns on ChatGPT's web search for the answer.
	WebSearch bool `json:"webSearch,omitempty"`
}

// NewOverviewTask builds the task for p. Its task id is the cache key, so
// identical requests in flight at once share one task. It returns an error
// only when the payload cannot be encoded.
func NewOverviewTask(p OverviewPayload, timeout time.Duration, maxRetry int) (*asynq.Task, error) {
	b, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("encode overview payload: %w", err)
	}
	return asynq.NewTask(TypeOverview, b,
		asynq.TaskID(p.Key),
		asynq.Queue(QueueOf(p.Surface)),
		asynq.Timeout(timeout),
		asynq.MaxRetry(maxRetry),
		asynq.Retention(0),
	), nil
}

// ParseOverviewPayload decodes the payload of an overview task; the error
// names the task type.
func ParseOverviewPayload(t *asynq.Task) (OverviewPayload, error) {
	var p OverviewPayload
	if err := json.Unmarshal(t.Payload(), &p); err != nil {
		return p, fmt.Errorf("decode %s payload: %w", t.Type(), err)
	}
	return p, nil
}

// Outcome is the message a worker publishes when a task ends, for the
// requests waiting on it. Exactly one of Result and Failure is set.
type Outcome struct {
	Result *kisa.Result `json:"result,omitempty"`
	// Failure says why the task failed, Part what failed; the waiting
	// requests and jobs tell their message (kisa.Describe).
	Failure kisa.Failure `json:"failure,omitempty"`
	Part    kisa.Part    `json:"part,omitempty"`
	// Evidence is where the worker stored the evidence of a page it did
	// not recognise (kisa.Unrecognised), for the API's incident log.
	Evidence string `json:"evidence,omitempty"`
	// Cached is true when the result was cached before it was published:
	// a cache-on request that missed it just before can take it.
	Cached bool `json:"cached,omitempty"`
}

// Err returns the outcome's failure as an error (a *kisa.Error, naming
// the evidence when there is some), nil for a result.
func (o Outcome) Err() error {
	if o.Result != nil {
		return nil
	}
	f := o.Failure
	if f == "" {
		f = kisa.Internal
	}
	if o.Evidence != "" {
		return kisa.Fail(f, o.Part, fmt.Errorf("page evidence stored at %s", o.Evidence))
	}
	return kisa.Fail(f, o.Part, nil)
}
