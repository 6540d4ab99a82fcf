"""Samples of this machine's own metrics (CPU, memory, disk, load), taken on demand and kept,
and statistics over a metric's series."""

from __future__ import annotations

import os
import statistics
from datetime import datetime
from typing import Any

import psutil
from sqlalchemy import select
from sqlalchemy.orm import Session

from domains.monitoring import inputs, serialize
from domains.monitoring.tables import Metric, Sample
from facade.kit import CallContext, InvalidRequest, Toolset, utcnow

tools = Toolset()

# Long enough for a meaningful CPU reading, short enough for a tool call (psutil's first
# interval-less reading is always 0.0, so a sample needs a window of its own).
CPU_WINDOW_SECONDS = 0.2


def take(db: Session, disk_path: str) -> Sample:
    try:
        disk = psutil.disk_usage(disk_path)
    except OSError as exc:
        raise InvalidRequest(
            f"cannot measure disk usage of {disk_path!r} ({exc.strerror or exc}); give a mount such as '/'"
        ) from None
    memory = psutil.virtual_memory()
    load_1, load_5, load_15 = os.getloadavg()
    sample = Sample(
        taken_at=utcnow(),
        cpu_percent=float(psutil.cpu_percent(interval=CPU_WINDOW_SECONDS)),
        memory_percent=float(memory.percent),
        memory_used_bytes=int(memory.total - memory.available),
        disk_path=disk_path,
        disk_percent=float(disk.percent),
        load_1=round(load_1, 2),
        load_5=round(load_5, 2),
        load_15=round(load_15, 2),
    )
    db.add(sample)
    db.flush()
    return sample


def percentile(ordered: list[float], fraction: float) -> float:
    """The value below which `fraction` of the ordered values fall (nearest rank)."""
    rank = max(1, round(fraction * len(ordered) + 0.5 - 1e-9))
    return ordered[min(rank, len(ordered)) - 1]


def stats(db: Session, metric: Metric, since: datetime, until: datetime) -> dict[str, Any]:
    column = getattr(Sample, metric)
    query = select(Sample.taken_at, column).where(Sample.taken_at >= since, Sample.taken_at < until)
    rows = db.execute(query.order_by(Sample.taken_at, Sample.id)).all()
    window = {"since": since.isoformat(), "until": until.isoformat()}
    if not rows:
        note = "no samples in this window; take one with monitoring.sample_create"
        return {"metric": metric, **window, "count": 0, "note": note}
    values = [float(v) for _, v in rows]
    ordered = sorted(values)
    return {
        "metric": metric,
        **window,
        "count": len(values),
        "min": ordered[0],
        "max": ordered[-1],
        "mean": round(statistics.fmean(values), 3),
        "median": round(statistics.median(values), 3),
        "p95": percentile(ordered, 0.95),
        "stdev": round(statistics.pstdev(values), 3),
        "first": {"taken_at": rows[0][0].isoformat(), "value": values[0]},
        "last": {"taken_at": rows[-1][0].isoformat(), "value": values[-1]},
    }


@tools.capability("sample_create", example={})
def sample_create(ctx: CallContext, args: inputs.SampleCreate) -> dict[str, Any]:
    """Take and store a sample of this machine's CPU, memory, disk and load."""
    return {"sample": serialize.sample(take(ctx.db, args.disk_path))}
