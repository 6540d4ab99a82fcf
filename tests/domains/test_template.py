"""Every bundled domain is laid out the same way, read from the source and from the objects:

- `domains/<d>/__init__.py` defines `domain = Domain(..., toolsets=(...))`, and nothing else
  declares capabilities on it;
- each concept module of the package declares its capabilities into a module-level
  `facade.kit.Toolset` (`tools`, and a second one where the listing puts some of them later);
  every such toolset is passed to the domain exactly once, so none is lost or listed twice;
- no module imports the package's `__init__`, and the imports inside a package form no circle
  (read statically, including imports inside functions), so registration never depends on
  which module Python happens to import first.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

from facade.kit import Domain, Toolset
from tests.support import REPO

DOMAINS = REPO / "domains"
PACKAGES = sorted(p.name for p in DOMAINS.iterdir() if (p / "__init__.py").is_file())


def modules_of(package: str) -> dict[str, Path]:
    """Every module of `domains.<package>` by dotted name (the package itself included), but its
    Alembic revisions, which Alembic loads by path."""
    base = DOMAINS / package
    found: dict[str, Path] = {}
    for path in sorted(base.rglob("*.py")):
        rel = path.relative_to(DOMAINS.parent).with_suffix("")
        if "migrations" in rel.parts:
            continue
        parts = list(rel.parts[:-1] if rel.name == "__init__" else rel.parts)
        found[".".join(parts)] = path
    return found


def imports_within(package: str) -> dict[str, set[str]]:
    """module -> the modules of the same package it imports. `from P import n` imports the
    module `P.n` when there is one, else `P` itself; relative imports are resolved."""
    modules = modules_of(package)
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        home = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = home.split(".")[: len(home.split(".")) - node.level + 1]
                    source = ".".join(base + ([node.module] if node.module else []))
                else:
                    source = node.module or ""
                targets = [f"{source}.{a.name}" if f"{source}.{a.name}" in modules else source for a in node.names]
            for target in targets:
                while target and target not in modules:  # a name inside a module: the module
                    target = target.rpartition(".")[0]
                if target and target != name:
                    graph[name].add(target)
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


class TestImports:
    """Dependencies inside a domain point one way: `__init__` -> concept modules -> the kit."""

    def test_the_circle_finder_finds_a_circle(self) -> None:
        graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
        assert circles(graph) == [["a", "b", "c"]]
        assert circles({"a": {"b"}, "b": set()}) == []

    def test_the_graph_sees_every_kind_of_import(self) -> None:
        graph = imports_within("projects")
        assert "domains.projects.tasks" in graph["domains.projects"]  # from domains.projects import tasks
        assert "domains.projects.entities" in graph["domains.projects.tasks"]  # from ….entities import TASK
        assert all(not name.endswith(".migrations") for name in graph)

    @pytest.mark.parametrize("package", PACKAGES)
    def test_no_import_circle(self, package: str) -> None:
        assert circles(imports_within(package)) == []

    @pytest.mark.parametrize("package", PACKAGES)
    def test_no_module_imports_its_package(self, package: str) -> None:
        graph = imports_within(package)
        importers = sorted(name for name, targets in graph.items() if f"domains.{package}" in targets)
        assert importers == []


class TestTemplate:
    """One template for every domain."""

    def test_all_fifteen_are_checked(self) -> None:
        assert len(PACKAGES) >= 15

    @pytest.mark.parametrize("package", PACKAGES)
    def test_the_domain_is_defined_where_its_package_starts(self, package: str) -> None:
        tree = ast.parse((DOMAINS / package / "__init__.py").read_text())
        made = [
            node.value
            for node in tree.body
            if isinstance(node, ast.Assign)
            and [t.id for t in node.targets if isinstance(t, ast.Name)] == ["domain"]
            and isinstance(node.value, ast.Call)
            and getattr(node.value.func, "id", None) == "Domain"
        ]
        assert len(made) == 1, "domain = Domain(...) once, at the top level of __init__.py"
        assert "toolsets" in {k.arg for k in made[0].keywords}
        assert importlib.import_module(f"domains.{package}").domain.name == package

    @pytest.mark.parametrize("package", PACKAGES)
    def test_no_capabilities_module_and_no_tools_folder(self, package: str) -> None:
        base = DOMAINS / package
        assert not (base / "capabilities.py").exists()
        folders = sorted(p.name for p in base.iterdir() if p.is_dir() and p.name not in ("migrations", "__pycache__"))
        assert folders == []

    @pytest.mark.parametrize("package", PACKAGES)
    def test_every_toolset_is_the_domains_once(self, package: str) -> None:
        domain: Domain = importlib.import_module(f"domains.{package}").domain
        declared = [
            (name, value)
            for name in modules_of(package)
            if name != f"domains.{package}"
            for value in vars(importlib.import_module(name)).values()
            if isinstance(value, Toolset)
        ]
        given = list(domain.toolsets)
        assert len({id(t) for t in given}) == len(given), "a toolset passed twice"
        assert {id(t) for _, t in declared} == {id(t) for t in given}, "a module's toolset is not the domain's"
        # A module's (first) toolset is called `tools`.
        assert all(isinstance(vars(importlib.import_module(name)).get("tools"), Toolset) for name, _ in declared)
        # Every capability came from a toolset: nothing is added to the domain on the side.
        assert len(domain.capabilities) == sum(len(t.declarations) for t in given) > 0
