// Package config holds the service's settings. They are read once, in main,
// from the environment (Heroku's PORT, DATABASE_URL and REDIS_URL, and
// KISA_* for the rest); no other package reads the environment.
package config

import (
	"encoding/base64"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/monitor"
	"github.com/kisa-dev/kisa/overview"
	"github.com/kisa-dev/kisa/proxies"
)

// Config is every setting of the web, worker and admin processes.
type Config struct {
	Port        int    // PORT: HTTP port of the web process
	Host        string // KISA_HOST: address the web process binds; empty = all
	DatabaseURL string // DATABASE_URL
	RedisURL    string // REDIS_URL: redis://, rediss:// or redis-sentinel://
	// RedisTLSInsecure (KISA_REDIS_TLS_INSECURE) accepts any certificate
	// from a rediss:// server, e.g. a self-signed one.
	RedisTLSInsecure bool
	// ShutdownTimeout (KISA_SHUTDOWN_TIMEOUT) bounds a graceful stop: web
	// finishes its requests, a worker its tasks (or hands them back).
	ShutdownTimeout time.Duration

	APIKeyPrefix    string        // KISA_API_KEY_PREFIX: prefix of every API key
	SecretsKey      []byte        // KISA_SECRETS_KEY: 32-byte AES-256-GCM key for secret values
	DocsURL         string        // KISA_DOCS_URL: base of the docs links in errors
	KeyCacheTTL     time.Duration // KISA_KEY_CACHE_TTL: how long a key lookup is reused
	LimitAI         int           // KISA_LIMIT_AI: AI requests per minute and key; 0 = none
	LimitOther      int           // KISA_LIMIT_OTHER: other requests per minute and key; 0 = none
	LimitConcurrent int           // KISA_LIMIT_CONCURRENT: overview requests of a key waiting at once
	AdminToken      string        // KISA_ADMIN_TOKEN: guards /metrics and /admin/queues; empty = off
	WorkerAddr      string        // KISA_WORKER_ADDR: the worker's health and metrics listener
	LogLevel        string        // KISA_LOG_LEVEL: debug, info, warn, error

	OverviewTimeout time.Duration // KISA_OVERVIEW_TIMEOUT: how long the API waits for a visit
	VisitTimeout    time.Duration // KISA_VISIT_TIMEOUT (was KISA_JOB_TIMEOUT): how long one browser visit may take
	TaskMaxRetry    int           // KISA_TASK_MAX_RETRY (was KISA_JOB_MAX_RETRY): asynq retries of a failed overview task
	QueueMax        int           // KISA_QUEUE_MAX: pending visits before new ones get 503; 0 automatic
	JobRetention    time.Duration // KISA_JOB_RETENTION: how long async jobs are kept

	WebhookAllowPrivate bool // KISA_WEBHOOK_ALLOW_PRIVATE: http and private webhook targets

	MonitorRetention   time.Duration // KISA_MONITOR_RETENTION: how long monitor runs and readings are kept
	MonitorMaxMonitors int           // KISA_MONITOR_MAX_MONITORS: monitors per account; 0 = none
	MonitorMaxTargets  int           // KISA_MONITOR_MAX_TARGETS: targets per account; 0 = none
	MonitorMaxVisits   int           // KISA_MONITOR_MAX_VISITS: monitor readings per account and day; 0 = none
	MonitorConcurrency int           // KISA_MONITOR_CONCURRENCY: readings in flight per worker; 0 = half the tabs

	SearchURL          string        // KISA_SEARCH_URL: results page the worker opens
	ChromePath         string        // KISA_CHROME_PATH: Chromium binary; empty finds it on PATH
	BrowserConcurrency int           // KISA_BROWSER_CONCURRENCY: tabs (and asynq slots) per worker
	BrowserRecycle     int           // KISA_BROWSER_RECYCLE_AFTER: visits before the browser restarts
	OverviewSettle     time.Duration // KISA_OVERVIEW_SETTLE: quiet time that ends an answer showing no sign of its end
	OverviewWait       time.Duration // KISA_OVERVIEW_WAIT: bound on the wait for an answer to finish
	OverviewAppear     time.Duration // KISA_OVERVIEW_APPEAR: wait for a page to announce one
	BrowserAllowHosts  []string      // KISA_BROWSER_ALLOW_HOSTS: domains a results page may load from
	// Sites are the AI assistants' sites (KISA_CHATGPT_URL and
	// KISA_CHATGPT_ALLOW_HOSTS, ... for each assistant).
	Sites                map[kisa.Surface]Site
	AssistantWait        time.Duration // KISA_ASSISTANT_WAIT: bounded wait for each assistant's answer
	AssistantVisit       time.Duration // KISA_ASSISTANT_VISIT_TIMEOUT: one visit of an assistant
	AssistantTimeout     time.Duration // KISA_ASSISTANT_TIMEOUT: how long an assistant's request waits
	AssistantConcurrency int           // KISA_ASSISTANT_CONCURRENCY: tabs of the assistants' queue per worker
	Proxies              proxies.Set   // KISA_PROXIES: the proxies by country; empty connects directly
	ProxyCooldown        time.Duration // KISA_PROXY_COOLDOWN: how long a blocked proxy is left alone

	S3Endpoint  string // KISA_S3_ENDPOINT: MinIO host:port the processes talk to
	S3AccessKey string // KISA_S3_ACCESS_KEY
	S3SecretKey string // KISA_S3_SECRET_KEY
	S3Bucket    string // KISA_S3_BUCKET
	S3UseSSL    bool   // KISA_S3_USE_SSL
	S3Region    string // KISA_S3_REGION
	CDNURL      string // KISA_CDN_URL: public base of screenshot URLs

	CompletionsURL     string        // KISA_COMPLETIONS_URL: upstream chat-completions endpoint; empty = off
	CompletionsKey     string        // KISA_COMPLETIONS_KEY: bearer key sent upstream
	CompletionsTimeout time.Duration // KISA_COMPLETIONS_TIMEOUT: upstream answer (or stream gap) deadline

	// Observations (KISA_OBSERVATIONS) turns the recording of requests
	// and visits on; ObservationRetention (KISA_OBSERVATION_RETENTION) is
	// how long they are kept; TrustedProxies (KISA_TRUSTED_PROXIES) are
	// the proxies whose forwarding headers name a request's client.
	Observations         bool
	ObservationRetention time.Duration
	TrustedProxies       []string

	ClientURL string // KISA_URL: the API `kisa client` talks to
	ClientKey string // KISA_API_KEY: the key `kisa client` sends

	// OldNames are the renamed variables (see Renamed) that were set under
	// their old name, which still works for one release: the processes
	// log a warning for each.
	OldNames []Rename
}

