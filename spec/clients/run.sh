#!/usr/bin/env bash
# npm run test:clients: the official ekoDB TypeScript and JavaScript client examples, unmodified, against a
# fresh EddyDB server. The kit in ../shared/ekodb-client (README.md, CATALOG.md there) holds the examples,
# the outputs the real ekoDB server printed for them and its scripts; this script only wires them together:
#
#   1. setup.sh: builds the client and the examples into the kit's cache (idempotent; needs the npm registry
#      the first time on a machine);
#   2. with-fakes.sh: a fake OpenAI-compatible provider and an offline internet stub, whose settings the
#      server inherits (OPENAI_*/ANTHROPIC_* for the chat examples and the `anthropic` model listing,
#      HTTPS_PROXY and its CA for the eight examples that fetch public APIs, EDDYDB_FUNCTION_ENV and the four
#      secrets client_crypto_stages and client_jwt_auth_flow read as {{env.NAME}});
#   3. under them: `node bin/eddydb.js start` (dist/, rebuilt first when lib/ is newer) on 127.0.0.1, a free
#      port, a fresh data directory, a generated admin key and the internet examples' hosts allowed by name;
#      run-examples.sh runs every example against it; then the server is stopped with SIGTERM and must exit
#      cleanly.
#
# stdout: run-examples.sh's `PASS|FAIL <id> (<secs>s)` lines, then exactly `N passed, M failed`. Progress and
# each failure's reasons go to stderr. Exit 0 when every example passed, 1 when one failed or the server did
# not stop cleanly, 2 when the kit, its setup or the server's start failed. On failure the examples' logs,
# summary.json and the server's log stay in the directory named on stderr.
#
# Env: EKODB_KIT (default ../shared/ekodb-client from the checkout), EKODB_CLIENT_CACHE (the kit's cache),
# EXAMPLE_TIMEOUT (seconds per example, default 60). Arguments go to run-examples.sh (e.g. --only kv).
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
say() { printf 'test:clients: %s\n' "$*" >&2; }

# ---------------------------------------------------------------------------------------- under with-fakes.sh
# Runs as with-fakes.sh's CMD, in a process group of its own that with-fakes.sh stops when this ends.
if [ "${1:-}" = --under-fakes ]; then
  shift
  OUT="$1"; shift
  LOG="$OUT/server.log"
  cd "$ROOT" || exit 2
  # The public APIs the eight internet examples call: behind the stub (a proxy), as on a machine where only
  # the proxy resolves names, the host policy is given them by name (docs/functions.md, Outbound requests).
  EXAMPLE_HOSTS=jsonplaceholder.typicode.com,dummyjson.com,api.github.com,fakestoreapi.com,api.open-meteo.com
  export EDDYDB_OUTBOUND_ALLOW_HOSTS="${EDDYDB_OUTBOUND_ALLOW_HOSTS:+$EDDYDB_OUTBOUND_ALLOW_HOSTS,}$EXAMPLE_HOSTS"
  node bin/eddydb.js start --host 127.0.0.1 --port 0 --data-dir "$FAKES_TMP/data" >"$LOG" 2>&1 </dev/null &
  SERVER=$!
  URL=""
  for _ in $(seq 1 1200); do   # up to 120 s: the first start after a change of lib/ builds dist/ first
    URL="$(grep -o -m1 'EddyDB listening on http://[0-9.]*:[0-9]*' "$LOG" 2>/dev/null | sed 's/^EddyDB listening on //')"
    [ -n "$URL" ] && break
    kill -0 "$SERVER" 2>/dev/null || break
    sleep 0.1
  done
  if [ -z "$URL" ]; then
    say "the server did not start; the end of its log ($LOG):"
    tail -20 "$LOG" >&2
    exit 2
  fi
  say "server pid $SERVER at $URL, data in $FAKES_TMP/data, log $LOG"
  "$EKODB_KIT/run-examples.sh" --wait 60 --results "$OUT" "$@" "$URL" "$EDDYDB_ADMIN_KEY"
  status=$?
  kill -TERM "$SERVER" 2>/dev/null
  wait "$SERVER"; stopped=$?
  if [ "$stopped" -ne 0 ]; then
    say "the server exited with status $stopped after SIGTERM; the end of its log ($LOG):"
    tail -20 "$LOG" >&2
    [ "$status" -eq 0 ] && status=1
  fi
  exit "$status"
fi

# ---------------------------------------------------------------------------------------- the outer run
KIT="${EKODB_KIT:-$ROOT/../shared/ekodb-client}"
for f in setup.sh with-fakes.sh run-examples.sh; do
  [ -x "$KIT/$f" ] || { say "the client examples kit is missing: no $KIT/$f (set EKODB_KIT)"; exit 2; }
done
KIT="$(cd "$KIT" && pwd)"
STARTED=$(date +%s)

"$KIT/setup.sh" >/dev/null || { say "setup.sh failed"; exit 2; }

OUT="$(mktemp -d "${TMPDIR:-/tmp}/eddydb-clients.XXXXXX")" || { say "mktemp failed"; exit 2; }
EDDYDB_ADMIN_KEY="$(node -e 'process.stdout.write(require("node:crypto").randomBytes(24).toString("hex"))')"
export EDDYDB_ADMIN_KEY

# with-fakes.sh runs in the background, where SIGINT is ignored, so this script passes a Ctrl-C, a SIGTERM
# or a SIGHUP (a CI timeout) on to it as SIGTERM: it then stops the server's process group, the stub and
# the fake LLM, and this script waits for that before it exits.
"$KIT/with-fakes.sh" "$ROOT/spec/clients/run.sh" --under-fakes "$OUT" "$@" &
FAKES=$!
trap 'kill -TERM "$FAKES" 2>/dev/null' INT TERM HUP
while :; do
  wait "$FAKES"; status=$?
  kill -0 "$FAKES" 2>/dev/null || break   # a trapped signal interrupts wait: wait again for the cleanup
done
trap - TERM HUP INT

say "$(($(date +%s) - STARTED)) s in all (setup, server, examples)"
if [ "$status" -eq 0 ]; then
  rm -rf "$OUT"
else
  say "logs, summary.json and the server's log kept in $OUT"
fi
exit "$status"
