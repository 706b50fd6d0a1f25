"""A query larger than its memory limit spills to disk instead of failing or taking the server down."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.conftest import Server


def test_a_sort_larger_than_the_query_memory_limit_spills_and_completes(tmp_path: Path) -> None:
    server = Server(tmp_path, query_memory_mb="16")
    server.start()
    try:
        with server.connect() as conn:
            cur = conn.cursor()
            # 1,500,000 rows of ~40 bytes: well over 16 MB held by one full sort.
            cur.execute(
                "SELECT REPEAT('x', 30) || n::VARCHAR AS s "
                "FROM (SELECT seq8() AS n FROM TABLE(GENERATOR(ROWCOUNT => 1500000))) ORDER BY s DESC"
            )
            got = [r[0] for r in cur.fetchall()]
            assert got == sorted((f"{'x' * 30}{n}" for n in range(1_500_000)), reverse=True)
            cur.execute("SELECT 1")  # the server is still serving
            assert cur.fetchone() == (1,)
    finally:
        server.stop()