// Rename is an environment variable renamed in this release: its Old
// name is still read (with a warning) when New is not set.
type Rename struct{ Old, New string }

// Renamed lists the variables renamed in this release. After the next
// release the old names are no longer read.
var Renamed = []Rename{
	{Old: "KISA_JOB_TIMEOUT", New: "KISA_VISIT_TIMEOUT"},
	{Old: "KISA_JOB_MAX_RETRY", New: "KISA_TASK_MAX_RETRY"},
}

// MaxLimit is the largest request budget accepted, in the configuration
// and per account.
const MaxLimit = 1_000_000_000

// Var describes one environment variable: its name, its default and what
// it sets. Vars is the list docs/configuration.md's table is checked against.
type Var struct {
	Name, Default, Doc string
}

// Vars lists every environment variable the service reads.
var Vars = []Var{
	{"PORT", "8080", "HTTP port of `kisa web` (0 picks a free port; the log line `web listening` names it)."},
	{"KISA_HOST", "", "Address `kisa web` binds to; empty means all interfaces (the local run and the tests use 127.0.0.1)."},
	{"DATABASE_URL", "postgres://postgres@127.0.0.1:5432/kisa?sslmode=disable", "PostgreSQL connection URL."},
	{"REDIS_URL", "redis://127.0.0.1:6379/0", "Redis URL: the asynq queue, the result cache and job notifications. `rediss://` for TLS; `redis-sentinel://[:password@]host:26379,host:26380/mymaster[/db]` for a Sentinel set (Redis Cluster is not supported)."},
	{"KISA_REDIS_TLS_INSECURE", "false", "With `rediss://`: accept any server certificate (self-signed, as on Heroku Redis); off, the certificate must be valid for the host."},
	{"KISA_SHUTDOWN_TIMEOUT", "25s", "On SIGTERM: how long `kisa web` lets requests in flight finish and `kisa worker` lets running tasks finish before handing them back to the queue."},
	{"KISA_API_KEY_PREFIX", "kisa", "Prefix of every API key (`<prefix>_<key>`)."},
	{"KISA_SECRETS_KEY", "", "Required by `web`, `worker` and `admin`: 32 random bytes, base64, that encrypt secret values and webhook signing secrets (AES-256-GCM)."},
	{"KISA_DOCS_URL", "https://docs.kisa.dev", "Base of the `docs` links in error bodies."},
	{"KISA_KEY_CACHE_TTL", "30s", "How long a verified API key is reused without asking PostgreSQL; a revoked key stops working within this bound."},
	{"KISA_LIMIT_AI", "60", "AI requests (the AI overview, AI Mode, web search, batch and completions endpoints: each costs a browser visit or a model call) each API key may make per minute, counted in Redis across all web processes (0: no limit); `kisa admin account set-limits` overrides it per account."},
	{"KISA_LIMIT_OTHER", "450", "Every other request each API key may make per minute, counted like KISA_LIMIT_AI (0: no limit)."},
	{"KISA_LIMIT_CONCURRENT", "10", "AI overview requests of one API key waiting for a browser visit at once, across all web processes (0: no limit); more are answered 429. Cache hits take no slot."},
	{"KISA_ADMIN_TOKEN", "", "Token that opens `/metrics` and the `/admin/queues` dashboard (bearer, or HTTP basic with any user name); empty: those routes do not exist."},
	{"KISA_WORKER_ADDR", "127.0.0.1:9091", "Listener of `kisa worker` for `/livez`, `/readyz` and `/metrics`."},
	{"KISA_LOG_LEVEL", "info", "debug, info, warn or error."},
	{"KISA_OVERVIEW_TIMEOUT", "60s", "How long an AI overview request waits for its visit before answering 503; at least KISA_VISIT_TIMEOUT + 15s, so that one attempt of the worker can finish."},
	{"KISA_VISIT_TIMEOUT", "45s", "How long one browser visit may take. Was KISA_JOB_TIMEOUT, still read (with a warning in the log) for one release."},
	{"KISA_TASK_MAX_RETRY", "2", "How often asynq retries a failed overview task (must be at least 1). Was KISA_JOB_MAX_RETRY, still read (with a warning in the log) for one release."},
	{"KISA_QUEUE_MAX", "0", "Pending browser visits at which an overview request that needs a new visit is answered 503 at once (cache hits and requests joining a visit in flight are still served); 0 means 24 per tab of the live workers, about two minutes of work. With no worker alive for 30 s, such requests get 503 too."},
	{"KISA_JOB_RETENTION", "168h", "How long an async job and its result are kept (7 days); a periodic task in the worker removes older ones."},
	{"KISA_MONITOR_RETENTION", "9600h", "How long monitor runs, their readings and change events are kept (400 days); a periodic task in the worker removes older ones."},
	{"KISA_MONITOR_MAX_MONITORS", "20", "Monitors one account may have, paused ones included (0: no limit); more are refused with 422."},
	{"KISA_MONITOR_MAX_TARGETS", "2000", "Targets one account's monitors may hold in all (0: no limit); more are refused with 422."},
	{"KISA_MONITOR_MAX_VISITS", "5000", "Readings one account's active monitors may plan a day, by their schedules (0: no limit): a monitor past it is refused with 422, and a run that would pass it that day is skipped with the reason `visits_per_day`."},
	{"KISA_MONITOR_CONCURRENCY", "0", "Monitor readings one worker process has in flight at once; 0 means half its tabs (at least 1), so that a run never holds every tab."},
	{"KISA_WEBHOOK_ALLOW_PRIVATE", "false", "Lets webhooks use http and reach loopback and private addresses: for local use and tests only, never in production (it opens server-side request forgery)."},
	{"KISA_SEARCH_URL", "https://www.google.com/search", "Results page the worker opens with q, gl and hl."},
	{"KISA_CHROME_PATH", "", "Chromium binary; empty looks on PATH for chromium, chromium-browser, google-chrome, chrome and google-chrome-stable (the names the Chrome buildpacks install)."},
	{"KISA_BROWSER_CONCURRENCY", "2", "Tabs per worker process, and its asynq concurrency."},
	{"KISA_BROWSER_RECYCLE_AFTER", "200", "Visits after which a worker restarts its browser (0: never)."},
	{"KISA_OVERVIEW_SETTLE", "700ms", "The fallback end of an answer on a page that shows no sign of its end (no overview container to mark loaded, no AI Mode answer subtree to show its feedback buttons): its text unchanged for this long. Never applied while the answer is empty or the page shows it still being made (a placeholder, a Generating status, aria-busy)."},
	{"KISA_OVERVIEW_WAIT", "20s", "Bound on the wait for an overview or AI Mode answer to finish (each prompt of AI Mode its own): an answer the page has not said is finished by then is read as it stands, complete false. Above the 5 to 12 s of live answers that stream slowly, with a Generating phase first; shorter than KISA_VISIT_TIMEOUT."},
	{"KISA_OVERVIEW_APPEAR", "3s", "A loaded page that has shown no overview block or heading (nor a Generating status) for this long has no overview (at most KISA_OVERVIEW_WAIT); a page that announced one waits up to KISA_OVERVIEW_WAIT."},
	{"KISA_BROWSER_ALLOW_HOSTS", "google.com,gstatic.com,googleapis.com,googleusercontent.com,ggpht.com,ytimg.com,youtube.com", "Comma-separated domains (with their subdomains) a results page may load images, scripts, frames and data from, besides the search and consent hosts; see [Security](#security)."},
	{"KISA_CHATGPT_URL", "https://chatgpt.com/", "ChatGPT's start page, which the worker opens for the `chatgpt` surface (with `hints=search` when the request's `webSearch` is on); `serpfixture --print-env` points it at the fixture's site."},
	{"KISA_PERPLEXITY_URL", "https://www.perplexity.ai/", "Perplexity's start page, for the `perplexity` surface."},
	{"KISA_GEMINI_URL", "https://gemini.google.com/app", "Gemini's start page, for the `gemini` surface (with `hl`, the request's language)."},
	{"KISA_COPILOT_URL", "https://copilot.microsoft.com/", "Copilot's start page, for the `copilot` surface."},
	{"KISA_CHATGPT_ALLOW_HOSTS", "chatgpt.com,openai.com,oaistatic.com,oaiusercontent.com", "Comma-separated domains (with their subdomains) ChatGPT's pages may load from and open pages on, besides its start page's host; nothing else is reached."},
	{"KISA_PERPLEXITY_ALLOW_HOSTS", "perplexity.ai,pplx.ai", "The same for Perplexity's pages."},
	{"KISA_GEMINI_ALLOW_HOSTS", "google.com,gstatic.com,googleapis.com,googleusercontent.com", "The same for Gemini's pages."},
	{"KISA_COPILOT_ALLOW_HOSTS", "copilot.microsoft.com,microsoft.com,bing.com,bing.net,live.com,microsoftonline.com", "The same for Copilot's pages."},
	{"KISA_ASSISTANT_WAIT", "60s", "Bounded wait for each answer of an AI assistant (they take 10 to 60 s); an answer not finished by then is read as it is, `complete: false`."},
	{"KISA_ASSISTANT_VISIT_TIMEOUT", "240s", "How long one visit of an AI assistant may take: the prompt and up to three follow-ups."},
	{"KISA_ASSISTANT_TIMEOUT", "270s", "How long an AI assistant's request waits for its visit before answering 503; at least KISA_ASSISTANT_VISIT_TIMEOUT + 15s."},
	{"KISA_ASSISTANT_CONCURRENCY", "1", "Tabs per worker process that serve the AI assistants' queue only, besides KISA_BROWSER_CONCURRENCY's, which serve the fast surfaces only: a slow assistant never holds a tab an overview waits for (see [Operations](operations.md#the-ai-assistants-queue))."},
	{"KISA_PROXIES", "", "Comma-separated `country=url` proxies, e.g. `at=http://host:3128,de=http://user:pass@host:8000,*=http://host:3128`; empty connects directly. See [Countries and proxies](#countries-and-proxies)."},
	{"KISA_PROXY_COOLDOWN", "10m", "How long a proxy that met the CAPTCHA or failed is left alone before it is used again."},
	{"KISA_S3_ENDPOINT", "127.0.0.1:9000", "MinIO (S3) host:port for uploads."},
	{"KISA_S3_ACCESS_KEY", "", "MinIO access key (required by web and worker)."},
	{"KISA_S3_SECRET_KEY", "", "MinIO secret key (required by web and worker)."},
	{"KISA_S3_BUCKET", "kisa-screenshots", "Bucket of the screenshots; created at start with a 2-day expiry rule."},
	{"KISA_S3_USE_SSL", "false", "Whether KISA_S3_ENDPOINT speaks HTTPS."},
	{"KISA_S3_REGION", "us-east-1", "Region used to sign URLs (no lookup call is made)."},
	{"KISA_CDN_URL", "http://127.0.0.1:9000", "Public base of screenshot URLs ({cdn_url}); URLs are signed for this host."},
	{"KISA_COMPLETIONS_URL", "", "OpenAI-compatible chat-completions endpoint that `POST /v1/completions` forwards to (e.g. `https://api.openai.com/v1/chat/completions`); empty: the endpoint answers 503."},
	{"KISA_COMPLETIONS_KEY", "", "Bearer key sent to KISA_COMPLETIONS_URL (never logged or returned)."},
	{"KISA_URL", "http://127.0.0.1:8080", "Base URL of the API that `kisa client` calls (its --url flag wins)."},
	{"KISA_API_KEY", "", "API key (`<prefix>_<key>`) that `kisa client` sends; read by that command only."},
	{"KISA_OBSERVATIONS", "true", "Whether `kisa web` and `kisa worker` record every request of an account and every browser visit for `GET /v1/observations` and `GET /v1/usage` (buffered, written once a second; see docs/observations.md)."},
	{"KISA_OBSERVATION_RETENTION", "720h", "How long observations (and so usage) are kept (30 days, whole UTC days); a periodic task in the worker drops older days."},
	{"KISA_TRUSTED_PROXIES", "", "Comma-separated addresses or CIDR ranges of the reverse proxies in front of `kisa web` whose `X-Forwarded-For`/`X-Real-IP` name the client an observation records; empty: the client is the connection's peer."},
	{"KISA_COMPLETIONS_TIMEOUT", "60s", "How long the completions upstream may take to answer, and, when streaming, the longest gap between two chunks; past it the API answers 503."},
}

