#!/usr/bin/env bash
# The official MCP conformance suite against `facade serve`, judged by the committed baseline.
#
#   bash scripts/conformance.sh [extra suite options, e.g. --scenario tools-list --verbose]
#
# Installs Node 22 and the suite (pinned) once per machine under the facade-tests cache, starts
# `facade serve` on a free loopback port with the demo data in a temporary folder, and runs the
# suite with tests/mcp/conformance-expected-failures.yml. The suite cannot send a header, so the
# server runs with an anonymous agent (loopback only) that sees every domain in full mode: the
# tools-list checks then cover the whole catalogue. The suite's own fixtures (its test_* tools,
# test:// resources, test_* prompts and completions) come from a third-party domain written with
# the public kit, tests/fixtures/conformance_domain.py, loaded through FACADE_DOMAINS.
#
# Exit codes: 0 every failure is in the baseline; 1 an unexpected failure, or a baseline entry
# that now passes (the suite's own rule); 2 the server did not start; 3 Node/npm or the suite
# could not be had (tests skip on 3 unless FACADE_REQUIRE_SERVICES=1).
# CONFORMANCE_RESULTS=DIR keeps each scenario's checks.json and the server log there.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
suite_version="0.1.16"
node_major="22" # the suite needs Node >= 22; the machine's own Node may be older
baseline="${CONFORMANCE_BASELINE:-$repo/tests/mcp/conformance-expected-failures.yml}"
python="${FACADE_PYTHON:-$repo/.venv/bin/python}"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/facade-tests/conformance-$suite_version-node$node_major"

unavailable() { echo "conformance: unavailable: $*" >&2; exit 3; }

install_suite() {
  command -v npm >/dev/null 2>&1 || unavailable "npm is not on PATH (needed once to install Node $node_major and the suite)"
  # Installed beside the final folder and moved into place, so that a run interrupted halfway
  # or two runs at once never leave a half-installed cache that looks complete.
  local staging
  mkdir -p "$(dirname "$cache")"
  staging="$(mktemp -d "$cache.staging.XXXXXX")"
  echo "conformance: installing node@$node_major and @modelcontextprotocol/conformance@$suite_version into $cache" >&2
  if ! (cd "$staging" && npm install --no-audit --no-fund --silent "node@$node_major" \
      "@modelcontextprotocol/conformance@$suite_version" >"$staging/npm.log" 2>&1); then
    local why; why="$(tail -c 400 "$staging/npm.log" | tr '\n' ' ')"
    rm -rf "$staging"
    unavailable "npm install failed: $why"
  fi
  mv -T "$staging" "$cache" 2>/dev/null || rm -rf "$staging" # another run got there first
}

[ -x "$cache/node_modules/node/bin/node" ] && [ -e "$cache/node_modules/.bin/conformance" ] || install_suite
export PATH="$cache/node_modules/node/bin:$PATH"
node_version="$(node --version)"
case "$node_version" in "v$node_major".*) ;; *) unavailable "the cached node is $node_version, not $node_major.x; delete $cache" ;; esac

[ -x "$python" ] || bash "$repo/scripts/bootstrap.sh" test
export FACADE_DOMAINS="tests.fixtures.conformance_domain${FACADE_DOMAINS:+,$FACADE_DOMAINS}"
work="$(mktemp -d "${TMPDIR:-/tmp}/facade-conformance.XXXXXX")"
server_pid=""
cleanup() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill "$server_pid" 2>/dev/null || true
    # Open SSE streams can hold uvicorn's graceful shutdown for a few seconds; then insist.
    for _ in $(seq 50); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.2; done
    kill -9 "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  if [ -n "${CONFORMANCE_RESULTS:-}" ]; then
    mkdir -p "$CONFORMANCE_RESULTS" && cp -r "$work/results" "$work/server.log" "$CONFORMANCE_RESULTS/" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The anonymous agent: every domain in full mode, so the suite lists the whole catalogue.
mkdir -p "$work/agents/conformance"
PYTHONPATH="$repo" "$python" - "$work/agents/conformance/agent.toml" <<'PY'
import os
import sys
from pathlib import Path

from facade.catalogue.discovery import discover

extra = [m for m in os.environ.get("FACADE_DOMAINS", "").split(",") if m]
apps = "\n".join(f'{domain} = "full"' for domain in sorted(discover(extra).domains))
Path(sys.argv[1]).write_text(
    'name = "conformance"\ndescription = "The official conformance suite: sees every tool."\n\n[apps]\n' + apps + "\n"
)
PY

port="$("$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
url="http://127.0.0.1:$port/mcp"
# Run from the work folder: domain folders default to ./.facade/<domain>, so nothing lands in the repo.
(
  cd "$work"
  exec env -u FACADE_DATABASE_URL -u FACADE_REDIS_URL -u FACADE_HOST -u FACADE_PORT \
    PYTHONPATH="$repo" FACADE_DATA_DIR="$work/.facade" FACADE_AGENTS_DIR="$work/agents" \
    FACADE_SEED=true FACADE_LOG_JSON=true \
    "$python" -m facade.cli serve --host 127.0.0.1 --port "$port" --anonymous-agent conformance
) >"$work/server.log" 2>&1 &
server_pid=$!

healthy=""
for _ in $(seq 900); do # 180 s: the first start migrates and seeds every domain
  kill -0 "$server_pid" 2>/dev/null || break
  if "$python" -c "import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=1)" \
      "http://127.0.0.1:$port/healthz" 2>/dev/null; then healthy=1; break; fi
  sleep 0.2
done
if [ -z "$healthy" ]; then
  echo "conformance: facade serve did not become healthy; its log:" >&2
  cat "$work/server.log" >&2
  exit 2
fi

echo "conformance: @modelcontextprotocol/conformance@$suite_version (node $node_version) against $url" >&2
status=0
(cd "$work" && "$cache/node_modules/.bin/conformance" server --url "$url" --expected-failures "$baseline" -o "$work/results" "$@") || status=$?
if ! kill -0 "$server_pid" 2>/dev/null; then
  echo "conformance: facade serve exited during the suite; its log:" >&2
  cat "$work/server.log" >&2
  status=1
fi
exit "$status"
