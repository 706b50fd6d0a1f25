"""Downloadable results beyond their memory budget move to disk and stay whole."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.conftest import Server

ROWS = 300_000  # ~5 MB of Arrow chunks per result


@pytest.fixture
def small_budget(tmp_path: Path) -> Iterator[Server]:
    srv = Server(tmp_path, result_memory_mb="1")
    srv.start()
    yield srv
    srv.stop()


def _spilled(server: Server, wait: float = 0.0) -> list[Path]:
    """The result files on disk (waiting up to `wait` seconds for some: they are written aside)."""
    deadline = time.monotonic() + wait
    while True:
        found = [p for p in (server.data_dir / "spill").glob("results-*/*") if p.is_file()]
        if found or time.monotonic() >= deadline:
            return found
        time.sleep(0.05)


def test_older_results_move_to_disk_and_still_download(small_budget: Server) -> None:
    sql = f"SELECT seq4() + {{k}} AS n, RANDSTR(20, RANDOM()) AS s FROM TABLE(GENERATOR(ROWCOUNT => {ROWS}))"
    with small_budget.connect() as conn:
        cur = conn.cursor()
        first = cur.execute_async(sql.format(k=0))["queryId"]
        while conn.is_still_running(conn.get_query_status_throw_if_error(first)):
            time.sleep(0.05)
        cur.execute(sql.format(k=1_000_000))
        assert len(cur.fetchall()) == ROWS
        assert _spilled(small_budget, wait=10)  # the first result went to disk to make room
        cur.get_results_from_sfqid(first)
        rows = cur.fetchall()
        assert sorted(n for n, _ in rows) == list(range(ROWS))
        assert all(len(s) == 20 for _, s in rows)
    small_budget.stop()
    assert not _spilled(small_budget)  # the files go with the server