// Load reads the configuration through getenv, filling defaults. It
// returns an error naming the first variable whose value cannot be parsed;
// Validate checks the values themselves.
func Load(getenv func(string) string) (Config, error) {
	getenv, old := withOldNames(getenv)
	get := func(name string) string {
		if v := strings.TrimSpace(getenv(name)); v != "" {
			return v
		}
		for _, v := range Vars {
			if v.Name == name {
				return v.Default
			}
		}
		return ""
	}
	p := parser{get: get}
	c := Config{
		Port:                 p.int("PORT"),
		Host:                 get("KISA_HOST"),
		DatabaseURL:          get("DATABASE_URL"),
		RedisURL:             get("REDIS_URL"),
		RedisTLSInsecure:     p.bool("KISA_REDIS_TLS_INSECURE"),
		ShutdownTimeout:      p.duration("KISA_SHUTDOWN_TIMEOUT"),
		APIKeyPrefix:         get("KISA_API_KEY_PREFIX"),
		SecretsKey:           p.key("KISA_SECRETS_KEY"),
		DocsURL:              strings.TrimRight(get("KISA_DOCS_URL"), "/"),
		KeyCacheTTL:          p.duration("KISA_KEY_CACHE_TTL"),
		LimitAI:              p.int("KISA_LIMIT_AI"),
		LimitOther:           p.int("KISA_LIMIT_OTHER"),
		LimitConcurrent:      p.int("KISA_LIMIT_CONCURRENT"),
		AdminToken:           get("KISA_ADMIN_TOKEN"),
		WorkerAddr:           get("KISA_WORKER_ADDR"),
		LogLevel:             get("KISA_LOG_LEVEL"),
		OverviewTimeout:      p.duration("KISA_OVERVIEW_TIMEOUT"),
		VisitTimeout:         p.duration("KISA_VISIT_TIMEOUT"),
		TaskMaxRetry:         p.int("KISA_TASK_MAX_RETRY"),
		QueueMax:             p.int("KISA_QUEUE_MAX"),
		JobRetention:         p.duration("KISA_JOB_RETENTION"),
		WebhookAllowPrivate:  p.bool("KISA_WEBHOOK_ALLOW_PRIVATE"),
		MonitorRetention:     p.duration("KISA_MONITOR_RETENTION"),
		MonitorMaxMonitors:   p.int("KISA_MONITOR_MAX_MONITORS"),
		MonitorMaxTargets:    p.int("KISA_MONITOR_MAX_TARGETS"),
		MonitorMaxVisits:     p.int("KISA_MONITOR_MAX_VISITS"),
		MonitorConcurrency:   p.int("KISA_MONITOR_CONCURRENCY"),
		SearchURL:            get("KISA_SEARCH_URL"),
		ChromePath:           get("KISA_CHROME_PATH"),
		BrowserConcurrency:   p.int("KISA_BROWSER_CONCURRENCY"),
		BrowserRecycle:       p.int("KISA_BROWSER_RECYCLE_AFTER"),
		OverviewSettle:       p.duration("KISA_OVERVIEW_SETTLE"),
		OverviewWait:         p.duration("KISA_OVERVIEW_WAIT"),
		OverviewAppear:       p.duration("KISA_OVERVIEW_APPEAR"),
		BrowserAllowHosts:    p.hosts("KISA_BROWSER_ALLOW_HOSTS"),
		Sites:                p.sites(),
		AssistantWait:        p.duration("KISA_ASSISTANT_WAIT"),
		AssistantVisit:       p.duration("KISA_ASSISTANT_VISIT_TIMEOUT"),
		AssistantTimeout:     p.duration("KISA_ASSISTANT_TIMEOUT"),
		AssistantConcurrency: p.int("KISA_ASSISTANT_CONCURRENCY"),
		Proxies:              p.proxies("KISA_PROXIES"),
		ProxyCooldown:        p.duration("KISA_PROXY_COOLDOWN"),
		S3Endpoint:           get("KISA_S3_ENDPOINT"),
		S3AccessKey:          get("KISA_S3_ACCESS_KEY"),
		S3SecretKey:          get("KISA_S3_SECRET_KEY"),
		S3Bucket:             get("KISA_S3_BUCKET"),
		S3UseSSL:             p.bool("KISA_S3_USE_SSL"),
		S3Region:             get("KISA_S3_REGION"),
		CDNURL:               strings.TrimRight(get("KISA_CDN_URL"), "/"),
		CompletionsURL:       get("KISA_COMPLETIONS_URL"),
		CompletionsKey:       get("KISA_COMPLETIONS_KEY"),
		CompletionsTimeout:   p.duration("KISA_COMPLETIONS_TIMEOUT"),
		Observations:         p.bool("KISA_OBSERVATIONS"),
		ObservationRetention: p.duration("KISA_OBSERVATION_RETENTION"),
		TrustedProxies:       p.cidrs("KISA_TRUSTED_PROXIES"),
		ClientURL:            strings.TrimRight(get("KISA_URL"), "/"),
		ClientKey:            get("KISA_API_KEY"),
		OldNames:             old,
	}
	return c, p.err
}

