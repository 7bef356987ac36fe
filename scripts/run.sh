#!/usr/bin/env bash
# Runs kisa locally in the foreground: migrate, print a demo key with
# working curls, then the serp fixture and a worker in the background and
# the web server in the foreground. Ctrl-C or SIGTERM stops all three, and
# so does web exiting. Expects the
# environment of .data/services.env (use `make run`).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
: "${DATABASE_URL:?run through make run}"

export PORT="${PORT:-8080}"
export KISA_HOST="${KISA_HOST:-127.0.0.1}"
# The local run lets webhooks reach a receiver on this machine (docs/async-jobs.md,
# "Webhooks"); never set this in production.
export KISA_WEBHOOK_ALLOW_PRIVATE="${KISA_WEBHOOK_ALLOW_PRIVATE:-true}"
base="http://127.0.0.1:$PORT"
if curl -fsS -m 2 -o /dev/null "$base/livez" 2>/dev/null; then
	echo "run: something already serves $base (another make run?); stop it or set PORT" >&2
	exit 1
fi

bin/kisa migrate
demo=$(bin/kisa admin demo)
key=$(sed -n 's/.*"key":"\([^"]*\)".*/\1/p' <<<"$demo" | tail -1)
[ -n "$key" ] || { echo "run: no key in the output of kisa admin demo: $demo" >&2; exit 1; }

# The dashboard (/admin/queues) and /metrics open with this token; a
# random one per run unless you set your own.
export KISA_ADMIN_TOKEN="${KISA_ADMIN_TOKEN:-$(head -c18 /dev/urandom | base64 | tr '+/' '-_')}"

pids=()
stop() {
	trap - EXIT INT TERM
	[ ${#pids[@]} -eq 0 ] || kill "${pids[@]}" 2>/dev/null || true
	wait 2>/dev/null || true
}
trap stop EXIT
trap 'exit 130' INT TERM

if [ -z "${KISA_SEARCH_URL:-}" ]; then
	bin/serpfixture --addr 127.0.0.1:8090 &
	pids+=($!)
	# the search engine and the AI assistants' sites of the fixture
	set -a
	eval "$(bin/serpfixture --print-env --addr 127.0.0.1:8090)"
	set +a
	for _ in $(seq 50); do
		curl -fsS -m 1 -o /dev/null http://127.0.0.1:8090/healthz 2>/dev/null && break
		sleep 0.2
	done
fi
bin/kisa worker &
pids+=($!)

cat <<MSG

demo API key: $key
  curl -s -H "Authorization: Bearer $key" $base/v1/knowledgebase
  curl -s -X POST -H "Authorization: Bearer $key" -H 'Content-Type: application/json' -d '{"query":"why are frogs green","countryCode":"us","languageCode":"en"}' $base/v1/networks/browser/ai-overview
queue dashboard: http://admin:$KISA_ADMIN_TOKEN@127.0.0.1:$PORT/admin/queues  (user name: any, password: the token)
metrics: curl -s -u admin:$KISA_ADMIN_TOKEN $base/metrics   (worker: http://${KISA_WORKER_ADDR:-127.0.0.1:9091}/metrics)
searches go to $KISA_SEARCH_URL, the AI assistants to $KISA_CHATGPT_URL and its siblings; Ctrl-C stops web, worker and fixture.

MSG
# web runs as a child we wait for, so that a TERM or Ctrl-C runs the trap at once.
bin/kisa web &
web=$!
pids+=("$web")
wait "$web"
