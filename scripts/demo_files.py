"""Make the demo files the seeds unpack: `domains/documents/demo-files.zip` and
`domains/photos/demo-files.zip`, from the seeds' own definitions, the same bytes on every run.

Run it after changing a demo file, its writer or Pillow; tests/test_demo_archives.py fails until
the archives are current.

    python scripts/demo_files.py            # rewrite the archives that differ
    python scripts/demo_files.py --check    # exit 1 when one differs
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def archives() -> dict[Path, Callable[[], bytes]]:
    """Each shipped archive and the function that makes its bytes."""
    import importlib

    seeds = [importlib.import_module(f"domains.{name}.seed") for name in ("documents", "photos")]
    return {seed.ARCHIVE: seed.archive for seed in seeds}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 when an archive is not current")
    args = parser.parse_args()
    stale = 0
    for path, make in archives().items():
        data = make()
        if path.exists() and path.read_bytes() == data:
            print(f"{path}: current ({len(data):,} bytes)")
            continue
        stale += 1
        if args.check:
            print(f"{path}: not current; run python scripts/demo_files.py")
        else:
            path.write_bytes(data)
            print(f"{path}: written ({len(data):,} bytes)")
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    raise SystemExit(main())
