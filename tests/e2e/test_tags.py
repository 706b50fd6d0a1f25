"""Object tags through the connector: tag DDL, values on databases, schemas, tables, views and
columns with their inheritance, SYSTEM$GET_TAG, TAG_REFERENCES, tag-based masking policies and
the privileges they need.
https://docs.snowflake.com/en/user-guide/object-tagging/work
https://docs.snowflake.com/en/user-guide/tag-based-masking-policies"""

from __future__ import annotations

from typing import Any

import pytest
import snowflake.connector

from tests.e2e.conftest import Server, reading_role


def _error(cur: Any, sql: str) -> snowflake.connector.errors.ProgrammingError:
    with pytest.raises(snowflake.connector.errors.ProgrammingError) as info:
        cur.execute(sql)
    return info.value


def _references(cur: Any, call: str) -> list[tuple[Any, ...]]:
    """(tag, value, apply method, level, domain, column) of each TAG_REFERENCES row."""
    cur.execute(f"SELECT * FROM TABLE(INFORMATION_SCHEMA.{call})")
    names = [d.name for d in cur.description]
    rows = [dict(zip(names, r, strict=True)) for r in cur.fetchall()]
    keys = ("TAG_NAME", "TAG_VALUE", "APPLY_METHOD", "LEVEL", "DOMAIN", "COLUMN_NAME")
    return sorted(tuple(r[k] for k in keys) for r in rows)


def test_tag_statements(cur: Any, database: str) -> None:
    created = "CREATE TAG cost_center ALLOWED_VALUES 'finance', 'engineering' COMMENT = 'who pays'"
    assert cur.execute(created).fetchone() == ("Tag COST_CENTER successfully created.",)
    assert cur.execute("CREATE TAG IF NOT EXISTS cost_center").fetchone() == (
        "COST_CENTER already exists, statement succeeded.",
    )
    assert _error(cur, "CREATE TAG cost_center").errno == 2002
    cur.execute("CREATE TAG pii")
    cur.execute("SHOW TAGS")
    assert [d.name for d in cur.description] == [
        "created_on", "name", "database_name", "schema_name", "owner", "comment", "allowed_values",
        "owner_role_type",
    ]  # fmt: skip
    shown = {r[1]: r[2:] for r in cur.fetchall()}
    assert shown == {
        "COST_CENTER": (database, "PUBLIC", "ACCOUNTADMIN", "who pays", '["finance","engineering"]', "ROLE"),
        "PII": (database, "PUBLIC", "ACCOUNTADMIN", "", None, "ROLE"),
    }
    assert [r[1] for r in cur.execute("SHOW TAGS LIKE 'cost%' IN SCHEMA public").fetchall()] == [
        "COST_CENTER"
    ]
    cur.execute("ALTER TAG cost_center ADD ALLOWED_VALUES 'sales', 'finance'")
    cur.execute("ALTER TAG cost_center DROP ALLOWED_VALUES 'engineering'")
    cur.execute("ALTER TAG cost_center SET COMMENT = 'billing'")
    row = cur.execute("SHOW TAGS LIKE 'COST_CENTER'").fetchone()
    assert (row[5], row[6]) == ("billing", '["finance","sales"]')
    cur.execute("ALTER TAG cost_center UNSET ALLOWED_VALUES")
    cur.execute("ALTER TAG cost_center UNSET COMMENT")
    row = cur.execute("SHOW TAGS LIKE 'COST_CENTER'").fetchone()
    assert (row[5], row[6]) == ("", None)
    # CREATE OR ALTER makes a tag, or makes an existing one the tag written (absent: unset).
    cur.execute("CREATE OR ALTER TAG cost_center ALLOWED_VALUES 'a' COMMENT = 'x'")
    assert cur.execute("SHOW TAGS LIKE 'COST_CENTER'").fetchone()[5:7] == ("x", '["a"]')
    cur.execute("CREATE OR ALTER TAG cost_center COMMENT = 'y'")
    assert cur.execute("SHOW TAGS LIKE 'COST_CENTER'").fetchone()[5:7] == ("y", None)
    cur.execute("CREATE OR ALTER TAG made_here")
    assert cur.execute("DROP TAG made_here").fetchone() == ("MADE_HERE successfully dropped.",)
    assert cur.execute("ALTER TAG cost_center RENAME TO cost_centre").fetchone() == (
        "Statement executed successfully.",
    )
    assert [r[1] for r in cur.execute("SHOW TAGS").fetchall()] == ["COST_CENTRE", "PII"]
    assert _error(cur, "ALTER TAG cost_center SET COMMENT = 'x'").errno == 2003
    assert cur.execute("ALTER TAG IF EXISTS cost_center SET COMMENT = 'x'").fetchone() == (
        "Statement executed successfully.",
    )
    assert cur.execute("DROP TAG cost_centre").fetchone() == ("COST_CENTRE successfully dropped.",)
    assert cur.execute("DROP TAG IF EXISTS cost_centre").fetchone() == (
        "Drop statement executed successfully (COST_CENTRE already dropped).",
    )
    assert _error(cur, "DROP TAG cost_centre").errno == 2003
    # UNDROP TAG brings the latest dropped tag of the name back, with its values.
    cur.execute("CREATE TABLE t (a INT)")
    cur.execute("ALTER TABLE t SET TAG pii = 'yes'")
    cur.execute("DROP TAG pii")
    assert _error(cur, "SELECT SYSTEM$GET_TAG('pii', 't', 'table')").errno == 2003
    assert cur.execute("UNDROP TAG pii").fetchone() == ("Tag PII successfully restored.",)
    assert cur.execute("SELECT SYSTEM$GET_TAG('pii', 't', 'table')").fetchone() == ("yes",)
    cur.execute("DROP TAG pii")
    cur.execute("CREATE TAG pii")  # a tag of the name is there: the dropped one cannot come back
    assert _error(cur, "UNDROP TAG pii").errno == 2002
    assert _error(cur, "UNDROP TAG cost_centre_nope").errno == 2003
    assert _error(cur, "CREATE TAG bad ALLOWED_VALUES").errno == 1003


