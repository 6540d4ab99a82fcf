"""The kit's per-item loop: each item succeeds or fails on its own and is reported."""

from __future__ import annotations

from typing import Any

import pytest

from facade.kit import Conflict, NotFound, each


def halve(n: int) -> dict[str, Any]:
    if n % 2:
        raise Conflict(f"{n} is odd")
    if n < 0:
        raise NotFound(f"{n} is below zero")
    return {"half": n // 2}


class TestEach:
    """`each` reports every item in order, counts the outcomes and lets bugs through."""

    def test_reports_every_item_in_order(self) -> None:
        assert each([4, 3, -2, 0], "n", halve) == {
            "results": [
                {"n": 4, "ok": True, "half": 2},
                {"n": 3, "ok": False, "error": "conflict: 3 is odd"},
                {"n": -2, "ok": False, "error": "not found: -2 is below zero"},
                {"n": 0, "ok": True, "half": 0},
            ],
            "succeeded": 2,
            "failed": 2,
        }

    def test_an_item_given_twice_runs_once(self) -> None:
        ran: list[int] = []

        def act(n: int) -> dict[str, Any]:
            ran.append(n)
            return {}

        outcome = each([2, 2, 4, 2], "n", act)
        assert ran == [2, 4]
        assert [r["n"] for r in outcome["results"]] == [2, 4]

    def test_without_distinct_every_occurrence_runs(self) -> None:
        taken: set[str] = set()

        def create(code: str) -> dict[str, Any]:
            if code in taken:
                raise Conflict(f"{code} is taken")
            taken.add(code)
            return {"created": code}

        outcome = each(["A", "A", "B"], "code", create, distinct=False)
        assert [r["ok"] for r in outcome["results"]] == [True, False, True]
        assert outcome["results"][1] == {"code": "A", "ok": False, "error": "conflict: A is taken"}
        assert (outcome["succeeded"], outcome["failed"]) == (2, 1)

    def test_key_names_an_item_by_what_it_holds(self) -> None:
        items = [{"name": "web", "size": 4}, {"name": "db", "size": 3}]
        outcome = each(items, "name", lambda item: halve(item["size"]), key=lambda item: item["name"], distinct=False)
        assert outcome["results"] == [
            {"name": "web", "ok": True, "half": 2},
            {"name": "db", "ok": False, "error": "conflict: 3 is odd"},
        ]

    def test_nothing_to_do(self) -> None:
        assert each([], "n", halve) == {"results": [], "succeeded": 0, "failed": 0}

    def test_a_bug_is_not_reported_as_an_item_failure(self) -> None:
        # Only domain errors are an item's refusal; anything else is a defect and must surface.
        with pytest.raises(ZeroDivisionError):
            each([1], "n", lambda n: {"x": n / 0})
