#!/usr/bin/env bash
# One command: set everything up and run the whole test suite.
# PostgreSQL and Redis tests skip when those services are absent, unless FACADE_REQUIRE_SERVICES=1.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh test
exec .venv/bin/python -m pytest "$@"
