"""INFORMATION_SCHEMA views through the connector: Snowflake's columns, filters and joins."""

from __future__ import annotations

import pytest
import snowflake.connector
from snowflake.connector.cursor import SnowflakeCursor

from tests.e2e.conftest import Server, reading_role


def setup_objects(cur: SnowflakeCursor) -> None:
    cur.execute(
        "create table orders (id int not null, item varchar(20) comment 'what', amount number(10, 2), "
        "placed timestamp_ntz, note string) comment = 'all orders'"
    )
    cur.execute("insert into orders values (1, 'pear', 1.50, '2024-01-01', null), (2, 'fig', 2, null, 'x')")
    cur.execute("create view big_orders as select id, amount from orders where amount > 1")
    cur.execute("create schema other")
    cur.execute("create table other.events (at date)")


def test_tables_lists_tables_and_views_with_their_types(cur: SnowflakeCursor, database: str) -> None:
    setup_objects(cur)
    cur.execute(
        "select table_catalog, table_schema, table_name, table_type, is_transient, row_count, comment "
        "from information_schema.tables where table_schema <> 'INFORMATION_SCHEMA' order by 2, 3"
    )
    assert cur.fetchall() == [
        (database, "OTHER", "EVENTS", "BASE TABLE", "NO", 0, None),
        (database, "PUBLIC", "BIG_ORDERS", "VIEW", None, None, None),
        (database, "PUBLIC", "ORDERS", "BASE TABLE", "NO", 2, "all orders"),
    ]
    assert [d.name for d in cur.description][:5] == [
        "TABLE_CATALOG", "TABLE_SCHEMA", "TABLE_NAME", "TABLE_TYPE", "IS_TRANSIENT",
    ]  # fmt: skip


def test_tables_reports_bytes_and_times_of_a_table(cur: SnowflakeCursor, database: str) -> None:
    setup_objects(cur)
    cur.execute(
        "select bytes > 0, created <= last_altered, retention_time "
        f"from {database}.information_schema.tables where table_name = 'ORDERS'"
    )
    assert cur.fetchall() == [(True, True, 1)]


def test_columns_describe_types_as_snowflake_does(cur: SnowflakeCursor) -> None:
    setup_objects(cur)
    cur.execute(
        "select column_name, ordinal_position, is_nullable, data_type, character_maximum_length, "
        "character_octet_length, numeric_precision, numeric_precision_radix, numeric_scale, comment "
        "from information_schema.columns where table_name = 'ORDERS' order by ordinal_position"
    )
    assert cur.fetchall() == [
        ("ID", 1, "NO", "NUMBER", None, None, 38, 10, 0, None),
        ("ITEM", 2, "YES", "TEXT", 20, 80, None, None, None, "what"),
        ("AMOUNT", 3, "YES", "NUMBER", None, None, 10, 10, 2, None),
        ("PLACED", 4, "YES", "TIMESTAMP_NTZ", None, None, None, None, None, None),
        ("NOTE", 5, "YES", "TEXT", 16777216, 16777216, None, None, None, None),
    ]


def test_columns_of_a_view_come_from_its_query(cur: SnowflakeCursor) -> None:
    setup_objects(cur)
    cur.execute(
        "select column_name, data_type, numeric_scale from information_schema.columns "
        "where table_name = 'BIG_ORDERS' order by ordinal_position"
    )
    assert cur.fetchall() == [("ID", "NUMBER", 0), ("AMOUNT", "NUMBER", 2)]


def test_information_schema_joins_and_aggregates(cur: SnowflakeCursor) -> None:
    setup_objects(cur)
    cur.execute(
        "select t.table_schema, t.table_name, count(c.column_name) from information_schema.tables t "
        "join information_schema.columns c "
        "on c.table_schema = t.table_schema and c.table_name = t.table_name "
        "where t.table_type = 'BASE TABLE' group by 1, 2 order by 1, 2"
    )
    assert cur.fetchall() == [("OTHER", "EVENTS", 1), ("PUBLIC", "ORDERS", 5)]


def test_schemata_views_and_databases(cur: SnowflakeCursor, database: str) -> None:
    setup_objects(cur)
    cur.execute("select schema_name from information_schema.schemata order by 1")
    assert cur.fetchall() == [("INFORMATION_SCHEMA",), ("OTHER",), ("PUBLIC",)]
    cur.execute("select table_name, is_secure from information_schema.views")
    assert cur.fetchall() == [("BIG_ORDERS", "NO")]
    cur.execute(f"select count(*) from information_schema.databases where database_name = '{database}'")
    assert cur.fetchall() == [(1,)]


