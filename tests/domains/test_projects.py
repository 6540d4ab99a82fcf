"""The projects domain: every capability's example succeeds in any order on a freshly
seeded database (SQLite, and PostgreSQL when reachable), the domain's rules hold, and the
migration builds exactly the schema of tables.py."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, date
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError
from sqlalchemy import Engine, select

from domains.projects import domain
from domains.projects.tables import Assignment, Comment, Milestone, Project, Task
from facade.serving.database import session_factory
from facade.kit import Conflict, DomainError, InvalidRequest, NotFound
from tests.domains.harness import SHUFFLES, DomainHarness, MigrationContract, count, sqlite_engine

projects = DomainHarness(domain)
call, migrated, seeded = projects.call, projects.migrated, projects.seeded


# Helpers and fixtures


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Engine]:
    """A migrated, seeded SQLite database."""
    engine = seeded(migrated(sqlite_engine(tmp_path / "facade.db")))
    yield engine
    engine.dispose()


# Tests


class TestCatalogue:
    """The domain declares a real catalogue: enough capabilities, both tiers, every one with an
    example and a one-sentence description."""

    def test_floors_and_tiers(self) -> None:
        tiers = [c.tier for c in domain.capabilities]
        assert len(tiers) >= 35
        assert tiers.count("core") >= 20 and tiers.count("full") >= 10

    def test_descriptions_are_one_short_sentence(self) -> None:
        projects.assert_descriptions_are_one_sentence(max_length=90)

    def test_annotations_match_the_verbs(self) -> None:
        for cap in domain.capabilities:
            reads = cap.action.endswith(("_get", "_list", "_stats", "_export", "_workload")) or cap.action == "search"
            assert cap.annotations.read_only == reads, cap.name
            assert cap.annotations.destructive == ("delete" in cap.action), cap.name


class TestExampleWalk:
    """Every capability, run with its example in registration order (and shuffled) on a fresh seeded database,
    succeeds and returns JSON-friendly data."""

    def test_sqlite(self, db: Engine) -> None:
        projects.assert_walk_succeeds(db)

    @pytest.mark.parametrize("seed", SHUFFLES)
    def test_any_order(self, db: Engine, seed: int) -> None:
        projects.assert_walk_succeeds(db, shuffle=seed)

    def test_postgresql(self, pg_schema: Callable[[], Engine]) -> None:
        projects.assert_walk_succeeds(seeded(migrated(pg_schema())))


class TestMigration(MigrationContract):
    """The migration against tables.py, for the six projects tables."""

    harness, tables = projects, 6


class TestSeed:
    """The seed is deterministic and idempotent."""

    def test_ids_follow_the_seed_lists(self, db: Engine) -> None:
        with session_factory(db)() as session:
            names = list(session.scalars(select(Project.name).order_by(Project.id)))
            archived = list(session.scalars(select(Project.id).where(Project.archived_at.is_not(None))))
        assert names == [
            "Website relaunch", "Mobile app 2.0", "Office move", "2025 annual report", "Intranet wiki", "Housekeeping"
        ]
        assert archived == [4]
        assert count(db, Task) == 15 and count(db, Comment) == 5 and count(db, Milestone) == 5

    def test_seeding_twice_adds_nothing(self, db: Engine) -> None:
        before = [count(db, t) for t in (Project, Milestone, Task, Comment, Assignment)]
        seeded(db)
        assert [count(db, t) for t in (Project, Milestone, Task, Comment, Assignment)] == before

    def test_timestamps_come_back_utc_aware(self, db: Engine) -> None:
        created = call(db, "task_create", project_id=1, title="Check the clock")["task"]
        with session_factory(db)() as session:
            task = session.get(Task, created["id"])
            assert task is not None and task.created_at.tzinfo is not None
            assert task.created_at.utcoffset() == UTC.utcoffset(None)
        assert created["created_at"].endswith("+00:00")


class TestTaskRules:
    """A task's milestone belongs to its project and is open; status moves along transitions."""

    def test_milestone_of_another_project_is_refused(self, db: Engine) -> None:
        with pytest.raises(InvalidRequest, match=r"belongs to project 2.*milestone_list"):
            call(db, "task_create", project_id=1, title="Misplaced", milestone_id=3)
        with pytest.raises(InvalidRequest):
            call(db, "task_update", task_id=2, milestone_id=3)
        assert count(db, Task) == 15

    def test_closed_milestone_takes_no_new_tasks(self, db: Engine) -> None:
        with pytest.raises(Conflict, match="milestone 1 is closed"):
            call(db, "task_create", project_id=1, title="Late design tweak", milestone_id=1)

    def test_a_task_may_stay_in_its_closed_milestone(self, db: Engine) -> None:
        task = call(db, "task_update", task_id=1, milestone_id=1, title="Approve homepage mockups (v2)")["task"]
        assert task["milestone_id"] == 1

    def test_null_milestone_detaches(self, db: Engine) -> None:
        assert call(db, "task_update", task_id=2, milestone_id=None)["task"]["milestone_id"] is None

    def test_transitions(self, db: Engine) -> None:
        done = call(db, "task_update", task_id=2, status="done")["task"]
        assert done["status"] == "done" and done["completed_at"] is not None
        with pytest.raises(Conflict, match="from done it can go to todo"):
            call(db, "task_update", task_id=2, status="blocked")
        reopened = call(db, "task_update", task_id=2, status="todo")["task"]
        assert reopened["completed_at"] is None

    def test_assignees_on_create_must_exist(self, db: Engine) -> None:
        with pytest.raises(NotFound, match="person 99 does not exist"):
            call(db, "task_create", project_id=1, title="Ghost work", assignee_ids=[1, 99])
        assert count(db, Task) == 15

    def test_assigning_twice_changes_nothing(self, db: Engine) -> None:
        assert call(db, "task_assign", task_id=2, person_id=2)["changed"] is False
        assert count(db, Assignment, Assignment.task_id == 2) == 1

    def test_unassigning_someone_not_assigned(self, db: Engine) -> None:
        with pytest.raises(NotFound, match="not assigned to task 2"):
            call(db, "task_unassign", task_id=2, person_id=1)

    def test_move_checks_the_target(self, db: Engine) -> None:
        with pytest.raises(InvalidRequest, match="already in project 1"):
            call(db, "task_move", task_id=2, project_id=1)
        with pytest.raises(InvalidRequest, match="belongs to project 1"):
            call(db, "task_move", task_id=2, project_id=2, milestone_id=2)
        moved = call(db, "task_move", task_id=2, project_id=2, milestone_id=3)["task"]
        assert (moved["project_id"], moved["milestone_id"], len(moved["assignees"])) == (2, 3, 1)
        assert count(db, Comment, Comment.task_id == 2) == 1