def test_tag_values_and_inheritance(cur: Any, database: str) -> None:
    cur.execute("CREATE TAG cost_center ALLOWED_VALUES 'finance', 'engineering', 'sales'")
    cur.execute("CREATE TABLE accounts (id INT, name VARCHAR, balance NUMBER(10, 2))")
    cur.execute("ALTER TABLE accounts SET TAG cost_center = 'finance'")
    cur.execute("ALTER TABLE accounts MODIFY COLUMN name SET TAG cost_center = 'sales'")
    # SYSTEM$GET_TAG reads the value set on the object itself; unnamed, the call names the column.
    cur.execute(
        "SELECT SYSTEM$GET_TAG('cost_center', 'accounts', 'table'),"
        f" SYSTEM$GET_TAG('{database}.public.cost_center', 'accounts.name', 'column') AS on_name,"
        " SYSTEM$GET_TAG('cost_center', 'accounts.id', 'column') AS on_id"
    )
    assert cur.fetchone() == ("finance", "sales", None)
    assert cur.description[0].name == "SYSTEM$GET_TAG('COST_CENTER', 'ACCOUNTS', 'TABLE')"
    # A column inherits its table's value; a value set lower down wins.
    assert _references(cur, "TAG_REFERENCES_ALL_COLUMNS('accounts', 'table')") == [
        ("COST_CENTER", "finance", "INHERITED", "TABLE", "COLUMN", "BALANCE"),
        ("COST_CENTER", "finance", "INHERITED", "TABLE", "COLUMN", "ID"),
        ("COST_CENTER", "sales", "MANUAL", "COLUMN", "COLUMN", "NAME"),
    ]
    assert _references(cur, "TAG_REFERENCES('accounts.id', 'column')") == [
        ("COST_CENTER", "finance", "INHERITED", "TABLE", "COLUMN", "ID")
    ]
    # A schema's tag reaches its tables; the table's own value still wins on it.
    cur.execute("CREATE TAG owner_team")
    cur.execute("ALTER SCHEMA public SET TAG owner_team = 'data', cost_center = 'engineering'")
    cur.execute(f"ALTER DATABASE {database} SET TAG owner_team = 'platform'")
    assert _references(cur, "TAG_REFERENCES('accounts', 'table')") == [
        ("COST_CENTER", "finance", "MANUAL", "TABLE", "TABLE", None),
        ("OWNER_TEAM", "data", "INHERITED", "SCHEMA", "TABLE", None),
    ]
    assert _references(cur, f"TAG_REFERENCES('{database}', 'database')") == [
        ("OWNER_TEAM", "platform", "MANUAL", "DATABASE", "DATABASE", None)
    ]
    assert cur.execute("SELECT SYSTEM$GET_TAG('owner_team', 'public', 'schema')").fetchone() == ("data",)
    # Allowed values, unknown tags, objects and columns.
    refused = _error(cur, "ALTER TABLE accounts SET TAG cost_center = 'marketing'")
    assert refused.errno == 2 and "does not allow the value 'marketing'" in refused.msg
    assert _error(cur, "ALTER TABLE accounts SET TAG no_such_tag = 'x'").errno == 2003
    assert _error(cur, "ALTER TABLE no_such_table SET TAG cost_center = 'finance'").errno == 2003
    assert _error(cur, "ALTER TABLE accounts MODIFY COLUMN nope SET TAG cost_center = 'sales'").errno == 904
    assert _error(cur, "SELECT SYSTEM$GET_TAG('no_such_tag', 'accounts', 'table')").errno == 2003
    assert cur.execute("SELECT SYSTEM$GET_TAG('cost_center', 'accounts', 'table')").fetchone() == ("finance",)
    cur.execute("ALTER TABLE accounts MODIFY COLUMN name UNSET TAG cost_center")
    cur.execute("ALTER TABLE accounts UNSET TAG cost_center")
    assert _references(cur, "TAG_REFERENCES('accounts.name', 'column')") == [
        ("COST_CENTER", "engineering", "INHERITED", "SCHEMA", "COLUMN", "NAME"),
        ("OWNER_TEAM", "data", "INHERITED", "SCHEMA", "COLUMN", "NAME"),
    ]
    # CREATE TABLE's own WITH TAG clauses; a missing tag leaves no table behind.
    cur.execute(
        "CREATE TABLE t2 (a INT WITH TAG (cost_center = 'sales'), b INT) WITH TAG (owner_team = 'web')"
    )
    assert _references(cur, "TAG_REFERENCES_ALL_COLUMNS('t2', 'table')") == [
        ("COST_CENTER", "engineering", "INHERITED", "SCHEMA", "COLUMN", "B"),
        ("COST_CENTER", "sales", "MANUAL", "COLUMN", "COLUMN", "A"),
        ("OWNER_TEAM", "web", "INHERITED", "TABLE", "COLUMN", "A"),
        ("OWNER_TEAM", "web", "INHERITED", "TABLE", "COLUMN", "B"),
    ]
    assert _error(cur, "CREATE TABLE t3 (a INT WITH TAG (nope = 'x'))").errno == 2003
    assert _error(cur, "SELECT * FROM t3").errno == 2003
    # WITH TAG on the other objects a CREATE makes, and on columns ALTER TABLE adds.
    cur.execute("ALTER TABLE t2 ADD COLUMN c INT WITH TAG (cost_center = 'finance')")
    cur.execute("CREATE VIEW v2 WITH TAG (owner_team = 'bi') AS SELECT a FROM t2")
    cur.execute(f"CREATE DATABASE {database}_tagged WITH TAG ({database}.public.owner_team = 'db')")
    cur.execute(f"USE SCHEMA {database}.public")
    cur.execute("CREATE SCHEMA s2 WITH TAG (cost_center = 'sales')")  # the tag read before USE s2
    cur.execute(f"USE SCHEMA {database}.public")
    assert cur.execute(
        "SELECT SYSTEM$GET_TAG('cost_center', 't2.c', 'column'), SYSTEM$GET_TAG('owner_team', 'v2', 'table'),"
        f" SYSTEM$GET_TAG('owner_team', '{database}_tagged', 'database'),"
        " SYSTEM$GET_TAG('cost_center', 's2', 'schema')"
    ).fetchone() == ("finance", "bi", "db", "sales")
    assert _error(cur, "ALTER TABLE t2 ADD COLUMN d INT WITH TAG (nope = 'x')").errno == 2003
    assert [r[0] for r in cur.execute("DESCRIBE TABLE t2").fetchall()] == ["A", "B", "C"]
    cur.execute(f"DROP DATABASE {database}_tagged")