def test_information_schema_lists_its_own_views(cur: SnowflakeCursor) -> None:
    cur.execute(
        "select table_name from information_schema.tables where table_schema = 'INFORMATION_SCHEMA' "
        "and table_name in ('TABLES', 'COLUMNS') order by 1"
    )
    assert cur.fetchall() == [("COLUMNS",), ("TABLES",)]


def test_a_missing_information_schema_view_or_database_fails(cur: SnowflakeCursor) -> None:
    for sql in (
        "select * from information_schema.no_such_view",
        "select * from no_such_db.information_schema.tables",
    ):
        with pytest.raises(snowflake.connector.errors.ProgrammingError) as info:
            cur.execute(sql)
        assert info.value.errno == 2003


def test_catalog_name_roles_and_table_privileges(cur: SnowflakeCursor, server: Server, database: str) -> None:
    catalog = cur.execute("select * from information_schema.information_schema_catalog_name").fetchall()
    assert catalog == [(database,)]
    cur.execute("create table t (a int)")
    cur.execute("create view v as select a from t")
    role = reading_role(server, database, "TP")
    cur.execute(f"grant select on table t to role {role} with grant option")
    rows = cur.execute(
        "select grantee, table_name, privilege_type, is_grantable, granted_to, with_hierarchy "
        "from information_schema.table_privileges order by table_name, privilege_type"
    ).fetchall()
    assert rows == [
        ("ACCOUNTADMIN", "T", "OWNERSHIP", "YES", "ROLE", "NO"),
        (role, "T", "SELECT", "YES", "ROLE", "NO"),
        ("ACCOUNTADMIN", "V", "OWNERSHIP", "YES", "ROLE", "NO"),
    ]
    applicable = cur.execute("select grantee, role_name from information_schema.applicable_roles").fetchall()
    assert ("EMBUCKET", role) in applicable and ("ACCOUNTADMIN", "SYSADMIN") in applicable
    cur.execute(f"use role {role}")
    try:
        enabled = cur.execute("select role_name from information_schema.enabled_roles order by 1").fetchall()
        assert enabled == sorted([(role,), ("PUBLIC",)])
        # Only the objects the role has privileges on.
        seen = cur.execute("select distinct table_name from information_schema.table_privileges").fetchall()
        assert seen == [("T",)]
    finally:
        cur.execute("use role accountadmin")


def test_stages_lists_named_stages(cur: SnowflakeCursor) -> None:
    cur.execute("create stage inside comment = 'files'")
    cur.execute("create stage outside url = 's3://bucket/path/'")
    cur.execute("create schema other_stages")
    cur.execute("create stage other_stages.elsewhere")
    rows = cur.execute(
        "select stage_schema, stage_name, stage_url, stage_type, stage_owner, comment, created is not null "
        "from information_schema.stages order by stage_schema, stage_name"
    ).fetchall()
    assert rows == [
        ("OTHER_STAGES", "ELSEWHERE", None, "Internal Named", "ACCOUNTADMIN", None, True),
        ("PUBLIC", "INSIDE", None, "Internal Named", "ACCOUNTADMIN", "files", True),
        ("PUBLIC", "OUTSIDE", "s3://bucket/path/", "External Named", "ACCOUNTADMIN", None, True),
    ]