class TestArchivedProjects:
    """An archived project and everything in it is frozen until unarchived."""

    def test_archived_project_refuses_writes(self, db: Engine) -> None:
        refused: list[tuple[str, dict[str, Any]]] = [
            ("task_create", {"project_id": 4, "title": "Reprint"}),
            ("milestone_create", {"project_id": 4, "name": "Reprint"}),
            ("task_update", {"task_id": 12, "title": "Figures"}),
            ("task_delete", {"task_id": 12}),
            ("comment_create", {"task_id": 12, "body": "Late note"}),
            ("task_assign", {"task_id": 12, "person_id": 3}),
            ("project_update", {"project_id": 4, "name": "Annual report"}),
            ("task_move", {"task_id": 2, "project_id": 4}),
        ]
        for action, args in refused:
            with pytest.raises(Conflict, match=r"project 4 is archived.*project_unarchive"):
                call(db, action, **args)

    def test_unarchive_reopens_and_archive_twice_is_no_change(self, db: Engine) -> None:
        assert call(db, "project_unarchive", project_id=4)["changed"] is True
        assert call(db, "task_create", project_id=4, title="Reprint")["task"]["project_id"] == 4
        assert call(db, "project_archive", project_id=4)["changed"] is True
        assert call(db, "project_archive", project_id=4)["changed"] is False

    def test_lists_hide_archived_projects_unless_asked(self, db: Engine) -> None:
        assert [p["id"] for p in call(db, "project_list")["projects"]] == [1, 2, 3, 5, 6]
        assert call(db, "project_list", include_archived=True)["total"] == 6


