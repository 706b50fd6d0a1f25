"""Access-control probe: a user whose role holds USAGE on a database and SELECT on one table tries
everything else it must not do, through SQL and through the Iceberg REST catalog, and the
figures count what got through (must be 0) and what leaked (names or data of objects it must
not see; must be 0). Positive controls (what it was granted) must all work, so a broken setup
cannot pass as "nothing got through".
"""

from __future__ import annotations

import uuid
from typing import Any

import pyarrow as pa
import snowflake.connector
from pyiceberg.catalog.rest import RestCatalog
from pyiceberg.exceptions import ForbiddenError, NoSuchNamespaceError, NoSuchTableError

from tests.e2e.conftest import Server

# Statements the probe role must be refused; {s} is the secret table, {o} the open (SELECT-only)
# table, {d} the database, {me} the probe user, {qid} the id of the admin's query of {s}.
REFUSED_SQL = [
    "SELECT * FROM {s}",
    "SELECT COUNT(*) FROM {s} AT(OFFSET => -1)",
    "SELECT * FROM {o} JOIN {s} ON TRUE",
    "SELECT * FROM {o} WHERE EXISTS (SELECT 1 FROM {s})",
    "WITH c AS (SELECT * FROM {s}) SELECT * FROM c",
    "DESCRIBE TABLE {s}",
    "INSERT INTO {o} VALUES (99, 'x')",
    "INSERT INTO {s} VALUES (99, 'x')",
    "INSERT OVERWRITE INTO {o} SELECT * FROM {o}",
    "UPDATE {o} SET label = 'x'",
    "DELETE FROM {o}",
    "TRUNCATE TABLE {o}",
    "MERGE INTO {o} t USING {o} s ON t.id = s.id WHEN MATCHED THEN DELETE",
    "DROP TABLE {o}",
    "ALTER TABLE {o} ADD COLUMN extra INT",
    "ALTER TABLE {o} RENAME TO {d}.public.renamed",
    "ALTER TABLE {o} SWAP WITH {s}",
    "ALTER TABLE {o} CLUSTER BY (id)",
    "CREATE TABLE {d}.public.mine (x INT)",
    "CREATE TABLE {d}.public.copied AS SELECT * FROM {s}",
    "CREATE TABLE {d}.public.cloned CLONE {s}",
    "CREATE VIEW {d}.public.peek AS SELECT * FROM {s}",
    "CREATE SCHEMA {d}.sneaky",
    "DROP SCHEMA {d}.public",
    "CREATE DATABASE sneaky_db",
    "DROP DATABASE {d}",
    "CREATE ROLE sneaky_role",
    "GRANT SELECT ON TABLE {s} TO ROLE PUBLIC",
    "GRANT ROLE ACCOUNTADMIN TO USER {me}",
    "GRANT OWNERSHIP ON TABLE {o} TO ROLE PUBLIC",
    "REVOKE SELECT ON TABLE {o} FROM ROLE PUBLIC",
    "USE ROLE ACCOUNTADMIN",
    "USE ROLE SYSADMIN",
    "CREATE USER sneaky_user PASSWORD = 'x'",
    "ALTER USER embucket SET RSA_PUBLIC_KEY_2 = 'bm90IGEga2V5'",
    "DROP USER embucket",
    "CREATE STAGE {d}.public.sneaky_stage",
    "CREATE FUNCTION {d}.public.sneaky_fn() RETURNS INT AS 'SELECT COUNT(*) FROM {s}'",
    "CREATE PROCEDURE {d}.public.sneaky_proc() RETURNS INT AS 'BEGIN RETURN 1; END'",
    "BEGIN RETURN (SELECT COUNT(*) FROM {s}); END",
    "COPY INTO @~/leak/ FROM {s}",
    "SELECT GET_DDL('TABLE', '{s}')",
    "SELECT SYSTEM$CLUSTERING_INFORMATION('{s}')",
    "SELECT * FROM TABLE(RESULT_SCAN('{qid}'))",
    "CREATE TAG {d}.public.sneaky_tag",
    "ALTER TAG {d}.public.probe_tag SET COMMENT = 'x'",
    "ALTER TABLE {o} SET TAG {d}.public.probe_tag = 'x'",
    "SELECT SYSTEM$GET_TAG('{d}.public.probe_tag', '{s}', 'table')",
    "SELECT * FROM TABLE({d}.information_schema.tag_references('{s}', 'table'))",
    "CREATE EXTERNAL VOLUME sneaky_vol STORAGE_LOCATIONS = ((NAME = 'x' STORAGE_PROVIDER = 'S3' "
    "STORAGE_BASE_URL = 's3://x/'))",
]
# What the probe must not see in listings (the secret table's name).
LISTINGS = [
    "SHOW TABLES IN DATABASE {d}",
    "SHOW OBJECTS IN DATABASE {d}",
    "SHOW COLUMNS IN DATABASE {d}",
    "SELECT table_name FROM {d}.information_schema.tables",
    "SELECT table_name FROM {d}.information_schema.columns",
    "SELECT DISTINCT user_name FROM TABLE({d}.information_schema.query_history())",
]
ALLOWED_SQL = ["SELECT COUNT(*) FROM {o}", "SHOW TABLES IN DATABASE {d}", "USE ROLE PUBLIC"]


