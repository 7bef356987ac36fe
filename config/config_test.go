package config_test

import (
	"encoding/base64"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/redis/go-redis/v9"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/config"
	"github.com/kisa-dev/kisa/proxies"
)

// env is a getenv over a map.
func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// loadValid is what main does: Load, then Validate.
func loadValid(m map[string]string) (config.Config, error) {
	c, err := config.Load(env(m))
	if err != nil {
		return c, err
	}
	return c, c.Validate()
}

func TestDefaults(t *testing.T) {
	got, err := loadValid(nil)
	if err != nil {
		t.Fatalf("defaults do not validate: %v", err)
	}
	want := config.Config{
		Port: 8080, DatabaseURL: "postgres://postgres@127.0.0.1:5432/kisa?sslmode=disable",
		RedisURL: "redis://127.0.0.1:6379/0", ShutdownTimeout: 25 * time.Second, APIKeyPrefix: "kisa", DocsURL: "https://docs.kisa.dev",
		KeyCacheTTL: 30 * time.Second, LimitAI: 60, LimitOther: 450, LimitConcurrent: 10, WorkerAddr: "127.0.0.1:9091", LogLevel: "info", OverviewTimeout: 60 * time.Second,
		VisitTimeout: 45 * time.Second, TaskMaxRetry: 2, JobRetention: 168 * time.Hour, MonitorRetention: 9600 * time.Hour, MonitorMaxMonitors: 20,
		MonitorMaxTargets: 2000, MonitorMaxVisits: 5000, SearchURL: "https://www.google.com/search",
		BrowserConcurrency: 2, BrowserRecycle: 200, OverviewSettle: 700 * time.Millisecond, OverviewWait: 20 * time.Second, OverviewAppear: 3 * time.Second, S3Endpoint: "127.0.0.1:9000", S3Bucket: "kisa-screenshots",
		S3Region: "us-east-1", CDNURL: "http://127.0.0.1:9000", ProxyCooldown: 10 * time.Minute,
		BrowserAllowHosts:  []string{"google.com", "gstatic.com", "googleapis.com", "googleusercontent.com", "ggpht.com", "ytimg.com", "youtube.com"},
		CompletionsTimeout: time.Minute, ClientURL: "http://127.0.0.1:8080",
		Observations: true, ObservationRetention: 720 * time.Hour,
		Sites: map[kisa.Surface]config.Site{
			kisa.SurfaceChatGPT:    {URL: "https://chatgpt.com/", AllowHosts: []string{"chatgpt.com", "openai.com", "oaistatic.com", "oaiusercontent.com"}},
			kisa.SurfacePerplexity: {URL: "https://www.perplexity.ai/", AllowHosts: []string{"perplexity.ai", "pplx.ai"}},
			kisa.SurfaceGemini:     {URL: "https://gemini.google.com/app", AllowHosts: []string{"google.com", "gstatic.com", "googleapis.com", "googleusercontent.com"}},
			kisa.SurfaceCopilot: {URL: "https://copilot.microsoft.com/", AllowHosts: []string{"copilot.microsoft.com", "microsoft.com", "bing.com", "bing.net",
				"live.com", "microsoftonline.com"}},
		},
		AssistantWait: time.Minute, AssistantVisit: 4 * time.Minute, AssistantTimeout: 270 * time.Second, AssistantConcurrency: 1,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("defaults (-want +got):\n%s", diff)
	}
	if err := got.RequireSecretsKey(); err == nil || !strings.HasPrefix(err.Error(), "KISA_SECRETS_KEY: ") {
		t.Errorf("RequireSecretsKey without a key = %v, want an error naming KISA_SECRETS_KEY", err)
	}
	if err := got.RequireS3(); err == nil || !strings.HasPrefix(err.Error(), "KISA_S3_ACCESS_KEY: ") {
		t.Errorf("RequireS3 without credentials = %v, want an error naming KISA_S3_ACCESS_KEY", err)
	}
}

