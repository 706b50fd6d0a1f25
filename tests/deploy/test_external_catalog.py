"""External Iceberg REST catalogs: a database of one server linked to another server's `/iceberg`
endpoint through a catalog integration. Tables made through either server are the same tables."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import snowflake.connector

from tests.e2e.conftest import Server

SECRET = "embucket"  # the remote server's default user's password: the OAuth client secret


@pytest.fixture
def pair(tmp_path: Path) -> Iterator[tuple[Server, Server]]:
    """(local, remote): two servers with separate metastores and warehouses."""
    remote = Server(tmp_path / "remote")
    local = Server(tmp_path / "local")
    for srv in (remote, local):
        srv.data_dir.mkdir()
        srv.start()
    yield local, remote
    for srv in (local, remote):
        srv.stop()


def integration_sql(remote: Server, name: str = "REMOTE_CAT", secret: str = SECRET) -> str:
    return f"""
        CREATE CATALOG INTEGRATION {name}
          CATALOG_SOURCE = ICEBERG_REST
          TABLE_FORMAT = ICEBERG
          REST_CONFIG = (CATALOG_URI = 'http://127.0.0.1:{remote.port}/iceberg' CATALOG_NAME = 'SALES')
          REST_AUTHENTICATION = (TYPE = OAUTH OAUTH_CLIENT_ID = 'embucket' OAUTH_CLIENT_SECRET = '{secret}')
          ENABLED = TRUE"""


def test_tables_are_shared_both_ways(pair: tuple[Server, Server]) -> None:
    local, remote = pair
    with remote.connect() as rconn:
        rcur = rconn.cursor()
        rcur.execute("CREATE DATABASE sales")
        rcur.execute("CREATE TABLE sales.public.orders (id INT, amount NUMBER(10, 2))")
        rcur.execute("INSERT INTO sales.public.orders VALUES (1, 10.50), (2, 20.00)")
    with local.connect() as conn:
        cur = conn.cursor()
        cur.execute(integration_sql(remote))
        cur.execute("CREATE DATABASE linked LINKED_CATALOG = (CATALOG = 'REMOTE_CAT')")
        assert cur.fetchone() == ("Database LINKED successfully created.",)
        cur.execute("SELECT id, amount FROM linked.public.orders ORDER BY id")
        assert [(i, str(a)) for i, a in cur.fetchall()] == [(1, "10.50"), (2, "20.00")]
        # Writes through the linked database land in the remote catalog.
        cur.execute("INSERT INTO linked.public.orders VALUES (3, 30.25)")
        cur.execute("UPDATE linked.public.orders SET amount = amount + 1 WHERE id = 1")
        cur.execute("DELETE FROM linked.public.orders WHERE id = 2")
        cur.execute("CREATE TABLE linked.public.customers (id INT, name VARCHAR)")
        cur.execute("INSERT INTO linked.public.customers VALUES (7, 'Ann')")
        cur.execute(
            "MERGE INTO linked.public.customers t USING (SELECT 7 AS id, 'Anna' AS name "
            "UNION ALL SELECT 8, 'Bo') s ON t.id = s.id "
            "WHEN MATCHED THEN UPDATE SET name = s.name WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.name)"
        )
        cur.execute("SHOW TABLES IN DATABASE linked")
        names = {row[1] for row in cur.fetchall()}
        assert {"ORDERS", "CUSTOMERS"} <= names
    with remote.connect() as rconn:
        rcur = rconn.cursor()
        rcur.execute("SELECT id, amount FROM sales.public.orders ORDER BY id")
        assert [(i, str(a)) for i, a in rcur.fetchall()] == [(1, "11.50"), (3, "30.25")]
        rcur.execute("SELECT id, name FROM sales.public.customers ORDER BY id")
        assert rcur.fetchall() == [(7, "Anna"), (8, "Bo")]


def test_time_travel_through_the_link(pair: tuple[Server, Server]) -> None:
    local, remote = pair
    with remote.connect() as rconn:
        rconn.cursor().execute("CREATE DATABASE sales")
    with local.connect() as conn:
        cur = conn.cursor()
        cur.execute(integration_sql(remote))
        cur.execute("CREATE DATABASE linked CATALOG = 'REMOTE_CAT'")
        cur.execute("CREATE TABLE linked.public.t (x INT)")
        cur.execute("INSERT INTO linked.public.t VALUES (1)")
        first = cur.sfqid
        cur.execute("INSERT INTO linked.public.t VALUES (2)")
        cur.execute(f"SELECT x FROM linked.public.t AT(STATEMENT => '{first}') ORDER BY x")
        assert cur.fetchall() == [(1,)]
        cur.execute("SELECT x FROM linked.public.t ORDER BY x")
        assert cur.fetchall() == [(1,), (2,)]
        # Staged (multi-statement) transactions need our own metastore: refused, nothing written.
        cur.execute("BEGIN")
        with pytest.raises(snowflake.connector.errors.ProgrammingError) as staged:
            cur.execute("INSERT INTO linked.public.t VALUES (3)")
        assert staged.value.sqlstate == "0A000"
        cur.execute("ROLLBACK")
        cur.execute("SELECT COUNT(*) FROM linked.public.t")
        assert cur.fetchone() == (2,)
        cur.execute("CREATE TABLE linked.public.t2 (x INT)")
        with pytest.raises(snowflake.connector.errors.ProgrammingError) as swap:
            cur.execute("ALTER TABLE linked.public.t SWAP WITH linked.public.t2")
        assert swap.value.sqlstate == "0A000"


def test_credentials_are_never_shown(pair: tuple[Server, Server]) -> None:
    local, remote = pair
    with remote.connect() as rconn:
        rconn.cursor().execute("CREATE DATABASE sales")
    with local.connect() as conn:
        cur = conn.cursor()
        cur.execute(integration_sql(remote))
        cur.execute("SHOW CATALOG INTEGRATIONS")
        rows = cur.fetchall()
        assert [d[0] for d in cur.description] == [
            "name",
            "type",
            "category",
            "enabled",
            "comment",
            "created_on",
        ]
        assert [r[:4] for r in rows] == [("REMOTE_CAT", "ICEBERG_REST", "CATALOG", "true")]
        cur.execute("DESCRIBE CATALOG INTEGRATION remote_cat")
        described = {r[0]: r[2] for r in cur.fetchall()}
        assert f"127.0.0.1:{remote.port}" in described["REST_CONFIG"]
        assert "embucket" in described["REST_AUTHENTICATION"]  # the client id is not a secret
        cur.execute("SELECT query_text FROM TABLE(INFORMATION_SCHEMA.QUERY_HISTORY()) ORDER BY start_time")
        history = " ".join(r[0] for r in cur.fetchall())
        assert "CATALOG INTEGRATION" in history
        assert "OAUTH_CLIENT_SECRET = '****'" in history
        for text in (str(rows), str(described), history):
            # (the client id and the secret are both "embucket" here: look for the secret's places)
            assert f"OAUTH_CLIENT_SECRET = '{SECRET}'" not in text
            assert f"embucket:{SECRET}" not in text and "OAUTH_CLIENT_SECRET" not in str(described)
    # Every line the server logged: the secret never appears as a value.
    log = local.log.read_text()
    assert f"OAUTH_CLIENT_SECRET = '{SECRET}'" not in log and f"embucket:{SECRET}" not in log


def test_wrong_credentials_and_missing_integration(pair: tuple[Server, Server]) -> None:
    local, remote = pair
    with local.connect() as conn:
        cur = conn.cursor()
        with pytest.raises(snowflake.connector.errors.ProgrammingError) as missing:
            cur.execute("CREATE DATABASE linked CATALOG = 'NOPE'")
        assert missing.value.errno == 2003
        cur.execute(integration_sql(remote, "BAD_CAT", secret="wrong-password"))
        with pytest.raises(snowflake.connector.errors.ProgrammingError) as refused:
            cur.execute("CREATE DATABASE linked CATALOG = 'BAD_CAT'")
        assert "wrong-password" not in str(refused.value)
        assert "BAD_CAT" in str(refused.value)
        cur.execute("SHOW DATABASES LIKE 'LINKED'")
        assert cur.fetchall() == []
        with pytest.raises(snowflake.connector.errors.ProgrammingError) as unsupported:
            cur.execute(
                "CREATE CATALOG INTEGRATION g CATALOG_SOURCE = GLUE TABLE_FORMAT = ICEBERG "
                "GLUE_AWS_ROLE_ARN = 'arn'"
            )
        assert unsupported.value.sqlstate == "0A000"


def test_drop_detaches_without_touching_the_remote(pair: tuple[Server, Server]) -> None:
    local, remote = pair
    with remote.connect() as rconn:
        rcur = rconn.cursor()
        rcur.execute("CREATE DATABASE sales")
        rcur.execute("CREATE TABLE sales.public.keep (x INT)")
        rcur.execute("INSERT INTO sales.public.keep VALUES (5)")
    with local.connect() as conn:
        cur = conn.cursor()
        cur.execute(integration_sql(remote))
        cur.execute("CREATE DATABASE linked CATALOG = 'REMOTE_CAT'")
        with pytest.raises(snowflake.connector.errors.ProgrammingError):
            cur.execute("DROP CATALOG INTEGRATION remote_cat")  # still used by LINKED
        cur.execute("DROP DATABASE linked")
        cur.execute("DROP CATALOG INTEGRATION remote_cat")
        cur.execute("SHOW CATALOG INTEGRATIONS")
        assert cur.fetchall() == []
    with remote.connect() as rconn:
        rcur = rconn.cursor()
        rcur.execute("SELECT x FROM sales.public.keep")
        assert rcur.fetchall() == [(5,)]
