#!/usr/bin/env bash
# openapi-check.sh: what an integrator does with api/openapi.yaml, as a
# check (`make openapi-check`, part of `make test`):
#   1. Spectral with its spectral:oas ruleset, and Redocly's lint (its
#      recommended rules): no errors (warnings are printed, not fatal);
#   2. oapi-codegen generates a Go client (types and client) into a
#      throw-away module, which must compile as generated, together with a
#      few lines that use its typed enums and the webhook header.
# Tools come pinned from npm (npx) and the Go module proxy (go run), so a
# fresh clone needs nothing installed but node and go; the three run at
# once and share nothing but the document.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

SPECTRAL=@stoplight/spectral-cli@6.16.3
REDOCLY=@redocly/cli@2.77.0
OAPI_CODEGEN=github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen@v2.8.2
OAPI_RUNTIME=github.com/oapi-codegen/runtime@v1.9.0
DOC=$PWD/api/openapi.yaml
for tool in npx go; do
	command -v "$tool" >/dev/null || { echo "openapi-check needs $tool (node and npm: apt-get install nodejs npm)" >&2; exit 1; }
done

# No update notices, no telemetry: the tools talk to the npm registry
# (to install) and to nothing else.
export NO_UPDATE_NOTIFIER=1 npm_config_update_notifier=false npm_config_fund=false \
	npm_config_audit=false REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

spectral() {
	printf 'extends: ["spectral:oas"]\n' >"$tmp/spectral.yaml"
	npx --yes "$SPECTRAL" lint --ruleset "$tmp/spectral.yaml" --fail-severity error "$DOC"
}

redocly() {
	npx --yes "$REDOCLY" lint --format stylish "$DOC"
}

client() {
	local mod=$tmp/client
	mkdir -p "$mod"
	cat >"$mod/oapi-codegen.yaml" <<-'EOF'
	package: kisaclient
	generate:
	  models: true
	  client: true
	output: client.gen.go
	EOF
	# Lines an integrator writes: they compile only while every status is a
	# string enum and the webhook's Kisa-Signature header has a type.
	cat >"$mod/use.go" <<-'EOF'
	package kisaclient

	var (
		_ string = string(Job{}.Status)
		_ string = string(Batch{}.Status)
		_        = []JobStatus{JobStatusQueued, JobStatusRunning, JobStatusDone, JobStatusFailed}
		_        = ListJobsParams{Status: new(ListJobsParamsStatusDone)}
		_ string = WebhookJobEndedParams{}.KisaSignature
		_ string = WebhookBatchEndedParams{}.KisaSignature
		_ string = string(WebhookJobEndedJSONBody{}.Event)
		_ string = HealthChecks{}["redis"]
	)
	EOF
	(cd "$mod" && go run "$OAPI_CODEGEN" -config oapi-codegen.yaml "$DOC" &&
		printf 'module example.com/kisaclient\n\ngo 1.26\n' >go.mod &&
		go get "$OAPI_RUNTIME" && go mod tidy &&
		go vet ./... && echo "oapi-codegen: the generated client compiles ($(wc -l <client.gen.go) lines)")
}

status=0
for step in spectral redocly client; do
	"$step" >"$tmp/$step.log" 2>&1 &
	eval "pid_$step=$!"
done
for step in spectral redocly client; do
	pid_var=pid_$step
	if wait "${!pid_var}"; then
		echo "== $step: ok"
		grep -vE '^\s*$|Node\.js|nodejs\.org|[╔║╚]' "$tmp/$step.log" | tail -n 15 || true
	else
		echo "== $step: FAILED"
		cat "$tmp/$step.log"
		status=1
	fi
done
exit $status