def test_tags_follow_their_table(cur: Any, database: str) -> None:
    cur.execute("CREATE TAG cost_center")
    cur.execute("CREATE TABLE t (a INT, b VARCHAR)")
    cur.execute("ALTER TABLE t SET TAG cost_center = 'finance'")
    cur.execute("ALTER TABLE t MODIFY COLUMN b SET TAG cost_center = 'sales'")
    get = (
        "SELECT SYSTEM$GET_TAG('cost_center', '{}', 'table'), SYSTEM$GET_TAG('cost_center', '{}.b', 'column')"
    )
    cur.execute("ALTER TABLE t RENAME TO renamed")
    assert cur.execute(get.format("renamed", "renamed")).fetchone() == ("finance", "sales")
    cur.execute("CREATE TABLE copied CLONE renamed")
    assert cur.execute(get.format("copied", "copied")).fetchone() == ("finance", "sales")
    cur.execute("DROP TABLE renamed")
    cur.execute("UNDROP TABLE renamed")  # back with its tags
    assert cur.execute(get.format("renamed", "renamed")).fetchone() == ("finance", "sales")
    cur.execute("DROP TABLE renamed")
    cur.execute("CREATE TABLE renamed (a INT, b VARCHAR)")  # a new table of the name starts bare
    assert cur.execute(get.format("renamed", "renamed")).fetchone() == (None, None)
    # GET_DDL writes the tags (named in full) as CREATE TABLE takes them; a schema's DDL makes its
    # tags first; a cloned schema's tables carry its cloned tags.
    cur.execute("CREATE TAG pii ALLOWED_VALUES 'email', 'name' COMMENT = 'personal'")
    cur.execute("ALTER TABLE copied MODIFY COLUMN a SET TAG pii = 'name'")
    assert cur.execute("SELECT GET_DDL('table', 'copied')").fetchone() == (
        "create or replace TABLE COPIED (\n"
        f"\tA NUMBER(38,0) with tag ({database}.PUBLIC.PII='name'),\n"
        f"\tB VARCHAR(16777216) with tag ({database}.PUBLIC.COST_CENTER='sales')\n"
        f") with tag ({database}.PUBLIC.COST_CENTER='finance');",
    )
    schema_ddl = cur.execute("SELECT GET_DDL('schema', 'public')").fetchone()[0]
    assert schema_ddl.startswith(
        "create or replace schema PUBLIC;\n\ncreate or replace tag COST_CENTER;\n\n"
        "create or replace tag PII allowed_values 'email', 'name' comment='personal';\n"
    )
    cur.execute("CREATE SCHEMA cloned CLONE public")
    assert cur.execute(
        "SELECT SYSTEM$GET_TAG('cloned.pii', 'cloned.copied.a', 'column'),"
        " SYSTEM$GET_TAG('public.pii', 'cloned.copied.a', 'column')"
    ).fetchone() == ("name", None)
    assert [r[1] for r in cur.execute("SHOW TAGS IN SCHEMA cloned").fetchall()] == ["COST_CENTER", "PII"]
    cur.execute("CREATE VIEW v AS SELECT a, b FROM copied")
    cur.execute("ALTER VIEW v MODIFY COLUMN b SET TAG cost_center = 'view'")
    assert cur.execute("SELECT SYSTEM$GET_TAG('cost_center', 'v.b', 'column')").fetchone() == ("view",)
    assert _error(cur, "ALTER VIEW v MODIFY COLUMN nope SET TAG cost_center = 'x'").errno == 904
    cur.execute("DROP VIEW v")
    cur.execute("CREATE VIEW v AS SELECT a, b FROM copied")
    assert cur.execute("SELECT SYSTEM$GET_TAG('cost_center', 'v.b', 'column')").fetchone() == (None,)