// withOldNames wraps getenv so that a renamed variable left empty is read
// under its old name; old lists the old names that were set.
func withOldNames(getenv func(string) string) (wrapped func(string) string, old []Rename) {
	news := map[string]string{}
	for _, r := range Renamed {
		if strings.TrimSpace(getenv(r.Old)) != "" {
			old = append(old, r)
			news[r.New] = r.Old
		}
	}
	return func(name string) string {
		if v := getenv(name); strings.TrimSpace(v) != "" || news[name] == "" {
			return v
		}
		return getenv(news[name])
	}, old
}

// parser turns strings into typed values, keeping the first error.
type parser struct {
	get func(string) string
	err error
}

func (p *parser) fail(name, v, want string) {
	if p.err == nil {
		p.err = fmt.Errorf("%s: %q is not %s", name, v, want)
	}
}

func (p *parser) int(name string) int {
	v := p.get(name)
	n, err := strconv.Atoi(v)
	if err != nil {
		p.fail(name, v, "a whole number")
	}
	return n
}

func (p *parser) bool(name string) bool {
	v := p.get(name)
	b, err := strconv.ParseBool(v)
	if err != nil {
		p.fail(name, v, "true or false")
	}
	return b
}

func (p *parser) duration(name string) time.Duration {
	v := p.get(name)
	d, err := time.ParseDuration(v)
	if err != nil {
		p.fail(name, v, "a duration such as 30s")
	}
	return d
}

