#!/usr/bin/env bash
# One command: set everything up and run the whole test suite.
# PostgreSQL and Redis tests skip when those services are absent, unless FACADE_REQUIRE_SERVICES=1.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh test
# The dashboard tests drive Debian's Chromium (Playwright's own browser download cannot work
# here); install it when we can, else those tests skip and say why.
if ! command -v chromium >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) >/dev/null 2>&1 \
    || echo "note: could not install chromium; the dashboard browser tests will skip" >&2
fi
# The balancer test (tests/test_balancer.py) puts Debian's haproxy in front of two replicas.
if [ ! -x /usr/sbin/haproxy ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq haproxy) >/dev/null 2>&1 \
    || echo "note: could not install haproxy; the balancer tests will skip" >&2
fi
# Two workers: most of a test's time is a server subprocess starting or answering, so two
# files at a time keep both cores busy; each file that empties a Redis database has its own number
# (tests/support.py emptied_redis), and a file's tests stay on one worker (--dist loadfile).
exec .venv/bin/python -m pytest -n 2 --dist loadfile "$@"
