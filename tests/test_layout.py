"""The load-bearing walls of the layout, read from the source: which package may import which.

Read statically (every `import`/`from … import` of every module, including those inside
functions), so a lazy import cannot slip past.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from tests.support import REPO

# What each of facade's subpackages may import of facade. Shared leaves (errors, settings, logs,
# threads, affinity, tokencount, file_lock) are open to all but the kit and the host, which stand on their own — except that
# the host counts tokens with the same facts as the server's budget, from the one leaf that
# holds them and imports nothing of facade.
LEAVES = {"errors", "settings", "logs", "threads", "affinity", "tokencount", "retrieval", "file_lock", "__init__"}
ALLOWED: dict[str, set[str]] = {
    "tokencount": set(),
    "retrieval": set(),
    "file_lock": set(),
    "kit": {"errors"},
    "catalogue": {"kit", "errors", "settings", "retrieval", "file_lock"},
    "access": {"kit", "catalogue"} | LEAVES,
    "reports": {"kit", "catalogue", "access", "serving"} | LEAVES,
    "serving": {"kit", "catalogue", "access"} | LEAVES,
    "mcp": {"kit", "catalogue", "access", "serving", "reports"} | LEAVES,  # reports: the TOOLS.md resource
    "web": {"kit", "catalogue", "access", "serving", "reports", "mcp"} | LEAVES,
    "cli": {"kit", "catalogue", "access", "serving", "reports", "mcp", "web", "host"} | LEAVES,
    "host": {"tokencount", "retrieval"},
}


def imports_of(path: Path) -> Iterator[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module
            yield from (f"{node.module}.{alias.name}" for alias in node.names)


def package_of(path: Path) -> str:
    return path.relative_to(REPO / "facade").parts[0].removesuffix(".py")


class TestWalls:
    """Dependencies point inward."""

    def test_each_subpackage_imports_only_what_is_inside_it(self) -> None:
        broken = []
        for path in sorted((REPO / "facade").rglob("*.py")):
            own = package_of(path)
            if own not in ALLOWED:
                continue
            for name in imports_of(path):
                parts = name.split(".")
                if parts[0] != "facade" or len(parts) < 2:
                    continue
                target = parts[1]
                exists = (REPO / "facade" / target).exists() or (REPO / "facade" / f"{target}.py").exists()
                if target != own and target not in ALLOWED[own] and exists:
                    broken.append(f"{path.relative_to(REPO)} imports facade.{target}")
        assert broken == []

    def test_the_host_imports_nothing_of_the_server(self) -> None:
        found = [
            f"{path.relative_to(REPO)}: {name}"
            for path in (REPO / "facade/host").rglob("*.py")
            for name in imports_of(path)
            if name.startswith("facade.") and not name.startswith(("facade.host", "facade.tokencount", "facade.retrieval"))
        ]
        assert found == []

    def test_the_token_facts_are_a_leaf(self) -> None:
        """What the host may import of facade imports nothing of facade itself."""
        found = [name for name in imports_of(REPO / "facade/tokencount.py") if name.startswith("facade")]
        assert found == []

    def test_domains_import_only_the_kit(self) -> None:
        found = [
            f"{path.relative_to(REPO)}: {name}"
            for path in (REPO / "domains").rglob("*.py")
            for name in imports_of(path)
            if name.startswith("facade") and name != "facade.kit" and not name.startswith("facade.kit.")
        ]
        assert found == []

    def test_the_walls_see_every_subpackage(self) -> None:
        packages = {p.name for p in (REPO / "facade").iterdir() if p.is_dir() and (p / "__init__.py").exists()}
        assert packages <= set(ALLOWED), f"new subpackage without a wall: {packages - set(ALLOWED)}"
