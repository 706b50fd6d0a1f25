"""The Iceberg REST door honours the same roles and privileges as SQL: what a role may not read or
write through the connector it cannot read or write through pyiceberg either, and back."""

from __future__ import annotations

import uuid

import pyarrow as pa
import pytest
from pyiceberg.catalog.rest import RestCatalog
from pyiceberg.exceptions import ForbiddenError, NoSuchNamespaceError, NoSuchTableError

from tests.e2e.conftest import Server
from tests.iceberg_rest.conftest import rest_url


def _catalog(server: Server, database: str, user: str, password: str) -> RestCatalog:
    return RestCatalog(
        f"{database.lower()}-{user.lower()}",
        uri=rest_url(server),
        warehouse=database.lower(),
        credential=f"{user}:{password}",
        **{"oauth2-server-uri": f"{rest_url(server)}/v1/oauth/tokens"},
    )


def test_rest_follows_sql_grants(server: Server, database: str) -> None:
    tag = uuid.uuid4().hex[:6].upper()
    role, user = f"READER_{tag}", f"CAROL_{tag}"
    with server.connect() as admin:
        cur = admin.cursor()
        cur.execute(f"CREATE TABLE {database}.public.facts (id INT, label VARCHAR)")
        cur.execute(f"INSERT INTO {database}.public.facts VALUES (1, 'a'), (2, 'b')")
        cur.execute(f"CREATE TABLE {database}.public.secrets (id INT)")
        cur.execute(f"CREATE ROLE {role}")
        cur.execute(f"CREATE USER {user} PASSWORD = 'pw' DEFAULT_ROLE = {role}")
        cur.execute(f"GRANT ROLE {role} TO USER {user}")
    carol = _catalog(server, database, user, "pw")
    # No USAGE on the database: nothing is listed, nothing loads.
    with pytest.raises(NoSuchNamespaceError):
        carol.list_tables("public")
    with server.connect() as admin:
        cur = admin.cursor()
        cur.execute(f"GRANT USAGE ON DATABASE {database} TO ROLE {role}")
        cur.execute(f"GRANT USAGE ON SCHEMA {database}.public TO ROLE {role}")
        cur.execute(f"GRANT SELECT ON TABLE {database}.public.facts TO ROLE {role}")
    # Only the table the role holds something on is listed; the other does not exist for it.
    assert carol.list_tables("public") == [("public", "facts")]
    with pytest.raises(NoSuchTableError):
        carol.load_table(("public", "secrets"))
    facts = carol.load_table(("public", "facts"))
    assert sorted(facts.scan().to_arrow().column("id").to_pylist()) == [1, 2]
    # SELECT alone does not let it append: the commit is refused and nothing lands.
    rows = pa.table({"id": pa.array([3], pa.int32()), "label": pa.array(["c"])})
    with pytest.raises(ForbiddenError):
        facts.append(rows)
    with pytest.raises(ForbiddenError):
        carol.create_table(("public", "mine"), schema=facts.schema())
    with pytest.raises(ForbiddenError):
        carol.drop_table(("public", "facts"))
    with server.connect() as admin:
        cur = admin.cursor()
        assert cur.execute(f"SELECT COUNT(*) FROM {database}.public.facts").fetchone() == (2,)
        cur.execute(f"GRANT INSERT ON TABLE {database}.public.facts TO ROLE {role}")
        cur.execute(f"GRANT CREATE TABLE ON SCHEMA {database}.public TO ROLE {role}")
    carol.load_table(("public", "facts")).append(rows)
    carol.create_table(("public", "mine"), schema=facts.schema())
    with server.connect(user=user, password="pw") as conn:
        cur = conn.cursor()
        assert cur.execute(f"SELECT COUNT(*) FROM {database}.public.facts").fetchone() == (3,)
        # The table it made through REST is its role's, as if made through SQL.
        cur.execute(f"SHOW GRANTS ON TABLE {database}.public.mine")
        assert [(r[1], r[5]) for r in cur.fetchall()] == [("OWNERSHIP", role)]
        cur.execute(f"INSERT INTO {database}.public.mine VALUES (9, 'z')")
    # Revoked in SQL, refused in REST at once.
    with server.connect() as admin:
        admin.cursor().execute(f"REVOKE SELECT ON TABLE {database}.public.facts FROM ROLE {role}")
    with pytest.raises(ForbiddenError):
        carol.load_table(("public", "facts"))