// hosts reads a comma-separated list of domain names, lower-cased.
// Site is an AI assistant's site: its start page and the domains its
// pages may reach.
type Site struct {
	URL        string
	AllowHosts []string
}

// sites reads each assistant's KISA_<NAME>_URL and KISA_<NAME>_ALLOW_HOSTS.
func (p *parser) sites() map[kisa.Surface]Site {
	out := map[kisa.Surface]Site{}
	for _, a := range kisa.Assistants {
		name := "KISA_" + strings.ToUpper(string(a))
		out[a] = Site{URL: p.get(name + "_URL"), AllowHosts: p.hosts(name + "_ALLOW_HOSTS")}
	}
	return out
}

func (p *parser) hosts(name string) []string {
	var out []string
	for _, h := range strings.Split(p.get(name), ",") {
		h = strings.ToLower(strings.Trim(strings.TrimSpace(h), "."))
		if h == "" {
			continue
		}
		if strings.ContainsAny(h, "/:@ *") {
			p.fail(name, h, "a domain name such as gstatic.com")
		}
		out = append(out, h)
	}
	return out
}

// cidrs reads a comma-separated list of IP addresses and CIDR ranges.
func (p *parser) cidrs(name string) []string {
	var out []string
	for _, v := range strings.Split(p.get(name), ",") {
		v = strings.TrimSpace(v)
		if v == "" {
			continue
		}
		_, _, cerr := net.ParseCIDR(v)
		if cerr != nil && net.ParseIP(v) == nil {
			p.fail(name, v, "an IP address or CIDR range such as 10.0.0.0/8")
		}
		out = append(out, v)
	}
	return out
}

