"""Does `skills.tool_search` find the tool a person means? Requests in everyday words
(scripts/search_requests.jsonl, written by a person who did not write the method: see
scripts/search_requests.md), each with the tool a competent assistant would call first, ranked
over all 449 capabilities (an agent that sees every domain in full), in the same run as:
- textbook BM25 (rank_bm25's Okapi over lowercased name + description words, nothing more);
- the substring count `skills.tool_search` used before (issue 15).
A request counts as found at k when its tool (or one of its `also`) is in the first k.

Then query latency, p50/p99 of the whole `rank` call (the query's embedding included), at 449
capabilities and at a synthetic 10,449 (the catalogue plus 10,000 renamed copies of its tools;
their embeddings are random unit vectors, which costs the same arithmetic as real ones).

    python scripts/bench_search.py            # every request, both sizes
    python scripts/bench_search.py --split    # the halves apart: tuned on even lines, held out odd
    python scripts/bench_search.py --short    # CI: fails only if a request names no real tool
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchkit import percentile  # noqa: E402

from facade.catalogue.discovery import discover  # noqa: E402
from facade.catalogue.search import ToolIndex, default_embedder  # noqa: E402

REQUESTS = Path(__file__).with_name("search_requests.jsonl")
KS = (1, 3, 5)


def load_requests() -> list[dict[str, Any]]:
    return [json.loads(line) for line in REQUESTS.read_text().splitlines() if line.strip()]


def hits(ranked: list[str], request: dict[str, Any]) -> dict[int, bool]:
    right = {request["expected"], *request.get("also", [])}
    return {k: any(name in right for name in ranked[:k]) for k in KS}


class TextbookBM25:
    name = "textbook BM25 (name + description)"

    def __init__(self, tools: list[Any]) -> None:
        from rank_bm25 import BM25Okapi

        self.names = [c.name for c in tools]
        self.bm25 = BM25Okapi([f"{c.name.replace('.', ' ').replace('_', ' ')} {c.description}".lower().split() for c in tools])

    def rank(self, query: str) -> list[str]:
        scores = self.bm25.get_scores(query.lower().split())
        return [self.names[i] for i in sorted(range(len(scores)), key=lambda i: -scores[i])]


class Substring:
    name = "substring count (before issue 15)"

    def __init__(self, tools: list[Any]) -> None:
        self.tools = tools

    def rank(self, query: str) -> list[str]:
        words = query.lower().split()
        scored = []
        for cap in self.tools:
            text = f"{cap.name.replace('_', ' ').replace('.', ' ')} {cap.description}".lower()
            score = sum(text.count(word) for word in words)
            if score:
                scored.append((-score, cap.name))
        return [name for _, name in sorted(scored)]


class Facade:
    def __init__(self, index: ToolIndex) -> None:
        self.index = index
        self.name = "facade (BM25 + MiniLM)" if index.semantic else "facade (BM25 only: no packaged model)"

    def rank(self, query: str) -> list[str]:
        return [c.name for c, _ in self.index.rank(query, limit=10)]


def score(method: Any, requests: list[dict[str, Any]]) -> dict[int, int]:
    found = {k: 0 for k in KS}
    for request in requests:
        for k, hit in hits(method.rank(request["request"]), request).items():
            found[k] += hit
    return found


def report(label: str, methods: list[Any], requests: list[dict[str, Any]]) -> None:
    print(f"{label}: {len(requests)} requests ({sum(r.get('kind') == 'indirect' for r in requests)} indirect)")
    for method in methods:
        found = score(method, requests)
        shown = "  ".join(f"top-{k} {100 * found[k] / len(requests):5.1f}%" for k in KS)
        print(f"  {method.name:<40} {shown}")


def latency(index: ToolIndex, queries: list[str], rounds: int) -> tuple[float, float]:
    samples = []
    for _ in range(rounds):
        for query in queries:
            if index.embedder is not None:
                index.embedder.cache.clear()  # every query embedded anew, as a new request is
            started = time.perf_counter()
            index.rank(query, limit=5)
            samples.append((time.perf_counter() - started) * 1000)
    return percentile(samples, 50), percentile(samples, 99)


def synthetic(tools: list[Any], copies: int) -> list[Any]:
    out = list(tools)
    for n in range(copies):
        original = tools[n % len(tools)]
        out.append(replace(original, name=f"synth{n // len(tools)}_{original.name}"))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", action="store_true", help="report the tuning and held-out halves apart")
    parser.add_argument("--short", action="store_true", help="CI: 40 requests, no 10,000")
    opts = parser.parse_args()
    registry = discover()
    tools = list(registry)
    requests = load_requests()
    unknown = [r["expected"] for r in requests if r["expected"] not in registry] + [
        a for r in requests for a in r.get("also", []) if a not in registry
    ]
    if unknown:
        print(f"requests name tools that do not exist: {sorted(set(unknown))}", file=sys.stderr)
        return 1
    if opts.short:
        requests = requests[::6]
    started = time.perf_counter()
    index = ToolIndex(tools, embedder=default_embedder())
    if index.semantic:
        index.vectors()
    print(f"index of {len(tools)} tools built in {time.perf_counter() - started:.2f} s")
    methods = [Facade(index), TextbookBM25(tools), Substring(tools)]
    if opts.split:
        report("tuning half (even lines)", methods, requests[0::2])
        report("held-out half (odd lines)", methods, requests[1::2])
    report("all", methods, requests)
    queries = [r["request"] for r in requests]
    p50, p99 = latency(index, queries, 1)
    print(f"query latency at {len(tools)} tools: p50 {p50:.1f} ms, p99 {p99:.1f} ms")
    if not opts.short:
        import numpy as np

        big = synthetic(tools, 10_000)
        started = time.perf_counter()
        large = ToolIndex(big, embedder=index.embedder)
        built = time.perf_counter() - started
        if large.semantic:
            vectors = np.random.default_rng(15).standard_normal((len(big), 384)).astype(np.float32)
            large._vectors = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
        p50, p99 = latency(large, queries, 1)
        print(f"query latency at {len(big)} tools: p50 {p50:.1f} ms, p99 {p99:.1f} ms (lexical index built in {built:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
