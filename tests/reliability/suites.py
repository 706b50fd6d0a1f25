"""Load and fault suites: each function drives a real server through the connector and returns
figures. `python -m tests.reliability.suites` runs the long forms and prints them; the fast
forms run in tests/reliability/test_suites.py.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import snowflake.connector

from tests.e2e.conftest import Server
from tests.reliability import access_probe


def _table(conn: snowflake.connector.SnowflakeConnection, name: str) -> None:
    conn.cursor().execute(f"CREATE TABLE IF NOT EXISTS {name} (batch VARCHAR, n INT, writer INT)")


def _insert_batch(cur: Any, table: str, writer: int, rows: int) -> str:
    """One INSERT of `rows` rows sharing a batch id (all or none of them may ever be visible)."""
    batch = uuid.uuid4().hex
    values = ", ".join(f"('{batch}', {i}, {writer})" for i in range(rows))
    cur.execute(f"INSERT INTO {table} VALUES {values}")
    return batch


def mixed_load(
    server: Server, sessions: int = 32, seconds: float = 10.0, at_least: int = 0
) -> dict[str, Any]:
    """`sessions` connections for `seconds` (and at least `at_least` statements each): inserts
    into a shared and an own table, reads of both."""
    with server.connect() as conn:
        _table(conn, "LOAD_SHARED")
    done: list[int] = [0] * sessions
    committed: list[int] = [0] * sessions
    errors: list[str] = []
    deadline = time.monotonic() + seconds

    def session(i: int) -> None:
        try:
            with server.connect() as conn:
                cur = conn.cursor()
                _table(conn, f"LOAD_OWN_{i}")
                own = 0
                while time.monotonic() < deadline or done[i] < at_least:
                    step = random.random()
                    if step < 0.3:
                        _insert_batch(cur, "LOAD_SHARED", i, 5)
                        committed[i] += 5
                    elif step < 0.5:
                        _insert_batch(cur, f"LOAD_OWN_{i}", i, 3)
                        own += 3
                    elif step < 0.75:
                        cur.execute(f"SELECT COUNT(*) FROM LOAD_OWN_{i}")
                        if cur.fetchone()[0] != own:
                            errors.append(f"session {i}: own table count differs")
                    else:
                        cur.execute("SELECT writer, COUNT(*) FROM LOAD_SHARED GROUP BY writer")
                        cur.fetchall()
                    done[i] += 1
        except Exception as e:
            errors.append(f"session {i}: {type(e).__name__}: {e}")

    threads = [threading.Thread(target=session, args=(i,)) for i in range(sessions)]
    start = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.monotonic() - start
    with server.connect() as conn:
        rows = conn.cursor().execute("SELECT COUNT(*) FROM LOAD_SHARED").fetchone()[0]
    return {
        "sessions": sessions,
        "seconds": round(elapsed, 1),
        "statements": sum(done),
        "statements_per_second": round(sum(done) / elapsed, 1),
        "unexpected_errors": errors,
        "shared_rows": rows,
        "shared_rows_committed": sum(committed),
        "rows_lost": sum(committed) - rows,
    }


def concurrent_writers(server: Server, writers: int = 8, inserts: int = 10) -> dict[str, Any]:
    """`writers` sessions each INSERT `inserts` times into one table; the table must hold exactly
    the rows of the acknowledged inserts."""
    table = f"WRITERS_{uuid.uuid4().hex[:8].upper()}"
    with server.connect() as conn:
        _table(conn, table)
    acked: list[str] = []
    errors: list[str] = []

    def write(w: int) -> None:
        try:
            with server.connect() as conn:
                cur = conn.cursor()
                acked.extend(_insert_batch(cur, table, w, 4) for _ in range(inserts))
        except Exception as e:
            errors.append(f"writer {w}: {type(e).__name__}: {e}")

    threads = [threading.Thread(target=write, args=(w,)) for w in range(writers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    with server.connect() as conn:
        cur = conn.cursor()
        rows = cur.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]
        batches = dict(cur.execute(f"SELECT batch, COUNT(*) FROM {table} GROUP BY batch").fetchall())
    return {
        "writers": writers,
        "inserts_acknowledged": len(acked),
        "rows": rows,
        "rows_lost": 4 * len(acked) - rows,
        "phantom_batches": len(set(batches) - set(acked)),
        "partial_batches": sum(1 for n in batches.values() if n != 4),
        "errors": errors,
    }


def _maintenance(data_dir: Path, *args: str) -> str:
    command = [
        sys.executable,
        "-m",
        "embucket_py",
        "maintenance",
        "remove-orphans",
        "--data-dir",
        str(data_dir),
    ]
    done = subprocess.run([*command, *args], capture_output=True, text=True, timeout=300)
    return done.stdout + done.stderr


def kill_during_writes(
    data_dir: Path, writers: int = 6, tables: int = 3, run_for: float = 4.0
) -> dict[str, Any]:
    """A write storm over several tables, `kill -9` of the server mid-storm, restart, then checks:
    every table loads, rows = acknowledged inserts (plus at most the inserts in flight at the
    kill), no partial batch, and orphan removal deletes only unreferenced files."""
    server = Server(data_dir)
    try:
        return _kill_during_writes(server, data_dir, writers, tables, run_for)
    finally:
        server.stop()  # also when a check fails midway: never leave a server behind


def _kill_during_writes(
    server: Server, data_dir: Path, writers: int, tables: int, run_for: float
) -> dict[str, Any]:
    server.start()
    names = [f"STORM_{i}" for i in range(tables)]
    with server.connect() as conn:
        for name in names:
            _table(conn, name)
    acked: dict[str, list[str]] = {n: [] for n in names}
    in_flight = [0]
    lock = threading.Lock()
    stop = threading.Event()

    def write(w: int) -> None:
        try:
            conn = server.connect(network_timeout=10, login_timeout=10)
            cur = conn.cursor()
        except Exception:
            return
        while not stop.is_set():
            table = random.choice(names)
            with lock:
                in_flight[0] += 1
            try:
                batch = _insert_batch(cur, table, w, 3)
            except Exception:
                return  # the server is gone
            with lock:
                in_flight[0] -= 1
                acked[table].append(batch)

    threads = [threading.Thread(target=write, args=(w,), daemon=True) for w in range(writers)]
    for t in threads:
        t.start()
    time.sleep(run_for)
    assert server.process is not None
    os.kill(server.process.pid, signal.SIGKILL)
    server.process.wait()
    stop.set()
    for t in threads:
        t.join(30)
    server.process = None
    with lock:
        acknowledged = {n: list(b) for n, b in acked.items()}
        maybe = in_flight[0]
    server.start()
    figures: dict[str, Any] = {"writers": writers, "tables": tables, "in_flight_at_kill": maybe}
    problems: list[str] = []

    def check() -> int:
        total = 0
        with server.connect() as conn:
            cur = conn.cursor()
            for name in names:
                batches = dict(cur.execute(f"SELECT batch, COUNT(*) FROM {name} GROUP BY batch").fetchall())
                total += sum(batches.values())
                missing = set(acknowledged[name]) - set(batches)
                if missing:
                    problems.append(f"{name}: {len(missing)} acknowledged inserts lost")
                if any(n != 3 for n in batches.values()):
                    problems.append(f"{name}: partially visible insert")
                extra = len(set(batches) - set(acknowledged[name]))
                figures[f"{name}_unacknowledged_visible"] = extra
        return total

    figures["inserts_acknowledged"] = sum(len(b) for b in acknowledged.values())
    figures["rows_after_restart"] = check()
    server.stop()
    report = _maintenance(data_dir, "--older-than", "0")
    figures["orphans"] = report.strip().splitlines()[-1] if report.strip() else ""
    server.start()
    figures["rows_after_orphan_removal"] = check()
    server.stop()
    figures["rows_lost"] = sum(p.count("lost") for p in problems)
    figures["problems"] = problems
    return figures


def corrupt_metadata(data_dir: Path) -> dict[str, Any]:
    """Overwrite one table's current metadata file, delete another's: only those two fail, with
    a clear error, and a third table still reads."""
    server = Server(data_dir)
    try:
        return _corrupt_metadata(server, data_dir)
    finally:
        server.stop()


def _corrupt_metadata(server: Server, data_dir: Path) -> dict[str, Any]:
    server.start()
    with server.connect() as conn:
        cur = conn.cursor()
        for name in ("GOOD", "CORRUPT", "MISSING"):
            cur.execute(f"CREATE TABLE {name} (x INT)")
            cur.execute(f"INSERT INTO {name} VALUES (1), (2)")
    server.stop()
    warehouse = data_dir / "warehouse"

    def newest(table: str) -> Path:
        files = sorted(
            warehouse.glob(f"**/{table.lower()}/metadata/*.metadata.json"), key=lambda p: p.stat().st_mtime
        )
        return files[-1]

    newest("CORRUPT").write_text("{ not json")
    newest("MISSING").unlink()
    server.start()
    answers: dict[str, str] = {}
    with server.connect() as conn:
        cur = conn.cursor()
        for name in ("GOOD", "CORRUPT", "MISSING"):
            try:
                answers[name] = f"rows={cur.execute(f'SELECT COUNT(*) FROM {name}').fetchone()[0]}"
            except snowflake.connector.errors.Error as e:
                answers[name] = f"error {e.errno}: {e.msg}"
        try:
            answers["SHOW TABLES"] = f"{len(cur.execute('SHOW TABLES').fetchall())} tables listed"
        except snowflake.connector.errors.Error as e:
            answers["SHOW TABLES"] = f"error {e.errno}: {e.msg}"
    server.stop()
    return answers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sessions", type=int, default=32)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--writers", type=int, default=16)
    parser.add_argument("--data-dir", default="/tmp/embucket-reliability")
    args = parser.parse_args()
    root = Path(args.data_dir) / uuid.uuid4().hex[:8]
    (root / "load").mkdir(parents=True)
    server = Server(root / "load", workers="16")
    server.start()
    try:
        print("mixed load:", json.dumps(mixed_load(server, args.sessions, args.seconds), indent=1))
        print("concurrent writers:", json.dumps(concurrent_writers(server, args.writers, 20), indent=1))
        print("access probe:", json.dumps(access_probe.probe(server), indent=1))
    finally:
        server.stop()
    for attempt in range(3):
        (root / f"kill{attempt}").mkdir()
        figures = kill_during_writes(root / f"kill{attempt}", run_for=4.0 + 3 * attempt)
        print(f"kill -9 #{attempt + 1}:", json.dumps(figures, indent=1))
    (root / "corrupt").mkdir()
    print("corrupt metadata:", json.dumps(corrupt_metadata(root / "corrupt"), indent=1))


if __name__ == "__main__":
    main()