// proxies parses KISA_PROXIES. Its error names the entry by position and
// never quotes the value, which may hold passwords.
func (p *parser) proxies(name string) proxies.Set {
	set, err := proxies.Parse(p.get(name))
	if err != nil && p.err == nil {
		p.err = fmt.Errorf("%s: %w", name, err)
	}
	return set
}

// key decodes a base64 AES-256 key; an empty value stays nil (Require*
// decides whether the process needs it). The value is never echoed.
func (p *parser) key(name string) []byte {
	v := p.get(name)
	if v == "" {
		return nil
	}
	b, err := base64.StdEncoding.DecodeString(v)
	if err != nil || len(b) != 32 {
		if p.err == nil {
			p.err = fmt.Errorf("%s: must be 32 bytes encoded in base64 (try: head -c32 /dev/urandom | base64)", name)
		}
		return nil
	}
	return b
}

// Validate checks the values every process relies on and returns an error
// naming the first bad setting.
func (c Config) Validate() error {
	checks := []struct {
		ok   bool
		name string
		want string
	}{
		{c.Port >= 0 && c.Port < 65536, "PORT", "a port between 0 and 65535 (0 picks a free one)"},
		{validURL(c.DatabaseURL, "postgres", "postgresql"), "DATABASE_URL", "a postgres:// URL"},
		{validRedisURL(c.RedisURL), "REDIS_URL", "a redis://, rediss:// or redis-sentinel://host:port,.../master URL"},
		{!c.RedisTLSInsecure || strings.HasPrefix(c.RedisURL, "rediss://"), "KISA_REDIS_TLS_INSECURE", "false unless REDIS_URL is rediss://"},
		{c.ShutdownTimeout >= time.Second && c.ShutdownTimeout <= 10*time.Minute, "KISA_SHUTDOWN_TIMEOUT", "between 1s and 10m"},
		{validPrefix(c.APIKeyPrefix), "KISA_API_KEY_PREFIX", "1 to 16 letters or digits"},
		{validURL(c.DocsURL, "http", "https"), "KISA_DOCS_URL", "an http(s) URL"},
		{c.KeyCacheTTL >= 0 && c.KeyCacheTTL <= 10*time.Minute, "KISA_KEY_CACHE_TTL", "between 0s and 10m"},
		{c.LimitAI >= 0 && c.LimitAI <= MaxLimit, "KISA_LIMIT_AI", "between 0 and 1000000000"},
		{c.LimitOther >= 0 && c.LimitOther <= MaxLimit, "KISA_LIMIT_OTHER", "between 0 and 1000000000"},
		{c.LimitConcurrent >= 0 && c.LimitConcurrent <= MaxLimit, "KISA_LIMIT_CONCURRENT", "between 0 and 1000000000"},
		{c.AdminToken == "" || len(c.AdminToken) >= 16, "KISA_ADMIN_TOKEN", "empty or at least 16 characters"},
		{validHostPort(c.WorkerAddr), "KISA_WORKER_ADDR", "host:port"},
		{validLevel(c.LogLevel), "KISA_LOG_LEVEL", "debug, info, warn or error"},
		{c.OverviewTimeout >= time.Second, "KISA_OVERVIEW_TIMEOUT", "at least 1s"},
		{c.VisitTimeout >= time.Second, "KISA_VISIT_TIMEOUT", "at least 1s"},
		{c.TaskMaxRetry >= 1 && c.TaskMaxRetry <= 25, "KISA_TASK_MAX_RETRY", "between 1 and 25"},
		{c.QueueMax >= 0, "KISA_QUEUE_MAX", "0 (automatic) or more"},
		{c.JobRetention >= time.Hour, "KISA_JOB_RETENTION", "at least 1h"},
		{c.MonitorRetention >= 24*time.Hour, "KISA_MONITOR_RETENTION", "at least 24h"},
		{c.MonitorMaxMonitors >= 0, "KISA_MONITOR_MAX_MONITORS", "0 (no limit) or more"},
		{c.MonitorMaxTargets >= 0, "KISA_MONITOR_MAX_TARGETS", "0 (no limit) or more"},
		{c.MonitorMaxVisits >= 0, "KISA_MONITOR_MAX_VISITS", "0 (no limit) or more"},
		{c.MonitorConcurrency >= 0 && c.MonitorConcurrency <= 64, "KISA_MONITOR_CONCURRENCY", "between 0 (automatic) and 64"},
		{validURL(c.SearchURL, "http", "https"), "KISA_SEARCH_URL", "an http(s) URL"},
		{c.BrowserConcurrency >= 1 && c.BrowserConcurrency <= 64, "KISA_BROWSER_CONCURRENCY", "between 1 and 64"},
		{c.BrowserRecycle >= 0, "KISA_BROWSER_RECYCLE_AFTER", "0 or more"},
		{c.OverviewSettle >= 50*time.Millisecond, "KISA_OVERVIEW_SETTLE", "at least 50ms"},
		{c.OverviewWait >= time.Second, "KISA_OVERVIEW_WAIT", "at least 1s"},
		{c.OverviewWait < c.VisitTimeout, "KISA_OVERVIEW_WAIT", "shorter than KISA_VISIT_TIMEOUT"},
		{c.OverviewAppear >= 0 && c.OverviewAppear <= c.OverviewWait, "KISA_OVERVIEW_APPEAR", "between 0s and KISA_OVERVIEW_WAIT"},
		{c.ProxyCooldown >= time.Second, "KISA_PROXY_COOLDOWN", "at least 1s"},
		{c.AssistantWait >= time.Second, "KISA_ASSISTANT_WAIT", "at least 1s"},
		{c.AssistantWait < c.AssistantVisit, "KISA_ASSISTANT_WAIT", "shorter than KISA_ASSISTANT_VISIT_TIMEOUT"},
		{c.AssistantConcurrency >= 0 && c.AssistantConcurrency <= 64, "KISA_ASSISTANT_CONCURRENCY", "between 0 (no assistants' tabs) and 64"},
		{c.S3Endpoint != "" && !strings.Contains(c.S3Endpoint, "/"), "KISA_S3_ENDPOINT", "host:port without scheme"},
		{c.S3Bucket != "", "KISA_S3_BUCKET", "a bucket name"},
		{validURL(c.CDNURL, "http", "https"), "KISA_CDN_URL", "an http(s) URL"},
		{c.CompletionsURL == "" || validURL(c.CompletionsURL, "http", "https"), "KISA_COMPLETIONS_URL", "empty or an http(s) URL"},
		{c.CompletionsTimeout >= time.Second, "KISA_COMPLETIONS_TIMEOUT", "at least 1s"},
		{c.ObservationRetention >= 24*time.Hour, "KISA_OBSERVATION_RETENTION", "at least 24h"},
	}
	for _, a := range kisa.Assistants {
		name := "KISA_" + strings.ToUpper(string(a)) + "_URL"
		checks = append(checks, struct {
			ok   bool
			name string
			want string
		}{validURL(c.Sites[a].URL, "http", "https"), name, "an http(s) URL"})
	}
	for _, ck := range checks {
		if !ck.ok {
			return fmt.Errorf("%s: must be %s", ck.name, ck.want)
		}
	}
	return c.Timing().Validate()
}