ACCOUNTING_MASK = """CREATE MASKING POLICY accounting_mask AS (val string) RETURNS string ->
  CASE WHEN CURRENT_ROLE() IN ('{role}') THEN val ELSE '***MASKED***' END"""


@pytest.fixture
def accounting(server: Server, database: str) -> str:
    return reading_role(server, database, "ACCOUNTING")


def test_tag_based_masking(cur: Any, database: str, accounting: str) -> None:
    cur.execute(
        "CREATE TABLE name_number (account_name VARCHAR, account_number NUMBER(10, 0), notes VARCHAR)"
    )
    cur.execute("INSERT INTO name_number VALUES ('acme', 1234, 'n1'), ('globex', 5678, NULL)")
    cur.execute(f"GRANT SELECT ON TABLE {database}.public.name_number TO ROLE {accounting}")
    cur.execute("CREATE TAG accounting")
    cur.execute(ACCOUNTING_MASK.format(role=accounting))
    cur.execute("CREATE MASKING POLICY number_mask AS (val NUMBER) RETURNS NUMBER -> 0")
    cur.execute("ALTER TAG accounting SET MASKING POLICY accounting_mask, MASKING POLICY number_mask")
    cur.execute(
        "ALTER TABLE name_number MODIFY COLUMN account_name SET TAG accounting = 'tag-based policies'"
    )
    query = "SELECT account_name, account_number, notes FROM name_number ORDER BY notes NULLS LAST"
    # Only the tagged column is masked, by the policy for its type.
    assert cur.execute(query).fetchall() == [("***MASKED***", 1234, "n1"), ("***MASKED***", 5678, None)]
    assert cur.execute("SELECT COUNT(*) FROM name_number WHERE account_name = 'acme'").fetchone() == (0,)
    cur.execute(f"USE ROLE {accounting}")
    assert cur.execute(query).fetchall() == [("acme", 1234, "n1"), ("globex", 5678, None)]
    cur.execute("USE ROLE ACCOUNTADMIN")
    # Tagged at the table, every column of a policy's type is masked; a column's own masking
    # policy wins over the tag's.
    cur.execute("ALTER TABLE name_number SET TAG accounting = 'all'")
    cur.execute("CREATE MASKING POLICY notes_mask AS (val string) RETURNS string -> 'notes hidden'")
    cur.execute("ALTER TABLE name_number MODIFY COLUMN notes SET MASKING POLICY notes_mask")
    assert cur.execute(query).fetchall() == [
        ("***MASKED***", 0, "notes hidden"),
        ("***MASKED***", 0, "notes hidden"),
    ]
    cur.execute("SELECT * FROM TABLE(INFORMATION_SCHEMA.POLICY_REFERENCES(REF_ENTITY_NAME => 'name_number'))")
    names = [d.name for d in cur.description]
    picked = [names.index(n) for n in ("POLICY_NAME", "REF_COLUMN_NAME", "TAG_NAME")]
    seen = sorted(tuple(r[i] for i in picked) for r in cur.fetchall())
    assert seen == [
        ("ACCOUNTING_MASK", "ACCOUNT_NAME", "ACCOUNTING"),
        ("NOTES_MASK", "NOTES", None),
        ("NUMBER_MASK", "ACCOUNT_NUMBER", "ACCOUNTING"),
    ]
    # One policy per data type on a tag (FORCE replaces it); a tag or policy in use stays.
    second = "CREATE MASKING POLICY other_mask AS (val string) RETURNS string -> 'other'"
    cur.execute(second)
    assert (
        "only one masking policy for each data type"
        in _error(cur, "ALTER TAG accounting SET MASKING POLICY other_mask").msg
    )
    cur.execute("ALTER TAG accounting SET MASKING POLICY other_mask FORCE")
    assert cur.execute("SELECT DISTINCT account_name FROM name_number").fetchall() == [("other",)]
    assert "has a masking policy" in _error(cur, "DROP TAG accounting").msg
    assert "associated with one or more tags" in _error(cur, "DROP MASKING POLICY other_mask").msg
    cur.execute("ALTER TAG accounting UNSET MASKING POLICY other_mask, MASKING POLICY number_mask")
    assert cur.execute(query).fetchall() == [("acme", 1234, "notes hidden"), ("globex", 5678, "notes hidden")]
    assert cur.execute("DROP TAG accounting").fetchone() == ("ACCOUNTING successfully dropped.",)


