"""PostgreSQL as the metastore: the server's own tables and pyiceberg's SqlCatalog both live there."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa

from tests.e2e.conftest import Server


@pytest.fixture
def pg_server(tmp_path: Path, pg_uri: str) -> Iterator[Server]:
    srv = Server(tmp_path, metastore_uri=pg_uri)
    srv.start()
    yield srv
    srv.stop()


def test_metastore_tables_are_in_postgres(pg_server: Server, pg_uri: str) -> None:
    with pg_server.connect() as conn:
        cur = conn.cursor()
        cur.execute("CREATE DATABASE pgdb")
        cur.execute("CREATE SCHEMA pgdb.raw")
        cur.execute("CREATE TABLE pgdb.raw.events (id INT, kind VARCHAR)")
        cur.execute("INSERT INTO pgdb.raw.events VALUES (1, 'click'), (2, 'view')")
        cur.execute("UPDATE pgdb.raw.events SET kind = 'tap' WHERE id = 1")
        cur.execute("SELECT id, kind FROM pgdb.raw.events ORDER BY id")
        assert cur.fetchall() == [(1, "tap"), (2, "view")]
    # No SQLite file was made: everything is in PostgreSQL.
    assert not (pg_server.data_dir / "metastore.db").exists()
    engine = sa.create_engine(pg_uri)
    with engine.connect() as conn:
        names = sa.inspect(conn).get_table_names()
        databases = [r[0] for r in conn.execute(sa.text("SELECT name FROM embucket_databases"))]
        tables = conn.execute(
            sa.text(
                "SELECT catalog_name, table_namespace, table_name, metadata_location FROM iceberg_tables "
                "WHERE table_name = 'events'"
            )
        ).fetchall()
    engine.dispose()
    assert {"embucket_databases", "embucket_users", "iceberg_tables"} <= set(names)
    assert "pgdb" in databases
    assert len(tables) == 1
    assert tables[0][:3] == ("pgdb", "raw", "events")
    assert tables[0][3].endswith(".metadata.json")


def test_sequences_and_dropped_schemas_on_postgres(pg_server: Server) -> None:
    """NEXTVAL reserves values with an UPDATE in PostgreSQL; a dropped schema's views and
    sequences are set aside there and come back with UNDROP."""
    with pg_server.connect() as conn:
        cur = conn.cursor()
        cur.execute("CREATE DATABASE pgseq")
        cur.execute("CREATE SCHEMA pgseq.s")
        cur.execute("CREATE SEQUENCE pgseq.s.ids START = 5 INCREMENT = 5")
        cur.execute("CREATE VIEW pgseq.s.v AS SELECT 1 AS one")
        cur.execute("SELECT pgseq.s.ids.nextval FROM TABLE(GENERATOR(ROWCOUNT => 3))")
        assert sorted(r[0] for r in cur.fetchall()) == [5, 10, 15]
        cur.execute("DROP SCHEMA pgseq.s")
        cur.execute("UNDROP SCHEMA pgseq.s")
        assert cur.execute("SELECT one, pgseq.s.ids.nextval FROM pgseq.s.v").fetchall() == [(1, 20)]
        cur.execute("DROP SCHEMA pgseq.s")
        cur.execute("CREATE SCHEMA pgseq.s")
        assert cur.execute("SHOW SEQUENCES IN SCHEMA pgseq.s").fetchall() == []
        assert cur.execute("SHOW VIEWS IN SCHEMA pgseq.s").fetchall() == []


def test_restart_keeps_everything(tmp_path: Path, pg_uri: str) -> None:
    first = Server(tmp_path / "a", metastore_uri=pg_uri, warehouse=(tmp_path / "wh").as_uri())
    (tmp_path / "a").mkdir()
    first.start()
    try:
        with first.connect() as conn:
            conn.cursor().execute("CREATE TABLE kept AS SELECT 42 AS answer")
    finally:
        first.stop()
    # A new server process with another data directory: the state is in PostgreSQL + warehouse.
    (tmp_path / "b").mkdir()
    second = Server(tmp_path / "b", metastore_uri=pg_uri, warehouse=(tmp_path / "wh").as_uri())
    second.start()
    try:
        with second.connect() as conn:
            cur = conn.cursor()
            cur.execute("SELECT answer FROM kept")
            assert cur.fetchall() == [(42,)]
    finally:
        second.stop()