func TestValues(t *testing.T) {
	key := make([]byte, 32)
	for i := range key {
		key[i] = byte(i)
	}
	got, err := loadValid(map[string]string{
		"PORT": " 9090 ", "DATABASE_URL": "postgresql://u:p@db:5432/kisa", "REDIS_URL": "rediss://r:6380/1",
		"KISA_REDIS_TLS_INSECURE": "true", "KISA_SHUTDOWN_TIMEOUT": "90s", "KISA_API_KEY_PREFIX": "acme", "KISA_SECRETS_KEY": base64.StdEncoding.EncodeToString(key),
		"KISA_DOCS_URL": "https://docs.example.com/", "KISA_KEY_CACHE_TTL": "0s", "KISA_LIMIT_AI": "1000000000", "KISA_LIMIT_OTHER": "0", "KISA_LIMIT_CONCURRENT": "3",
		"KISA_ADMIN_TOKEN": "admin-token-0123456789", "KISA_WORKER_ADDR": ":9191", "KISA_LOG_LEVEL": "debug",
		"KISA_OVERVIEW_TIMEOUT": "2m", "KISA_TASK_MAX_RETRY": "25", "KISA_JOB_RETENTION": "48h", "KISA_WEBHOOK_ALLOW_PRIVATE": "true",
		"KISA_MONITOR_RETENTION": "720h", "KISA_MONITOR_MAX_MONITORS": "0", "KISA_MONITOR_MAX_TARGETS": "10",
		"KISA_MONITOR_MAX_VISITS": "240", "KISA_MONITOR_CONCURRENCY": "3",
		"KISA_SEARCH_URL": "http://127.0.0.1:8090/search", "KISA_CHROME_PATH": "/usr/bin/chromium",
		"KISA_BROWSER_CONCURRENCY": "64", "KISA_BROWSER_RECYCLE_AFTER": "0",
		"KISA_OVERVIEW_SETTLE": "300ms", "KISA_OVERVIEW_WAIT": "5s", "KISA_OVERVIEW_APPEAR": "2s", "KISA_VISIT_TIMEOUT": "20s", "KISA_S3_ENDPOINT": "minio:9000",
		"KISA_S3_ACCESS_KEY": "ak", "KISA_S3_SECRET_KEY": "sk", "KISA_S3_BUCKET": "shots", "KISA_S3_USE_SSL": "true",
		"KISA_S3_REGION": "eu-central-1", "KISA_CDN_URL": "https://cdn.example.com/",
		"KISA_PROXIES": "at=http://u:p@10.0.0.1:3128", "KISA_PROXY_COOLDOWN": "90s", "KISA_BROWSER_ALLOW_HOSTS": " Example.com., gstatic.com ",
		"KISA_COMPLETIONS_URL": "https://llm.example.com/v1/chat/completions", "KISA_COMPLETIONS_KEY": "sk-up",
		"KISA_COMPLETIONS_TIMEOUT": "2m", "KISA_URL": "https://api.kisa.example/", "KISA_API_KEY": "acme_k",
		"KISA_OBSERVATIONS": "false", "KISA_OBSERVATION_RETENTION": "48h", "KISA_TRUSTED_PROXIES": "10.0.0.0/8, 192.168.1.1",
		"KISA_CHATGPT_URL": "http://127.0.0.1:8090/chatgpt/", "KISA_CHATGPT_ALLOW_HOSTS": "cdn.example.com",
		"KISA_PERPLEXITY_URL": "http://127.0.0.1:8090/perplexity/",
		"KISA_GEMINI_URL":     "http://127.0.0.1:8090/gemini/", "KISA_COPILOT_URL": "http://127.0.0.1:8090/copilot/",
		"KISA_ASSISTANT_WAIT": "30s", "KISA_ASSISTANT_VISIT_TIMEOUT": "2m", "KISA_ASSISTANT_TIMEOUT": "3m", "KISA_ASSISTANT_CONCURRENCY": "0",
	})
	if err != nil {
		t.Fatal(err)
	}
	set, err := proxies.Parse("at=http://u:p@10.0.0.1:3128")
	if err != nil {
		t.Fatal(err)
	}
	want := config.Config{
		Port: 9090, DatabaseURL: "postgresql://u:p@db:5432/kisa", RedisURL: "rediss://r:6380/1",
		RedisTLSInsecure: true, ShutdownTimeout: 90 * time.Second, APIKeyPrefix: "acme", SecretsKey: key, DocsURL: "https://docs.example.com", KeyCacheTTL: 0, LimitAI: 1e9, LimitOther: 0, LimitConcurrent: 3,
		AdminToken: "admin-token-0123456789", WorkerAddr: ":9191",
		LogLevel: "debug", OverviewTimeout: 2 * time.Minute, VisitTimeout: 20 * time.Second, TaskMaxRetry: 25,
		JobRetention: 48 * time.Hour, WebhookAllowPrivate: true, MonitorRetention: 720 * time.Hour, MonitorMaxMonitors: 0,
		MonitorMaxTargets: 10, MonitorMaxVisits: 240, MonitorConcurrency: 3,
		SearchURL: "http://127.0.0.1:8090/search", ChromePath: "/usr/bin/chromium", BrowserConcurrency: 64,
		BrowserRecycle: 0, OverviewSettle: 300 * time.Millisecond, OverviewWait: 5 * time.Second, OverviewAppear: 2 * time.Second, S3Endpoint: "minio:9000", S3AccessKey: "ak", S3SecretKey: "sk", S3Bucket: "shots",
		S3UseSSL: true, S3Region: "eu-central-1", CDNURL: "https://cdn.example.com",
		Proxies: set, ProxyCooldown: 90 * time.Second, BrowserAllowHosts: []string{"example.com", "gstatic.com"},
		CompletionsURL: "https://llm.example.com/v1/chat/completions", CompletionsKey: "sk-up", CompletionsTimeout: 2 * time.Minute,
		ClientURL: "https://api.kisa.example", ClientKey: "acme_k",
		ObservationRetention: 48 * time.Hour, TrustedProxies: []string{"10.0.0.0/8", "192.168.1.1"},
		Sites: map[kisa.Surface]config.Site{
			kisa.SurfaceChatGPT:    {URL: "http://127.0.0.1:8090/chatgpt/", AllowHosts: []string{"cdn.example.com"}},
			kisa.SurfacePerplexity: {URL: "http://127.0.0.1:8090/perplexity/", AllowHosts: []string{"perplexity.ai", "pplx.ai"}},
			kisa.SurfaceGemini:     {URL: "http://127.0.0.1:8090/gemini/", AllowHosts: []string{"google.com", "gstatic.com", "googleapis.com", "googleusercontent.com"}},
			kisa.SurfaceCopilot: {URL: "http://127.0.0.1:8090/copilot/", AllowHosts: []string{"copilot.microsoft.com", "microsoft.com", "bing.com", "bing.net",
				"live.com", "microsoftonline.com"}},
		},
		AssistantWait: 30 * time.Second, AssistantVisit: 2 * time.Minute, AssistantTimeout: 3 * time.Minute,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("config (-want +got):\n%s", diff)
	}
	if err := got.RequireSecretsKey(); err != nil {
		t.Errorf("RequireSecretsKey: %v", err)
	}
	if err := got.RequireS3(); err != nil {
		t.Errorf("RequireS3: %v", err)
	}
}