def test_policy_reads_the_columns_tag(cur: Any) -> None:
    """SYSTEM$GET_TAG_ON_CURRENT_COLUMN: one policy on a tag masks by each column's own value
    (a schema's tag reaches the tables in it)."""
    cur.execute("CREATE TAG security")
    cur.execute(
        "CREATE MASKING POLICY by_level AS (val string) RETURNS string ->"
        " CASE WHEN SYSTEM$GET_TAG_ON_CURRENT_COLUMN('security') = 'pii' THEN '***'"
        " WHEN SYSTEM$GET_TAG_ON_CURRENT_TABLE('security') = 'internal' THEN LOWER(val) ELSE val END"
    )
    cur.execute("ALTER TAG security SET MASKING POLICY by_level")
    cur.execute("CREATE TABLE people (name VARCHAR, email VARCHAR, city VARCHAR)")
    cur.execute("INSERT INTO people VALUES ('Ann', 'ann@x.com', 'OSLO')")
    cur.execute("ALTER SCHEMA public SET TAG security = 'internal'")
    cur.execute("ALTER TABLE people MODIFY COLUMN email SET TAG security = 'pii'")
    cur.execute("ALTER TABLE people MODIFY COLUMN city SET TAG security = 'public'")
    # CITY's own value is no 'pii', and its table's (inherited from the schema) is 'internal'.
    assert cur.execute("SELECT name, email, city FROM people").fetchall() == [("ann", "***", "oslo")]
    cur.execute("ALTER SCHEMA public UNSET TAG security")
    assert cur.execute("SELECT name, email, city FROM people").fetchall() == [("Ann", "***", "OSLO")]


def test_tag_statements_need_privileges(server: Server, database: str, accounting: str) -> None:
    with server.connect(database=database, schema="PUBLIC") as conn:
        cur = conn.cursor()
        cur.execute("CREATE TABLE owned (a INT)")
        cur.execute("CREATE TAG cost_center")
        cur.execute(f"GRANT SELECT ON TABLE {database}.public.owned TO ROLE {accounting}")
        cur.execute(f"USE ROLE {accounting}")
        assert _error(cur, "CREATE TAG mine").errno == 3001
        assert _error(cur, "ALTER TABLE owned SET TAG cost_center = 'x'").errno == 3001
        with server.connect() as admin:
            admin.cursor().execute(f"GRANT CREATE TAG ON SCHEMA {database}.public TO ROLE {accounting}")
            admin.cursor().execute(f"GRANT APPLY TAG ON ACCOUNT TO ROLE {accounting}")
        cur.execute("CREATE TAG mine")
        cur.execute("ALTER TABLE owned SET TAG cost_center = 'x', mine = 'y'")
        assert cur.execute("SELECT SYSTEM$GET_TAG('mine', 'owned', 'table')").fetchone() == ("y",)
