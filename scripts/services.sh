#!/usr/bin/env bash
# Finds or starts the services kisa needs on this machine: PostgreSQL,
# Redis, MinIO and Chromium. Idempotent and quick when all is up. Writes
# .data/services.env, which `make run` and `make test` source; variables
# already set in the caller's environment win over it.
#
#   KISA_STATE_DIR  machine-wide state, for MinIO (default ~/.local/share/kisa)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DATA="$ROOT/.data"
STATE="${KISA_STATE_DIR:-$HOME/.local/share/kisa}"
MINIO_VERSION=v0.0.0-20260212201848-7aac2a2c5b7c
PG_ADDR=127.0.0.1 PG_PORT=5432
REDIS_PORT=6379
MINIO_ADDR=127.0.0.1:9000 MINIO_CONSOLE=127.0.0.1:9001

say() { printf '%s\n' "$*"; }
die() { printf 'services: %s\n' "$*" >&2; exit 1; }
is_root() { [ "$(id -u)" = 0 ]; }

mkdir -p "$DATA" "$STATE/minio"
# One run at a time on this machine (MinIO and its credentials are shared).
# Every server started below gets `9>&-` so that it does not keep the lock.
exec 9>"$STATE/services.lock"
flock 9

# ---- Debian packages -------------------------------------------------------
packages() {
	local need=()
	command -v psql >/dev/null && command -v pg_isready >/dev/null || need+=(postgresql)
	if ! compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null &&
		! pg_isready -q -h "$PG_ADDR" -p "$PG_PORT" 2>/dev/null; then
		need+=(postgresql)
	fi
	command -v redis-server >/dev/null && command -v redis-cli >/dev/null || need+=(redis-server)
	command -v chromium >/dev/null || need+=(chromium)
	command -v curl >/dev/null || need+=(curl)
	command -v wrk >/dev/null || need+=(wrk) # make bench's load generator
	[ -e /etc/ssl/certs/ca-certificates.crt ] || need+=(ca-certificates)
	mapfile -t need < <(printf '%s\n' "${need[@]}" | sort -u | sed '/^$/d')
	if [ ${#need[@]} -eq 0 ]; then
		say "packages: all present"
		return
	fi
	is_root || die "missing packages: ${need[*]}; install them with: sudo apt-get install -y ${need[*]}"
	say "packages: installing ${need[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >/dev/null || die "apt-get update failed; run it by hand, then: apt-get install -y ${need[*]}"
	apt-get install -y -qq "${need[@]}" >/dev/null || die "apt-get install failed; run by hand: apt-get install -y ${need[*]}"
}

# ---- PostgreSQL ------------------------------------------------------------
pg_up() { pg_isready -q -h "$PG_ADDR" -p "$PG_PORT"; }

wait_for() { # seconds command...
	local n=$(($1 * 5))
	shift
	for ((i = 0; i < n; i++)); do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.2
	done
	return 1
}

postgres() {
	if pg_up; then
		say "postgres: running at $PG_ADDR:$PG_PORT"
	elif start_pg_cluster; then
		:
	else
		start_pg_local
	fi
	pg_databases kisa kisa_test
}

# start_pg_cluster starts the machine's own cluster on port 5432, if any.
start_pg_cluster() {
	command -v pg_lsclusters >/dev/null || return 1
	local ver name
	read -r ver name _ < <(pg_lsclusters -h 2>/dev/null | awk -v p="$PG_PORT" '$3 == p' | head -1) || return 1
	[ -n "${ver:-}" ] || return 1
	pg_ctlcluster --skip-systemctl-redirect "$ver" "$name" start 9>&- 2>/dev/null || true
	wait_for 30 pg_up ||
		die "postgres: cluster $ver/$name did not start; start it by hand: pg_ctlcluster --skip-systemctl-redirect $ver $name start (log: /var/log/postgresql/postgresql-$ver-$name.log)"
	say "postgres: started cluster $ver/$name at $PG_ADDR:$PG_PORT"
}

# start_pg_local runs a cluster of the clone's own under .data/postgres.
start_pg_local() {
	local bin dir="$DATA/postgres" as=()
	bin=$(compgen -G '/usr/lib/postgresql/*/bin' | sort -V | tail -1)
	[ -n "$bin" ] || die "postgres: no server binaries; install them: apt-get install -y postgresql"
	if is_root; then
		as=(runuser -u postgres --)
		mkdir -p "$dir" && chown postgres: "$dir" && chmod 700 "$dir"
	fi
	if [ ! -s "$dir/PG_VERSION" ]; then
		"${as[@]}" "$bin/initdb" -D "$dir" -U postgres --auth=trust -E UTF8 >"$DATA/postgres-initdb.log" 2>&1 ||
			die "postgres: initdb failed (see $DATA/postgres-initdb.log)"
	fi
	local start=("$bin/pg_ctl" -D "$dir" -l "$dir/postgres.log" -w -t 60
		-o "-c listen_addresses=$PG_ADDR -p $PG_PORT -c unix_socket_directories=''" start)
	if ! { "${as[@]}" "${start[@]}" >/dev/null 2>&1 9>&- && pg_up; }; then
		die "postgres: could not start $dir; start it by hand: ${as[*]} ${start[*]} (log: $dir/postgres.log)"
	fi
	say "postgres: started $dir at $PG_ADDR:$PG_PORT"
}

pg_databases() {
	local db psql=(psql -h "$PG_ADDR" -p "$PG_PORT" -U postgres -d postgres -v ON_ERROR_STOP=1 -qtA)
	for db in "$@"; do
		if [ -z "$("${psql[@]}" -c "SELECT 1 FROM pg_database WHERE datname = '$db'")" ]; then
			"${psql[@]}" -c "CREATE DATABASE \"$db\"" >/dev/null ||
				die "postgres: cannot create database $db; create it by hand: createdb -h $PG_ADDR -U postgres $db"
		fi
	done
	say "postgres: databases $* ready"
}

# ---- Redis -----------------------------------------------------------------
redis_up() { [ "$(redis-cli -h 127.0.0.1 -p "$REDIS_PORT" ping 2>/dev/null)" = PONG ]; }

redis() {
	if redis_up; then
		say "redis: running at 127.0.0.1:$REDIS_PORT"
		return
	fi
	mkdir -p "$DATA/redis"
	local start=(redis-server --daemonize yes --bind 127.0.0.1 --port "$REDIS_PORT" --save "" --appendonly no
		--dir "$DATA/redis" --logfile "$DATA/redis/redis.log")
	if ! { "${start[@]}" >/dev/null 9>&- && wait_for 10 redis_up; }; then
		die "redis: could not start; start it by hand: ${start[*]}"
	fi
	say "redis: started at 127.0.0.1:$REDIS_PORT (log: $DATA/redis/redis.log)"
}

# ---- MinIO -----------------------------------------------------------------
minio_up() { curl -fsS -m 2 -o /dev/null "http://$MINIO_ADDR/minio/health/live" 2>/dev/null; }

minio() {
	local creds="$STATE/minio/credentials.env"
	if minio_up; then
		[ -s "$creds" ] || die "minio: something answers at $MINIO_ADDR but $creds is missing; stop that server (or write its keys there as MINIO_ROOT_USER=... and MINIO_ROOT_PASSWORD=... lines) and run make services again"
		minio_check_creds "$creds"
		say "minio: running at $MINIO_ADDR (credentials: $creds)"
		return
	fi
	local bin
	bin="$(go env GOPATH)/bin/minio"
	minio_build "$bin"
	if [ ! -s "$creds" ]; then
		[ -z "$(ls -A "$STATE/minio/data" 2>/dev/null)" ] ||
			die "minio: $STATE/minio/data exists but $creds is gone; remove that data directory to start over"
		(
			umask 077
			printf 'MINIO_ROOT_USER=kisa-%s\nMINIO_ROOT_PASSWORD=%s\n' \
				"$(head -c6 /dev/urandom | od -An -tx1 | tr -d ' \n')" \
				"$(head -c30 /dev/urandom | base64 | tr -d '\n/+=')" >"$creds.tmp"
		)
		mv "$creds.tmp" "$creds"
		say "minio: generated credentials in $creds"
	fi
	chmod 600 "$creds"
	mkdir -p "$STATE/minio/data"
	(
		set -a
		# shellcheck disable=SC1090
		. "$creds"
		set +a
		export MINIO_UPDATE=off MINIO_CALLHOME_ENABLE=off
		cd "$STATE/minio"
		setsid nohup "$bin" server --quiet --address "$MINIO_ADDR" --console-address "$MINIO_CONSOLE" \
			"$STATE/minio/data" >>"$STATE/minio/minio.log" 2>&1 </dev/null 9>&- &
	)
	wait_for 60 minio_up ||
		die "minio: did not come up (log: $STATE/minio/minio.log); start it by hand: set -a; . $creds; $bin server --address $MINIO_ADDR --console-address $MINIO_CONSOLE $STATE/minio/data"
	minio_check_creds "$creds"
	say "minio: started at $MINIO_ADDR (credentials: $creds, log: $STATE/minio/minio.log)"
}

# minio_build reuses the binary, waits for a build already under way, or
# builds the pinned release from source (a few minutes, once per machine).
minio_build() {
	local bin=$1
	if [ ! -x "$bin" ] && pgrep -f "go install github.com/minio/minio@" >/dev/null; then
		say "minio: waiting for the go install already building it"
		while pgrep -f "go install github.com/minio/minio@" >/dev/null; do sleep 2; done
	fi
	[ -x "$bin" ] && return
	command -v go >/dev/null || die "minio: go is needed to build it; install Go, then: go install github.com/minio/minio@$MINIO_VERSION"
	say "minio: building github.com/minio/minio@$MINIO_VERSION from source (a few minutes, once)"
	go install "github.com/minio/minio@$MINIO_VERSION" ||
		die "minio: build failed; run by hand: go install github.com/minio/minio@$MINIO_VERSION"
}

# minio_check_creds signs a ListBuckets request with the stored keys.
minio_check_creds() {
	local user pass
	user=$(sed -n 's/^MINIO_ROOT_USER=//p' "$1")
	pass=$(sed -n 's/^MINIO_ROOT_PASSWORD=//p' "$1")
	curl -fsS -m 5 -o /dev/null --aws-sigv4 "aws:amz:us-east-1:s3" -u "$user:$pass" "http://$MINIO_ADDR/" 2>/dev/null ||
		die "minio: the server at $MINIO_ADDR refuses the keys in $1; stop it and run make services again, or fix that file"
}

# ---- Chromium --------------------------------------------------------------
chrome() {
	CHROME=$(command -v chromium) || die "chromium: not found; install it: apt-get install -y chromium"
	say "chromium: $CHROME"
}

# ---- env files -------------------------------------------------------------
secrets() {
	local f="$DATA/local.env"
	if ! grep -q '^KISA_SECRETS_KEY=.' "$f" 2>/dev/null; then
		(
			umask 077
			printf 'KISA_SECRETS_KEY=%s\n' "$(head -c32 /dev/urandom | base64)" >"$f"
		)
		say "secrets: generated KISA_SECRETS_KEY in $f"
	else
		say "secrets: reusing $f"
	fi
	chmod 600 "$f"
	SECRETS_KEY=$(sed -n 's/^KISA_SECRETS_KEY=//p' "$f")
}

write_env() {
	local f="$DATA/services.env" creds="$STATE/minio/credentials.env"
	local user pass
	user=$(sed -n 's/^MINIO_ROOT_USER=//p' "$creds")
	pass=$(sed -n 's/^MINIO_ROOT_PASSWORD=//p' "$creds")
	# shellcheck disable=SC2016 # the ${VAR:-default} is for the reader of the file
	line() { printf 'export %s="${%s:-%s}"\n' "$1" "$1" "$2"; }
	(
		umask 077
		{
			echo "# Written by scripts/services.sh; variables set by the caller win."
			line DATABASE_URL "postgres://postgres@$PG_ADDR:$PG_PORT/kisa?sslmode=disable"
			line TEST_DATABASE_URL "postgres://postgres@$PG_ADDR:$PG_PORT/kisa_test?sslmode=disable"
			line REDIS_URL "redis://127.0.0.1:$REDIS_PORT/0"
			line TEST_REDIS_URL "redis://127.0.0.1:$REDIS_PORT/15"
			line KISA_S3_ENDPOINT "$MINIO_ADDR"
			line KISA_S3_ACCESS_KEY "$user"
			line KISA_S3_SECRET_KEY "$pass"
			line KISA_S3_BUCKET kisa-screenshots
			line KISA_S3_USE_SSL false
			line KISA_S3_REGION us-east-1
			line KISA_CDN_URL "http://$MINIO_ADDR"
			line KISA_SECRETS_KEY "$SECRETS_KEY"
			line KISA_CHROME_PATH "$CHROME"
		} >"$f.tmp"
	)
	mv "$f.tmp" "$f"
	say "env: $f"
}

packages
postgres
redis
minio
chrome
secrets
write_env
