"""Writes a deterministic batch of raw events (JSON lines + CSV) for the medallion job.

The batch has what real feeds have: the same event delivered twice, a later correction of an
event (same event_id, newer updated_at), and malformed rows (no customer, non-numeric amount).
`expected_gold` computes what the gold table must hold after ingesting batches, in plain Python.
"""

from __future__ import annotations

import argparse
import csv
import json
import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path

NEEDS_SPARK = False
FIELDS = ("event_id", "customer_id", "event_type", "amount", "updated_at")
_EPOCH = datetime(2024, 1, 1, tzinfo=UTC)


@dataclass(frozen=True)
class RawEvent:
    event_id: str
    customer_id: str
    event_type: str
    amount: str
    updated_at: str


def generate(batch: int, events: int, customers: int, seed: int = 7) -> list[RawEvent]:
    rng = random.Random(seed * 1000 + batch)
    rows = []
    for i in range(events):
        when = _EPOCH + timedelta(days=batch, minutes=i)
        rows.append(
            RawEvent(
                event_id=f"b{batch}-e{i}",
                customer_id=str(rng.randrange(1, customers + 1)),
                event_type=rng.choice(("purchase", "purchase", "purchase", "refund")),
                amount=f"{rng.randrange(100, 50000) / 100:.2f}",
                updated_at=when.strftime("%Y-%m-%d %H:%M:%S"),
            )
        )
    # Duplicate deliveries, a correction of an earlier event, and malformed rows.
    rows.extend(rows[: max(events // 10, 1)])
    first = rows[0]
    later = (datetime.strptime(first.updated_at, "%Y-%m-%d %H:%M:%S") + timedelta(hours=1)).strftime(
        "%Y-%m-%d %H:%M:%S"
    )
    rows.append(RawEvent(first.event_id, first.customer_id, first.event_type, "999.99", later))
    rows.append(RawEvent(f"b{batch}-bad1", "", "purchase", "10.00", later))
    rows.append(RawEvent(f"b{batch}-bad2", "1", "purchase", "ten", later))
    return rows


def write_batch(directory: Path, batch: int, rows: list[RawEvent]) -> list[Path]:
    """Half the rows as JSON lines, half as CSV (both formats arrive in practice)."""
    directory.mkdir(parents=True, exist_ok=True)
    half = len(rows) // 2
    json_path = directory / f"events-{batch:04d}.json"
    json_path.write_text("".join(json.dumps(r.__dict__) + "\n" for r in rows[:half]))
    csv_path = directory / f"events-{batch:04d}.csv"
    with csv_path.open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(FIELDS)
        writer.writerows([getattr(r, k) for k in FIELDS] for r in rows[half:])
    return [json_path, csv_path]


def _valid(row: RawEvent) -> bool:
    try:
        Decimal(row.amount)
        return bool(row.customer_id) and int(row.customer_id) > 0
    except (ArithmeticError, ValueError):
        return False


def expected_gold(batches: Iterable[list[RawEvent]]) -> dict[int, tuple[int, int, Decimal]]:
    """customer_id -> (purchases, refunds, net amount) after de-duplication by latest updated_at."""
    latest: dict[str, RawEvent] = {}
    for rows in batches:
        for row in rows:
            if _valid(row) and (
                row.event_id not in latest or row.updated_at > latest[row.event_id].updated_at
            ):
                latest[row.event_id] = row
    gold: dict[int, tuple[int, int, Decimal]] = {}
    for row in latest.values():
        purchases, refunds, net = gold.get(int(row.customer_id), (0, 0, Decimal("0.00")))
        amount = Decimal(row.amount)
        if row.event_type == "purchase":
            gold[int(row.customer_id)] = (purchases + 1, refunds, net + amount)
        else:
            gold[int(row.customer_id)] = (purchases, refunds + 1, net - amount)
    return gold


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", required=True, type=Path, help="directory to write raw files into")
    parser.add_argument("--batch", type=int, default=0, help="batch number (changes the data)")
    parser.add_argument("--events", type=int, default=200)
    parser.add_argument("--customers", type=int, default=20)
    parser.add_argument("--seed", type=int, default=7)


def run(spark: object, catalog: object, args: argparse.Namespace, say: Callable[[str], None]) -> None:
    rows = generate(args.batch, args.events, args.customers, args.seed)
    for path in write_batch(args.out, args.batch, rows):
        say(f"wrote {path}")
    say(f"{len(rows)} raw events in batch {args.batch}")
