"""Make the demo files the seeds unpack: `domains/documents/demo-files.zip` and
`domains/photos/demo-files.zip`, from the seeds' own definitions, the same bytes on every run with
the same libraries. An archive records the digest of the sources that made it (each seed's
`SOURCES`); tests/test_demo_archives.py fails until it is remade after one of them changed.

    python scripts/demo_files.py            # remake the archives made from other sources
    python scripts/demo_files.py --force    # remake every archive (after a writer library's upgrade)
    python scripts/demo_files.py --check    # exit 1 when one is out of date
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def archives() -> list[tuple[Path, tuple[str, ...], Callable[[], bytes]]]:
    """Each shipped archive, the sources that make it and the function that makes its bytes."""
    import importlib

    seeds = [importlib.import_module(f"domains.{name}.seed") for name in ("documents", "photos")]
    return [(seed.ARCHIVE, seed.SOURCES, seed.archive) for seed in seeds]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 when an archive is out of date")
    parser.add_argument("--force", action="store_true", help="remake every archive, current or not")
    args = parser.parse_args()
    from facade.kit import archive_digest, source_digest

    stale = 0
    for path, sources, make in archives():
        if path.exists() and archive_digest(path) == source_digest(sources) and not args.force:
            print(f"{path}: current")
            continue
        stale += 1
        if args.check:
            print(f"{path}: made from other sources; run python scripts/demo_files.py")
        else:
            data = make()
            path.write_bytes(data)
            print(f"{path}: written ({len(data):,} bytes)")
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    raise SystemExit(main())