// Timing is the deadlines and retries of an overview, for the web and
// the worker processes alike.
func (c Config) Timing() overview.Timing {
	return overview.Timing{Wait: c.OverviewTimeout, Visit: c.VisitTimeout, MaxRetry: c.TaskMaxRetry,
		AssistantWait: c.AssistantTimeout, AssistantVisit: c.AssistantVisit}
}

// MonitorLimits is the per-account limits of monitors.
func (c Config) MonitorLimits() monitor.Limits {
	return monitor.Limits{Monitors: c.MonitorMaxMonitors, Targets: c.MonitorMaxTargets, VisitsPerDay: c.MonitorMaxVisits}
}

// MonitorReadings is how many monitor readings a worker has in flight:
// KISA_MONITOR_CONCURRENCY, or half the tabs (at least 1).
func (c Config) MonitorReadings() int {
	if c.MonitorConcurrency > 0 {
		return c.MonitorConcurrency
	}
	return max(1, c.BrowserConcurrency/2)
}

// RequireSecretsKey reports an error when KISA_SECRETS_KEY is not set;
// every process that opens PostgreSQL needs it (web, worker, admin).
func (c Config) RequireSecretsKey() error {
	if len(c.SecretsKey) != 32 {
		return fmt.Errorf("KISA_SECRETS_KEY: must be set to 32 bytes encoded in base64 (try: head -c32 /dev/urandom | base64)")
	}
	return nil
}

// RequireS3 reports an error when the MinIO credentials are missing.
func (c Config) RequireS3() error {
	if c.S3AccessKey == "" {
		return fmt.Errorf("KISA_S3_ACCESS_KEY: must be set")
	}
	if c.S3SecretKey == "" {
		return fmt.Errorf("KISA_S3_SECRET_KEY: must be set")
	}
	return nil
}

func validURL(s string, schemes ...string) bool {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return false
	}
	for _, sc := range schemes {
		if u.Scheme == sc {
			return true
		}
	}
	return false
}

func validHostPort(s string) bool {
	_, port, err := net.SplitHostPort(s)
	n, perr := strconv.Atoi(port)
	return err == nil && perr == nil && n >= 0 && n < 65536
}

func validPrefix(s string) bool {
	if len(s) == 0 || len(s) > 16 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

func validLevel(s string) bool {
	switch s {
	case "debug", "info", "warn", "error":
		return true
	}
	return false
}