class TestComments:
    """A comment needs an existing task; its author defaults to the calling agent."""

    def test_missing_task(self, db: Engine) -> None:
        with pytest.raises(NotFound, match=r"task 99 does not exist; list tasks with projects\.task_list"):
            call(db, "comment_create", task_id=99, body="Hello?")

    def test_author_defaults_to_agent(self, db: Engine) -> None:
        assert call(db, "comment_create", task_id=2, body="On it.")["comment"]["author"] == "test"
        named = call(db, "comment_create", task_id=2, body="Me too.", author="Grace Hopper")
        assert named["comment"]["author"] == "Grace Hopper"


class TestDeletes:
    """Deletes refuse or report what they take with them."""

    def test_project_with_tasks_needs_force(self, db: Engine) -> None:
        with pytest.raises(Conflict, match="still has 5 tasks; pass force=true"):
            call(db, "project_delete", project_id=1)
        result = call(db, "project_delete", project_id=1, force=True)
        assert result["deleted_tasks"] == 5
        assert count(db, Task, Task.project_id == 1) == 0
        assert count(db, Comment, Comment.task_id.in_([2, 4, 5])) == 0
        assert count(db, Milestone, Milestone.project_id == 1) == 0

    def test_milestone_delete_detaches_tasks(self, db: Engine) -> None:
        result = call(db, "milestone_delete", milestone_id=3)
        assert result["detached_task_ids"] == [6, 7, 8]
        assert count(db, Task, Task.id.in_([6, 7, 8]), Task.milestone_id.is_(None)) == 3

    def test_person_delete_removes_assignments(self, db: Engine) -> None:
        assert call(db, "person_delete", person_id=3)["unassigned_task_ids"] == [3, 4, 8]
        assert count(db, Assignment, Assignment.person_id == 3) == 0
        assert count(db, Task) == 15

    def test_deleted_ids_are_never_reused(self, db: Engine) -> None:
        first = call(db, "task_create", project_id=1, title="Temporary")["task"]["id"]
        call(db, "task_delete", task_id=first)
        assert call(db, "task_create", project_id=1, title="Next")["task"]["id"] == first + 1
        with pytest.raises(NotFound):
            call(db, "task_get", task_id=first)


class TestUpdatesAndUniqueness:
    """Updates change only what is given; names and emails stay unique."""

    def test_nothing_to_change(self, db: Engine) -> None:
        with pytest.raises(InvalidRequest, match="nothing to change; give at least one of: title"):
            call(db, "task_update", task_id=2)

    def test_null_on_a_required_field(self, db: Engine) -> None:
        with pytest.raises(InvalidRequest, match="title cannot be null"):
            call(db, "task_update", task_id=2, title=None)

    def test_duplicate_names_and_emails(self, db: Engine) -> None:
        with pytest.raises(Conflict, match="project 1 is already named"):
            call(db, "project_create", name="website RELAUNCH")
        with pytest.raises(Conflict, match="project 2 is already named"):
            call(db, "project_update", project_id=1, name="Mobile app 2.0")
        with pytest.raises(Conflict, match="milestone 2 of project 1"):
            call(db, "milestone_create", project_id=1, name="public launch")
        with pytest.raises(Conflict, match="person 1 already has the email"):
            call(db, "person_create", name="Ada L.", email="ADA@example.com")

    def test_closing_a_milestone_with_open_tasks(self, db: Engine) -> None:
        with pytest.raises(Conflict, match=r"still has open tasks \[2, 3, 4, 5\]"):
            call(db, "milestone_update", milestone_id=2, status="closed")
        call(db, "task_bulk_set_status", task_ids=[2, 3, 4, 5], status="cancelled")
        assert call(db, "milestone_update", milestone_id=2, status="closed")["milestone"]["status"] == "closed"


