"""Rebuild the packaged tool embeddings (facade/catalogue/tool-embeddings.npz) from the built-in
catalogue, after a tool's name or description changed; tests/test_search.py says when.

    python scripts/embed_catalogue.py
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from facade.catalogue.discovery import discover  # noqa: E402
from facade.catalogue.search import PACKAGED, write_packaged  # noqa: E402
from facade.retrieval.embedding import MiniLM  # noqa: E402


def main() -> int:
    started = time.perf_counter()
    count = write_packaged(discover(), MiniLM())
    print(f"{count} changed tool texts embedded anew into {PACKAGED} in {time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
