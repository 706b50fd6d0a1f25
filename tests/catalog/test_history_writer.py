"""The query history's writer thread: batched, in order, and always flushed before a read."""

from __future__ import annotations

import time
from pathlib import Path

import pyarrow as pa
import pytest

from embucket_py.catalog import history as history_module
from embucket_py.catalog.history import QueryHistory, QueryStart
from embucket_py.catalog.metastore import Metastore


def _history(tmp_path: Path) -> QueryHistory:
    return QueryHistory(Metastore(f"sqlite:///{tmp_path}/metastore.db", (tmp_path / "warehouse").as_uri()))


def _start(history: QueryHistory, query_id: str, text: str, start_ms: int) -> None:
    history.started(QueryStart(query_id, text, 7, "U", "R", None, "DB", "S", "", start_ms, None))


def test_rows_are_read_back_at_once_and_in_order(tmp_path: Path) -> None:
    history = _history(tmp_path)
    for i in range(50):
        _start(history, f"q{i}", f"SELECT {i}", 1000 + i)
        history.finished(f"q{i}", end_ms=2000 + i, query_type="SELECT", rows=i)
    _start(history, "running", "SELECT 'still'", 5000)
    rows = history.rows(session_id=7, limit=100)
    assert [r["query_id"] for r in rows] == ["running", *(f"q{i}" for i in reversed(range(50)))]
    assert rows[0]["execution_status"] == "RUNNING"
    assert (rows[1]["execution_status"], rows[1]["rows_produced"], rows[1]["end_ms"]) == ("SUCCESS", 49, 2049)
    assert history.times("q3") == (1003, 2003)
    history.close()


def test_a_rerun_under_the_same_id_keeps_the_first_text_and_takes_the_last_end(tmp_path: Path) -> None:
    history = _history(tmp_path)
    _start(history, "q", "INSERT INTO t VALUES (?)", 1)
    history.finished("q", end_ms=2, rows=1)
    history.flush()
    _start(history, "q", "INSERT INTO t VALUES (?) -- again", 3)
    history.finished("q", end_ms=4, rows=2)
    history.flush()
    history._recorded.clear()  # long forgotten by the writer: the table is asked instead
    _start(history, "q", "INSERT INTO t VALUES (?) -- third", 5)
    history.finished("q", end_ms=6, rows=3)
    (row,) = history.rows(session_id=7)
    assert (row["query_text"], row["end_ms"], row["rows_produced"]) == ("INSERT INTO t VALUES (?)", 6, 3)
    history.close()


def test_a_result_copy_is_readable_at_once_and_kept_after_close(tmp_path: Path) -> None:
    history = _history(tmp_path)
    table = pa.table({"x": [1, 2, 3]})
    large = pa.table({"x": pa.array(range(100_000), pa.int64())})  # 800 KB: a file, not a row
    history.save_result("r", table)
    history.save_result("large", large)
    assert history.load_result("r") == table
    history.close()
    assert not history.result_path("r").exists()  # small copies live in the metastore
    assert history.result_path("large").exists()
    reopened = _history(tmp_path)
    assert reopened.load_result("r") == table
    assert reopened.load_result("large") == large
    assert reopened.load_result("unknown") is None
    # After close, writes happen in the caller's thread.
    _start(history, "late", "SELECT 1", 9)
    assert [r["query_id"] for r in reopened.rows(session_id=7)] == ["late"]


def test_small_copies_beyond_the_bound_are_dropped_oldest_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(history_module, "MAX_RESULT_FILES", 5)
    monkeypatch.setattr(history_module, "RESCAN_EVERY", 3)
    history = _history(tmp_path)
    for i in range(12):
        history.save_result(f"r{i}", pa.table({"x": [i]}))
        history.flush()  # one batch each: every copy gets its own time
        time.sleep(0.002)
    kept = [i for i in range(12) if history.load_result(f"r{i}") is not None]
    assert kept[-1] == 11 and 5 <= len(kept) < 12
    assert kept == list(range(12 - len(kept), 12))  # the newest ones, no gaps
    history.close()