class TestLists:
    """Lists paginate, filter, and name a missing filter record instead of answering empty."""

    def test_pagination(self, db: Engine) -> None:
        page = call(db, "task_list", limit=5, offset=10)
        assert page["total"] == 15 and [t["id"] for t in page["tasks"]] == [11, 12, 13, 14, 15]

    def test_filters(self, db: Engine) -> None:
        assert [t["id"] for t in call(db, "task_list", assignee_id=3)["tasks"]] == [3, 4, 8]
        early = call(db, "task_list", due_before="2026-10-01")["tasks"]
        assert [t["id"] for t in early] == [1, 12, 13]
        assert call(db, "milestone_list", status="closed")["total"] == 2

    def test_missing_filter_record(self, db: Engine) -> None:
        with pytest.raises(NotFound, match="project 42 does not exist"):
            call(db, "task_list", project_id=42)


class TestBulk:
    """Bulk operations report every item; a failed item changes nothing, the others go through."""

    def test_mixed_results(self, db: Engine) -> None:
        result = call(db, "task_bulk_set_status", task_ids=[2, 1, 99, 12, 2], status="blocked")
        by_id = {r["task_id"]: r for r in result["results"]}
        assert list(by_id) == [2, 1, 99, 12]  # duplicates reported once
        assert by_id[2]["ok"] and by_id[2]["status"] == "blocked"
        assert not by_id[1]["ok"] and "cannot go from done" in by_id[1]["error"]
        assert not by_id[99]["ok"] and "does not exist" in by_id[99]["error"]
        assert not by_id[12]["ok"] and "archived" in by_id[12]["error"]
        assert (result["succeeded"], result["failed"]) == (1, 3)
        assert call(db, "task_get", task_id=1)["task"]["status"] == "done"

    def test_bulk_create_per_item(self, db: Engine) -> None:
        result = call(
            db,
            "task_bulk_create",
            project_id=1,
            tasks=[{"title": "A", "milestone_id": 2}, {"title": "B", "milestone_id": 3}, {"title": "C"}],
        )
        assert [r["ok"] for r in result["results"]] == [True, False, True]
        assert count(db, Task, Task.title.in_(["A", "B", "C"])) == 2

    def test_bulk_create_in_archived_project_is_refused_whole(self, db: Engine) -> None:
        with pytest.raises(Conflict, match="archived"):
            call(db, "task_bulk_create", project_id=4, tasks=[{"title": "A"}])

    def test_bulk_assign_and_delete(self, db: Engine) -> None:
        assigned = call(db, "task_bulk_assign", task_ids=[2, 3], person_id=2)
        assert [r["changed"] for r in assigned["results"]] == [False, True]
        with pytest.raises(NotFound, match="person 77"):
            call(db, "task_bulk_assign", task_ids=[2], person_id=77)
        deleted = call(db, "task_bulk_delete", task_ids=[2, 12, 404])
        assert [r["ok"] for r in deleted["results"]] == [True, False, False]
        assert deleted["results"][0]["deleted_comments"] == 1
        assert count(db, Task) == 14