func TestBadSetting(t *testing.T) {
	keyHint := "must be 32 bytes encoded in base64 (try: head -c32 /dev/urandom | base64)"
	tests := []struct {
		name  string
		vr    string
		value string
		want  string
	}{
		{name: "port not a number", vr: "PORT", value: "abc", want: `PORT: "abc" is not a whole number`},
		{name: "port negative", vr: "PORT", value: "-1", want: "PORT: must be a port between 0 and 65535 (0 picks a free one)"},
		{name: "port too big", vr: "PORT", value: "65536", want: "PORT: must be a port between 0 and 65535 (0 picks a free one)"},
		{name: "secrets key short", vr: "KISA_SECRETS_KEY", value: "short", want: "KISA_SECRETS_KEY: " + keyHint},
		{name: "secrets key of 16 bytes", vr: "KISA_SECRETS_KEY", value: base64.StdEncoding.EncodeToString(make([]byte, 16)),
			want: "KISA_SECRETS_KEY: " + keyHint},
		{name: "SSL maybe", vr: "KISA_S3_USE_SSL", value: "maybe", want: `KISA_S3_USE_SSL: "maybe" is not true or false`},
		{name: "MySQL URL", vr: "DATABASE_URL", value: "mysql://x", want: "DATABASE_URL: must be a postgres:// URL"},
		{name: "database URL without host", vr: "DATABASE_URL", value: "postgres", want: "DATABASE_URL: must be a postgres:// URL"},
		{name: "Redis URL over HTTP", vr: "REDIS_URL", value: "http://127.0.0.1:6379", want: "REDIS_URL: must be a redis://, rediss:// or redis-sentinel://host:port,.../master URL"},
		{name: "sentinel without master", vr: "REDIS_URL", value: "redis-sentinel://127.0.0.1:26379", want: "REDIS_URL: must be a redis://, rediss:// or redis-sentinel://host:port,.../master URL"},
		{name: "TLS opt-out without TLS", vr: "KISA_REDIS_TLS_INSECURE", value: "true", want: "KISA_REDIS_TLS_INSECURE: must be false unless REDIS_URL is rediss://"},
		{name: "no shutdown grace", vr: "KISA_SHUTDOWN_TIMEOUT", value: "0s", want: "KISA_SHUTDOWN_TIMEOUT: must be between 1s and 10m"},
		{name: "prefix with underscore", vr: "KISA_API_KEY_PREFIX", value: "ki_sa", want: "KISA_API_KEY_PREFIX: must be 1 to 16 letters or digits"},
		{name: "prefix too long", vr: "KISA_API_KEY_PREFIX", value: strings.Repeat("k", 17), want: "KISA_API_KEY_PREFIX: must be 1 to 16 letters or digits"},
		{name: "docs URL over FTP", vr: "KISA_DOCS_URL", value: "ftp://docs", want: "KISA_DOCS_URL: must be an http(s) URL"},
		{name: "cache TTL not a duration", vr: "KISA_KEY_CACHE_TTL", value: "30", want: `KISA_KEY_CACHE_TTL: "30" is not a duration such as 30s`},
		{name: "cache TTL too long", vr: "KISA_KEY_CACHE_TTL", value: "11m", want: "KISA_KEY_CACHE_TTL: must be between 0s and 10m"},
		{name: "cache TTL negative", vr: "KISA_KEY_CACHE_TTL", value: "-1s", want: "KISA_KEY_CACHE_TTL: must be between 0s and 10m"},
		{name: "log level", vr: "KISA_LOG_LEVEL", value: "verbose", want: "KISA_LOG_LEVEL: must be debug, info, warn or error"},
		{name: "overview timeout", vr: "KISA_OVERVIEW_TIMEOUT", value: "500ms", want: "KISA_OVERVIEW_TIMEOUT: must be at least 1s"},
		{name: "job timeout", vr: "KISA_VISIT_TIMEOUT", value: "0s", want: "KISA_VISIT_TIMEOUT: must be at least 1s"},
		{name: "overview timeout shorter than one attempt", vr: "KISA_OVERVIEW_TIMEOUT", value: "50s",
			want: "KISA_OVERVIEW_TIMEOUT (50s) must be at least KISA_VISIT_TIMEOUT (45s) + 15s, the time one attempt of the worker may take; otherwise requests give up while their visit still runs"},
		{name: "AI limit negative", vr: "KISA_LIMIT_AI", value: "-1", want: "KISA_LIMIT_AI: must be between 0 and 1000000000"},
		{name: "AI limit over 10^9", vr: "KISA_LIMIT_AI", value: "1000000001", want: "KISA_LIMIT_AI: must be between 0 and 1000000000"},
		{name: "AI limit not a number", vr: "KISA_LIMIT_AI", value: "fast", want: `KISA_LIMIT_AI: "fast" is not a whole number`},
		{name: "other limit negative", vr: "KISA_LIMIT_OTHER", value: "-5", want: "KISA_LIMIT_OTHER: must be between 0 and 1000000000"},
		{name: "concurrency limit negative", vr: "KISA_LIMIT_CONCURRENT", value: "-1", want: "KISA_LIMIT_CONCURRENT: must be between 0 and 1000000000"},
		{name: "admin token short", vr: "KISA_ADMIN_TOKEN", value: "secret", want: "KISA_ADMIN_TOKEN: must be empty or at least 16 characters"},
		{name: "worker address without port", vr: "KISA_WORKER_ADDR", value: "127.0.0.1", want: "KISA_WORKER_ADDR: must be host:port"},
		{name: "completions URL", vr: "KISA_COMPLETIONS_URL", value: "llm.example.com", want: "KISA_COMPLETIONS_URL: must be empty or an http(s) URL"},
		{name: "completions timeout", vr: "KISA_COMPLETIONS_TIMEOUT", value: "100ms", want: "KISA_COMPLETIONS_TIMEOUT: must be at least 1s"},
		{name: "overview settle", vr: "KISA_OVERVIEW_SETTLE", value: "10ms", want: "KISA_OVERVIEW_SETTLE: must be at least 50ms"},
		{name: "overview wait not below job timeout", vr: "KISA_OVERVIEW_WAIT", value: "45s", want: "KISA_OVERVIEW_WAIT: must be shorter than KISA_VISIT_TIMEOUT"},
		{name: "no retry", vr: "KISA_TASK_MAX_RETRY", value: "0", want: "KISA_TASK_MAX_RETRY: must be between 1 and 25"},
		{name: "search URL", vr: "KISA_SEARCH_URL", value: "google.com", want: "KISA_SEARCH_URL: must be an http(s) URL"},
		{name: "no tabs", vr: "KISA_BROWSER_CONCURRENCY", value: "0", want: "KISA_BROWSER_CONCURRENCY: must be between 1 and 64"},
		{name: "recycle negative", vr: "KISA_BROWSER_RECYCLE_AFTER", value: "-1", want: "KISA_BROWSER_RECYCLE_AFTER: must be 0 or more"},
		{name: "S3 endpoint with scheme", vr: "KISA_S3_ENDPOINT", value: "http://minio:9000", want: "KISA_S3_ENDPOINT: must be host:port without scheme"},
		{name: "proxy entry", vr: "KISA_PROXIES", value: "at=http://u:secret@h:1,de=socks5://u:secret@h:2",
			want: "KISA_PROXIES: entry 2: a socks5 proxy cannot take credentials (Chromium does not authenticate to SOCKS); use an http proxy"},
		{name: "proxy cooldown", vr: "KISA_PROXY_COOLDOWN", value: "10ms", want: "KISA_PROXY_COOLDOWN: must be at least 1s"},
		{name: "allowed host with scheme", vr: "KISA_BROWSER_ALLOW_HOSTS", value: "https://x.com",
			want: `KISA_BROWSER_ALLOW_HOSTS: "https://x.com" is not a domain name such as gstatic.com`},
		{name: "CDN URL", vr: "KISA_CDN_URL", value: "cdn", want: "KISA_CDN_URL: must be an http(s) URL"},
		{name: "observation retention", vr: "KISA_OBSERVATION_RETENTION", value: "1h", want: "KISA_OBSERVATION_RETENTION: must be at least 24h"},
		{name: "trusted proxy", vr: "KISA_TRUSTED_PROXIES", value: "10.0.0.0/8,proxy.local",
			want: `KISA_TRUSTED_PROXIES: "proxy.local" is not an IP address or CIDR range such as 10.0.0.0/8`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := loadValid(map[string]string{tt.vr: tt.value})
			if err == nil {
				t.Fatalf("%s=%q accepted", tt.vr, tt.value)
			}
			if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSecretsKeyNotEchoed: a wrong key is named but its value never shown.
func TestSecretsKeyNotEchoed(t *testing.T) {
	value := base64.StdEncoding.EncodeToString([]byte("almost-a-key-but-31-bytes-long!"))
	_, err := config.Load(env(map[string]string{"KISA_SECRETS_KEY": value}))
	if err == nil || strings.Contains(err.Error(), value) {
		t.Errorf("error = %v; want one that does not echo the value", err)
	}
}

// TestParseSentinelURL reads the sentinels, the master and the database.
func TestParseSentinelURL(t *testing.T) {
	tests := []struct {
		name string
		url  string
		want redis.FailoverOptions
	}{
		{"two sentinels", "redis-sentinel://10.0.0.1:26379,10.0.0.2:26380/mymaster",
			redis.FailoverOptions{MasterName: "mymaster", SentinelAddrs: []string{"10.0.0.1:26379", "10.0.0.2:26380"}}},
		{"password and database", "redis-sentinel://:s3cret@h:26379/cache/3",
			redis.FailoverOptions{MasterName: "cache", SentinelAddrs: []string{"h:26379"}, Password: "s3cret", DB: 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := config.ParseSentinelURL(tt.url)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, *got, cmpopts.IgnoreUnexported(redis.FailoverOptions{})); diff != "" {
				t.Errorf("options (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRenamedVariables: a renamed variable is still read under its old
// name when the new one is not set, the new name wins when both are, and
// either way the old name is reported for the warning.
func TestRenamedVariables(t *testing.T) {
	tests := []struct {
		name      string
		env       map[string]string
		timeout   time.Duration
		maxRetry  int
		wantNames []config.Rename
	}{
		{"new names", map[string]string{"KISA_VISIT_TIMEOUT": "25s", "KISA_TASK_MAX_RETRY": "5"}, 25 * time.Second, 5, nil},
		{"old names", map[string]string{"KISA_JOB_TIMEOUT": "25s", "KISA_JOB_MAX_RETRY": "5"}, 25 * time.Second, 5,
			[]config.Rename{{Old: "KISA_JOB_TIMEOUT", New: "KISA_VISIT_TIMEOUT"}, {Old: "KISA_JOB_MAX_RETRY", New: "KISA_TASK_MAX_RETRY"}}},
		{"both: the new wins", map[string]string{"KISA_JOB_TIMEOUT": "25s", "KISA_VISIT_TIMEOUT": "30s"}, 30 * time.Second, 2,
			[]config.Rename{{Old: "KISA_JOB_TIMEOUT", New: "KISA_VISIT_TIMEOUT"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := loadValid(tt.env)
			if err != nil {
				t.Fatal(err)
			}
			if got.VisitTimeout != tt.timeout || got.TaskMaxRetry != tt.maxRetry {
				t.Errorf("VisitTimeout, TaskMaxRetry = %s, %d; want %s, %d", got.VisitTimeout, got.TaskMaxRetry, tt.timeout, tt.maxRetry)
			}
			if diff := cmp.Diff(tt.wantNames, got.OldNames); diff != "" {
				t.Errorf("old names reported (-want +got):\n%s", diff)
			}
		})
	}
	if _, err := loadValid(map[string]string{"KISA_JOB_TIMEOUT": "soon"}); err == nil || !strings.HasPrefix(err.Error(), "KISA_VISIT_TIMEOUT: ") {
		t.Errorf("a bad value under the old name: error %v, want one naming KISA_VISIT_TIMEOUT", err)
	}
}

// TestVars: Load reads exactly the variables Vars documents, and the old
// names of the renamed ones.
func TestVars(t *testing.T) {
	var read []string
	config.Load(func(k string) string {
		read = append(read, k)
		return ""
	})
	var documented []string
	for _, v := range config.Vars {
		documented = append(documented, v.Name)
	}
	for _, r := range config.Renamed {
		documented = append(documented, r.Old)
	}
	slices.Sort(read)
	slices.Sort(documented)
	if diff := cmp.Diff(documented, slices.Compact(read)); diff != "" {
		t.Errorf("variables read vs documented (-documented +read):\n%s", diff)
	}
}
