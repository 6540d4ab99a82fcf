#!/usr/bin/env bash
# One command: set everything up and run the demo with its embedded defaults
# (SQLite under ./.facade, in-memory elevations, the packaged demo agents and data).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
exec .venv/bin/facade serve --demo "$@"
