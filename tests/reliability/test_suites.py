"""The fast forms of the load and fault suites (the long forms: python -m tests.reliability.suites)."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.conftest import Server
from tests.reliability import access_probe, suites


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
    # A Snowflake error naming the table, not an internal error; the listing still works.
    assert (
        answers["CORRUPT"].startswith("error 91003:")
        and "'EMBUCKET.PUBLIC.CORRUPT' is not valid" in answers["CORRUPT"]
    )
    assert (
        answers["MISSING"].startswith("error 91003:")
        and "'EMBUCKET.PUBLIC.MISSING' is missing" in answers["MISSING"]
    )
    assert answers["SHOW TABLES"] == "3 tables listed"


def test_orphan_removal_keeps_what_any_table_references(tmp_path: Path) -> None:
    """Files of a dropped table (kept for UNDROP), of a clone's source and of time travel are
    not orphans; a file nothing references is."""
    server = Server(tmp_path)
    server.start()
    try:
        with server.connect() as conn:
            cur = conn.cursor()
            cur.execute("CREATE TABLE src (x INT)")
            cur.execute("INSERT INTO src VALUES (1), (2)")
            cur.execute("INSERT INTO src VALUES (3)")
            cur.execute("CREATE TABLE copy CLONE src")
            cur.execute("DELETE FROM src WHERE x = 1")  # the old files stay for time travel
            cur.execute("CREATE TABLE gone (y INT)")
            cur.execute("INSERT INTO gone VALUES (7)")
            cur.execute("DROP TABLE gone")
        server.stop()
        stray = next((tmp_path / "warehouse").glob("**/src/data")) / "stray.parquet"
        stray.write_bytes(b"not referenced by anything")
        report = suites._maintenance(tmp_path, "--older-than", "0")
        assert f"removed {stray.resolve()}" in report
        assert "cannot read" not in report
        server.start()
        with server.connect() as conn:
            cur = conn.cursor()
            assert cur.execute("SELECT x FROM src ORDER BY x").fetchall() == [(2,), (3,)]
            assert cur.execute("SELECT x FROM copy ORDER BY x").fetchall() == [(1,), (2,), (3,)]
            cur.execute("UNDROP TABLE gone")
            assert cur.execute("SELECT y FROM gone").fetchall() == [(7,)]
        assert not stray.exists()
    finally:
        server.stop()


def test_access_probe_lets_nothing_through(tmp_path: Path) -> None:
    server = Server(tmp_path)
    server.start()
    try:
        figures = access_probe.probe(server)
    finally:
        server.stop()
    assert figures["controls_ok"] and figures["rest_control_ok"]  # the grants it holds do work
    assert figures["succeeded"] == [] and figures["rest_succeeded"] == []
    assert figures["leaks"] == [] and figures["rest_leaks"] == []
    assert figures["sql_refused"] == figures["sql_attempts"] == len(access_probe.REFUSED_SQL)
    assert figures["open_table_unchanged"]
