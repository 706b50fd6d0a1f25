"""The fast forms of the load and fault suites (the long forms: python -m tests.reliability.suites)."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.conftest import Server
from tests.reliability import suites


def test_mixed_load_and_concurrent_writers(tmp_path: Path) -> None:
    server = Server(tmp_path)
    server.start()
    try:
        load = suites.mixed_load(server, sessions=8, seconds=4, at_least=4)
        assert load["unexpected_errors"] == []
        assert load["statements"] >= 8 * 4
        assert load["rows_lost"] == 0
        writers = suites.concurrent_writers(server, writers=4, inserts=4)
        assert writers["errors"] == []
        assert writers["rows"] == 4 * writers["inserts_acknowledged"] == 4 * 4 * 4
        assert writers["phantom_batches"] == 0 and writers["partial_batches"] == 0
    finally:
        server.stop()


def test_kill_9_during_writes_loses_nothing(tmp_path: Path) -> None:
    figures = suites.kill_during_writes(tmp_path, writers=4, tables=2, run_for=3.0)
    assert figures["problems"] == []
    assert figures["rows_lost"] == 0
    assert figures["rows_after_restart"] == figures["rows_after_orphan_removal"]
    # Every acknowledged insert is there; at most the inserts in flight at the kill were added.
    acknowledged = 3 * figures["inserts_acknowledged"]
    assert acknowledged <= figures["rows_after_restart"] <= acknowledged + 3 * figures["in_flight_at_kill"]


def test_corrupt_metadata_affects_only_its_table(tmp_path: Path) -> None:
    answers = suites.corrupt_metadata(tmp_path)
    assert answers["GOOD"] == "rows=2"
    assert answers["CORRUPT"].startswith("error") and answers["MISSING"].startswith("error")