def probe(server: Server) -> dict[str, Any]:
    tag = uuid.uuid4().hex[:6].upper()
    d, role, me = f"PROBE_{tag}", f"PROBER_{tag}", f"MALLORY_{tag}"
    names = {"d": d, "s": f"{d}.public.secret_{tag}", "o": f"{d}.public.open_{tag}", "me": me}
    with server.connect() as admin:
        cur = admin.cursor()
        cur.execute(f"CREATE DATABASE {d}")
        for table in (names["s"], names["o"]):
            cur.execute(f"CREATE TABLE {table} (id INT, label VARCHAR)")
            cur.execute(f"INSERT INTO {table} VALUES (1, 'one'), (2, 'two')")
        cur.execute(f"CREATE TAG {d}.public.probe_tag")
        cur.execute(f"ALTER TABLE {names['s']} SET TAG {d}.public.probe_tag = 'secret'")
        cur.execute(f"CREATE ROLE {role}")
        cur.execute(f"CREATE USER {me} PASSWORD = 'pw' DEFAULT_ROLE = {role}")
        cur.execute(f"GRANT ROLE {role} TO USER {me}")
        cur.execute(f"GRANT USAGE ON DATABASE {d} TO ROLE {role}")
        cur.execute(f"GRANT USAGE ON SCHEMA {d}.public TO ROLE {role}")
        cur.execute(f"GRANT SELECT ON TABLE {names['o']} TO ROLE {role}")
        cur.execute(f"SELECT * FROM {names['s']}")
        names["qid"] = str(cur.sfqid)  # the admin's result of the secret table
    secret = names["s"].split(".")[-1]
    figures: dict[str, Any] = {"sql_attempts": 0, "sql_refused": 0, "succeeded": [], "leaks": []}
    with server.connect(user=me, password="pw") as conn:
        cur = conn.cursor()
        for template in REFUSED_SQL:
            sql = template.format(**names)
            figures["sql_attempts"] += 1
            try:
                cur.execute(sql)
                figures["succeeded"].append(sql)
            except snowflake.connector.errors.ProgrammingError as e:
                figures["sql_refused"] += 1
                if e.errno not in (2003, 3001, 3013, 3011, 709):
                    figures["succeeded"].append(f"{sql} -> unexpected error {e.errno}")
        for template in LISTINGS:
            rows = cur.execute(template.format(**names)).fetchall()
            if "query_history" in template:
                if rows != [(me,)]:
                    figures["leaks"].append(template)  # another user's statements
            elif secret in str(rows).upper():
                figures["leaks"].append(template)
        controls = [cur.execute(t.format(**names)).fetchall() for t in ALLOWED_SQL]
    figures["controls_ok"] = controls[0] == [(2,)] and len(controls[1]) == 1
    figures.update(_rest(server, d, me, names))
    with server.connect() as admin:
        rows = admin.cursor().execute(f"SELECT COUNT(*), MIN(label) FROM {names['o']}").fetchone()
        figures["open_table_unchanged"] = rows == (2, "one")
    figures["succeeded_count"] = len(figures["succeeded"])
    figures["leak_count"] = len(figures["leaks"])
    return figures


def _rest(server: Server, database: str, me: str, names: dict[str, str]) -> dict[str, Any]:
    url = f"http://127.0.0.1:{server.port}/iceberg"
    catalog = RestCatalog(
        f"probe-{me.lower()}",
        uri=url,
        warehouse=database.lower(),
        credential=f"{me}:pw",
        **{"oauth2-server-uri": f"{url}/v1/oauth/tokens"},
    )
    secret, opened = (("public", names[k].split(".")[-1].lower()) for k in ("s", "o"))
    table = catalog.load_table(opened)  # granted: the control
    rows = pa.table({"id": pa.array([9], pa.int32()), "label": pa.array(["z"])})
    attempts: list[tuple[str, Any]] = [
        ("load secret", lambda: catalog.load_table(secret)),
        ("append to the open table", lambda: table.append(rows)),
        ("overwrite the open table", lambda: table.overwrite(rows)),
        ("delete from the open table", lambda: table.delete("id = 1")),
        ("set a property", lambda: table.transaction().set_properties(x="y").commit_transaction()),
        ("drop the open table", lambda: catalog.drop_table(opened)),
        ("rename the open table", lambda: catalog.rename_table(opened, ("public", "moved"))),
        ("create a table", lambda: catalog.create_table(("public", "made"), schema=table.schema())),
        ("create a namespace", lambda: catalog.create_namespace("made_ns")),
        ("drop the namespace", lambda: catalog.drop_namespace("public")),
    ]
    succeeded = []
    for label, attempt in attempts:
        try:
            attempt()
            succeeded.append(f"REST {label}")
        except (ForbiddenError, NoSuchTableError, NoSuchNamespaceError):
            pass
    listed = catalog.list_tables("public")
    return {
        "rest_attempts": len(attempts),
        "rest_refused": len(attempts) - len(succeeded),
        "rest_succeeded": succeeded,
        "rest_leaks": [t for t in listed if t[1] == secret[1]],
        "rest_control_ok": table.scan().to_arrow().num_rows == 2 and listed == [opened],
    }