class TestSearchAndReports:
    """Search, statistics, workload, export and duplication read the real data."""

    def test_search_kinds_and_pagination(self, db: Engine) -> None:
        everything = call(db, "search", query="launch")
        kinds = [(h["kind"], h["id"]) for h in everything["results"]]
        assert kinds == [("project", 1), ("milestone", 2), ("task", 5)]
        assert call(db, "search", query="launch", kinds=["task"])["total"] == 1
        page = call(db, "search", query="launch", limit=1, offset=1)
        assert page["total"] == 3 and [(h["kind"], h["id"]) for h in page["results"]] == [("milestone", 2)]

    def test_search_takes_wildcards_literally(self, db: Engine) -> None:
        assert call(db, "search", query="%%")["total"] == 0
        assert call(db, "search", query="staging", kinds=["comment"])["results"][0]["task_id"] == 4

    def test_project_stats(self, db: Engine) -> None:
        stats = call(db, "project_stats", project_id=1)
        assert stats["tasks"]["total"] == 5
        assert stats["tasks"]["by_status"] == {"todo": 2, "in_progress": 1, "blocked": 1, "done": 1, "cancelled": 0}
        assert stats["tasks"]["completion_percent"] == 20
        assert [(m["id"], m["tasks"], m["done"]) for m in stats["milestones"]] == [(1, 1, 1), (2, 4, 0)]
        open_by_person = {a["person_id"]: a["open_tasks"] for a in stats["open_tasks_by_assignee"]}
        assert open_by_person == {2: 2, 3: 2, 4: 1}

    def test_workload_skips_archived_projects(self, db: Engine) -> None:
        call(db, "project_unarchive", project_id=4)
        call(db, "task_update", task_id=12, status="todo")
        with_report = call(db, "person_workload", person_id=2)["people"][0]["open_tasks"]
        call(db, "project_archive", project_id=4)
        assert call(db, "person_workload", person_id=2)["people"][0]["open_tasks"] == with_report - 1

    def test_export_csv(self, db: Engine) -> None:
        exported = call(db, "project_export", project_id=2, format="csv")["data"]
        lines = exported.splitlines()
        assert lines[0] == "id,title,status,priority,milestone,due_date,assignees,completed_at"
        assert lines[1].startswith("6,Offline sync for notes,in_progress,high,Beta,2026-12-01,Ada Lovelace")
        assert len(lines) == 5

    def test_export_json_holds_comments(self, db: Engine) -> None:
        data = call(db, "project_export", project_id=1)["data"]
        assert [c["id"] for t in data["tasks"] for c in t["comments"]] == [1, 2, 3]

    def test_duplicate_reopens_everything(self, db: Engine) -> None:
        result = call(db, "project_duplicate", project_id=4, name="2026 annual report")
        copy_id = result["project"]["id"]
        assert result["copied"] == {"milestones": 1, "tasks": 2}
        assert not result["project"]["archived"]
        tasks = call(db, "task_list", project_id=copy_id)["tasks"]
        assert {t["status"] for t in tasks} == {"todo"} and all(not t["assignees"] for t in tasks)
        assert call(db, "milestone_list", project_id=copy_id)["milestones"][0]["status"] == "open"
        with pytest.raises(Conflict):
            call(db, "project_duplicate", project_id=1, name="2026 Annual Report")


class TestInputs:
    """Input models refuse what makes no sense before any handler runs."""

    @pytest.mark.parametrize(
        ("action", "args"),
        [
            ("task_create", {"project_id": 1, "title": "   "}),
            ("task_create", {"project_id": 1, "title": "x", "status": "done"}),
            ("task_update", {"task_id": 1, "status": "finished"}),
            ("task_list", {"limit": 500}),
            ("task_get", {"task_id": 0}),
            ("person_create", {"name": "Bob", "email": "not-an-email"}),
            ("project_create", {"name": "P", "auth_token": "x"}),
        ],
    )
    def test_refused(self, action: str, args: dict[str, Any]) -> None:
        cap = next(c for c in domain.capabilities if c.action == action)
        with pytest.raises(ValidationError):
            cap.input_model.model_validate(args)

    def test_email_is_lowercased(self, db: Engine) -> None:
        assert call(db, "person_create", name="Bob", email="Bob@Example.com")["person"]["email"] == "bob@example.com"

    def test_dates_are_dates(self, db: Engine) -> None:
        task = call(db, "task_create", project_id=1, title="Dated", due_date=date(2027, 3, 1).isoformat())["task"]
        assert task["due_date"] == "2027-03-01"

    def test_domain_errors_name_the_fix(self, db: Engine) -> None:
        with pytest.raises(DomainError) as raised:
            call(db, "milestone_get", milestone_id=404)
        expected = "not found: milestone 404 does not exist; list milestones with projects.milestone_list"
        assert str(raised.value) == expected
