#!/usr/bin/env bash
# Every benchmark in its short mode, as CI runs them (.ci/run): a benchmark fails the run only on
# a wrong answer (an error, a lost write, a tool missing), never on a speed figure, because these
# machines are noisy; the figures are printed for the log. The full versions are in the README.
set -euo pipefail
cd "$(dirname "$0")/.."
py=.venv/bin/python
for bench in "bench_catalogue.py" "bench_budget.py" "bench_recall.py --conversations 4" \
             "bench_serve.py --short" "bench_throughput.py --short" "bench_load.py --short" "bench_hostile.py --short" "bench_startup.py --short" \
             "bench_search.py --short" "bench_replicas.py --short"; do
  echo "== scripts/$bench"
  # shellcheck disable=SC2086 # the options are meant to split
  $py scripts/$bench
done
