#!/usr/bin/env bash
# Fuzzes the whole API from its OpenAPI document with schemathesis: a manual/bench tool, not part of `npm test`.
#
# Starts Parley on 127.0.0.1 with a throwaway DATA_DIR and an account made by the CLI, runs
# `schemathesis run` against /api/openapi.json with that account's API key, and prints the number of requests
# answered (by status) and the failures found. Exits non-zero when any check failed.
#
#   scripts/fuzz-api.sh                      # defaults below
#   FUZZ_MAX_EXAMPLES=50 FUZZ_MAX_TIME=900 scripts/fuzz-api.sh
#
# Environment: FUZZ_MAX_EXAMPLES (per operation, default 30), FUZZ_MAX_TIME (seconds of fuzzing, default 600),
# FUZZ_WORKERS (default 1: the embedded database has one connection), FUZZ_PORT (default 18480; the media and
# Temporal ports follow it), FUZZ_SEED, FUZZ_KEEP_DATA=1 to keep the data directory and server log.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

max_examples=${FUZZ_MAX_EXAMPLES:-30}
max_time=${FUZZ_MAX_TIME:-600}
workers=${FUZZ_WORKERS:-1}
port=${FUZZ_PORT:-18480}
venv=$root/.tools/schemathesis
schemathesis_version=4.32.5

if [ ! -x "$venv/bin/schemathesis" ]; then
  echo "fuzz-api: installing schemathesis $schemathesis_version into $venv" >&2
  python3.11 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$schemathesis_version"
fi

data_dir=$(mktemp -d "${TMPDIR:-/tmp}/parley-fuzz.XXXXXX")
server_pid=
cleanup() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  if [ "${FUZZ_KEEP_DATA:-0}" = 1 ]; then echo "fuzz-api: kept $data_dir" >&2; else rm -rf "$data_dir"; fi
}
trap cleanup EXIT

export DATA_DIR=$data_dir HOST=127.0.0.1 PORT=$port MEDIA_PORT=$((port + 1))
export TEMPORAL_PORT=$((port + 2)) TEMPORAL_UI_PORT=$((port + 3))
# info: the access log lines are what the request count is read from.
export NODE_ENV=development LOG_FORMAT=json LOG_LEVEL=info
# The fuzzer is one client sending as fast as it can; the per-credential limit would answer most of it 429.
export RATE_LIMIT_PER_MINUTE=1000000 LOGIN_MAX_ATTEMPTS=1000
# Nothing leaves the machine: no model or embeddings endpoint is configured.
unset LLM_BASE_URL LLM_API_KEY EMBEDDINGS_BASE_URL DATABASE_URL TEMPORAL_ADDRESS

# The account, made while the embedded database is not yet served. Its key is not key 1: the fuzzer tries the
# smallest ids on `DELETE /user/api-keys/{id}` and would otherwise revoke its own credential.
npm run --silent cli -- user:create --name "Fuzz" --email fuzz@example.com --balance 100 >/dev/null
for _ in 1 2 3 4; do npm run --silent cli -- user:key --email fuzz@example.com >/dev/null; done
api_key=$(npm run --silent cli -- user:key --email fuzz@example.com | node -e 'let s="";process.stdin.on("data",(d)=>s+=d).on("end",()=>process.stdout.write(JSON.parse(s).api_key))')

npm start >"$data_dir/server.log" 2>&1 &
server_pid=$!
base=http://127.0.0.1:$port
for _ in $(seq 1 120); do
  curl -fsS "$base/api/ready" >/dev/null 2>&1 && break
  kill -0 "$server_pid" 2>/dev/null || { echo "fuzz-api: Parley did not start:" >&2; tail -n 40 "$data_dir/server.log" >&2; exit 1; }
  sleep 1
done
curl -fsS "$base/api/ready" >/dev/null || { echo "fuzz-api: Parley is not ready after 120 s" >&2; exit 1; }

# POST /auth/logout revokes the credential it is called with, and DELETE /user/api-keys/{id} may hit its id:
# both are fuzzed last, alone, so that they do not turn the rest of the run into 401s.
# From the data directory, where schemathesis keeps its cache.
fuzz() {
  (cd "$data_dir" && "$venv/bin/schemathesis" run "$base/api/openapi.json" \
    --url "$base/api" \
    --header "Authorization: Bearer $api_key" \
    --checks not_a_server_error,status_code_conformance,response_schema_conformance,content_type_conformance \
    --max-examples "$max_examples" \
    --workers "$workers" \
    --request-timeout 30 \
    --suppress-health-check all \
    --warnings off \
    ${FUZZ_SEED:+--seed "$FUZZ_SEED"} \
    --no-color \
    "$@")
}
set +e
revoking=(--include-name 'POST /auth/logout' --include-name 'DELETE /user/api-keys/{id}')
fuzz --max-time "$max_time" --exclude-name 'POST /auth/logout' --exclude-name 'DELETE /user/api-keys/{id}'
status=$?
fuzz --max-time 60 "${revoking[@]}"
[ $? -eq 0 ] || status=1
set -e

# The server logs one line per request it answered (request-context.ts).
node -e '
  const lines = require("fs").readFileSync(process.argv[1], "utf8").split("\n");
  const statuses = {};
  let requests = 0;
  for (const line of lines) {
    let entry;
    try { entry = JSON.parse(line); } catch { continue; }
    if (entry.msg !== "request" && entry.msg !== "request failed") continue;
    requests++;
    statuses[entry.status] = (statuses[entry.status] ?? 0) + 1;
  }
  const errors = Object.entries(statuses).filter(([code]) => Number(code) >= 500).reduce((sum, [, count]) => sum + count, 0);
  console.log(`fuzz-api: ${requests} requests answered, ${errors} with a 5xx; by status: ${JSON.stringify(statuses)}`);
' "$data_dir/server.log"
echo "fuzz-api: schemathesis $([ "$status" -eq 0 ] && echo 'found no failures' || echo 'found failures (above)')"
exit "$status"