def test_file_formats_lists_named_file_formats(cur: SnowflakeCursor) -> None:
    cur.execute(
        "create file format pipes type = csv field_delimiter = '|' skip_header = 1 "
        "null_if = ('NULL', '') comment = 'pipe files'"
    )
    cur.execute("create file format lines type = json")
    cur.execute("create schema other_formats")
    cur.execute("create file format other_formats.plain type = csv")
    rows = cur.execute(
        "select file_format_schema, file_format_name, file_format_type, file_format_owner, field_delimiter, "
        "skip_header, null_if, trim_space, compression, comment, created = last_altered "
        "from information_schema.file_formats order by file_format_schema, file_format_name"
    ).fetchall()
    assert rows == [
        ("OTHER_FORMATS", "PLAIN", "CSV", "ACCOUNTADMIN", ",", 0, "[\\N]", "false", "AUTO", None, True),
        ("PUBLIC", "LINES", "JSON", "ACCOUNTADMIN", None, None, "[]", None, "AUTO", None, True),
        ("PUBLIC", "PIPES", "CSV", "ACCOUNTADMIN", "|", 1, "[NULL, ]", "false", "AUTO", "pipe files", True),
    ]
    cur.execute("select * from information_schema.file_formats")
    assert [d.name for d in cur.description] == [
        "FILE_FORMAT_CATALOG", "FILE_FORMAT_SCHEMA", "FILE_FORMAT_NAME", "FILE_FORMAT_OWNER",
        "FILE_FORMAT_TYPE", "RECORD_DELIMITER", "FIELD_DELIMITER", "SKIP_HEADER", "DATE_FORMAT",
        "TIME_FORMAT", "TIMESTAMP_FORMAT", "BINARY_FORMAT", "ESCAPE", "ESCAPE_UNENCLOSED_FIELD",
        "TRIM_SPACE", "FIELD_OPTIONALLY_ENCLOSED_BY", "NULL_IF", "COMPRESSION",
        "ERROR_ON_COLUMN_COUNT_MISMATCH", "CREATED", "LAST_ALTERED", "COMMENT",
    ]  # fmt: skip
    # The same options DESCRIBE FILE FORMAT shows.
    shown = dict((r[0], r[2]) for r in cur.execute("describe file format public.pipes").fetchall())
    (null_if,) = cur.execute(
        "select null_if from information_schema.file_formats where file_format_name = 'PIPES'"
    ).fetchone()
    assert null_if == shown["NULL_IF"]


def test_object_and_usage_privileges(cur: SnowflakeCursor, server: Server, database: str) -> None:
    cur.execute("create table t (a int)")
    cur.execute("create stage files")
    cur.execute("create sequence seq")
    role = reading_role(server, database, "OP")
    cur.execute(f"grant select on table t to role {role}")
    rows = cur.execute(
        "select grantee, object_catalog, object_schema, object_name, object_type, privilege_type, "
        "is_grantable from information_schema.object_privileges "
        "where object_type <> 'DATABASE' or object_name = current_database() "
        "order by object_type, object_name, grantee, privilege_type"
    ).fetchall()
    assert ("ACCOUNTADMIN", None, None, database, "DATABASE", "OWNERSHIP", "YES") in rows
    assert (role, None, None, database, "DATABASE", "USAGE", "NO") in rows
    assert (role, database, None, "PUBLIC", "SCHEMA", "USAGE", "NO") in rows
    assert ("ACCOUNTADMIN", database, "PUBLIC", "T", "TABLE", "OWNERSHIP", "YES") in rows
    assert (role, database, "PUBLIC", "T", "TABLE", "SELECT", "NO") in rows
    assert ("ACCOUNTADMIN", database, "PUBLIC", "FILES", "STAGE", "OWNERSHIP", "YES") in rows
    assert ("ACCOUNTADMIN", database, "PUBLIC", "SEQ", "SEQUENCE", "OWNERSHIP", "YES") in rows
    usage = cur.execute(
        "select object_name, object_type, privilege_type from information_schema.usage_privileges"
    )
    assert usage.fetchall() == [("SEQ", "SEQUENCE", "OWNERSHIP")]
    # Another role sees the objects it holds privileges on, and their grants.
    cur.execute(f"use role {role}")
    try:
        seen = cur.execute(
            "select distinct object_type, object_name from information_schema.object_privileges "
            "where object_type in ('TABLE', 'STAGE') order by 1, 2"
        ).fetchall()
        assert seen == [("TABLE", "T")]
    finally:
        cur.execute("use role accountadmin")


def test_pipes_answers_its_columns_with_no_rows(cur: SnowflakeCursor) -> None:
    assert cur.execute("select * from information_schema.pipes").fetchall() == []
    assert [d.name for d in cur.description] == [
        "PIPE_CATALOG", "PIPE_SCHEMA", "PIPE_NAME", "PIPE_OWNER", "DEFINITION", "IS_AUTOINGEST_ENABLED",
        "NOTIFICATION_CHANNEL_NAME", "CREATED", "LAST_ALTERED", "COMMENT", "PATTERN",
    ]  # fmt: skip
