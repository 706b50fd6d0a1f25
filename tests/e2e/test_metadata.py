"""Metadata commands through the real connector: SHOW, DESCRIBE, SHOW PARAMETERS, and session
variables (SET / UNSET / $name / SHOW VARIABLES), with Snowflake's column names, order and types."""

from __future__ import annotations

import datetime as dt
import json
import warnings

import pytest
import snowflake.connector
from snowflake.connector import SnowflakeConnection
from snowflake.connector.cursor import SnowflakeCursor

from tests.e2e.conftest import Server

# cursor.description type codes (protocol §6.3).
FIXED, TEXT, TIMESTAMP_LTZ = 0, 2, 6

TERSE = ["created_on", "name", "kind", "database_name", "schema_name"]
SHOW_DATABASES = [
    "created_on",
    "name",
    "is_default",
    "is_current",
    "origin",
    "owner",
    "comment",
    "options",
    "retention_time",
    "kind",
    "owner_role_type",
]
SHOW_SCHEMAS = [
    "created_on",
    "name",
    "is_default",
    "is_current",
    "database_name",
    "owner",
    "comment",
    "options",
    "retention_time",
    "owner_role_type",
]
SHOW_TABLES = [
    "created_on",
    "name",
    "database_name",
    "schema_name",
    "kind",
    "comment",
    "cluster_by",
    "rows",
    "bytes",
    "owner",
    "retention_time",
    "automatic_clustering",
    "change_tracking",
    "search_optimization",
    "search_optimization_progress",
    "search_optimization_bytes",
    "is_external",
    "enable_schema_evolution",
    "owner_role_type",
    "is_event",
    "is_hybrid",
    "is_iceberg",
    "is_dynamic",
    "is_immutable",
]
SHOW_OBJECTS = [
    "created_on",
    "name",
    "database_name",
    "schema_name",
    "kind",
    "comment",
    "cluster_by",
    "rows",
    "bytes",
    "owner",
    "retention_time",
    "owner_role_type",
    "is_hybrid",
    "is_dynamic",
    "is_iceberg",
]
SHOW_VIEWS = [
    "created_on",
    "name",
    "reserved",
    "database_name",
    "schema_name",
    "owner",
    "comment",
    "text",
    "is_secure",
    "is_materialized",
    "owner_role_type",
    "change_tracking",
]
SHOW_COLUMNS = [
    "table_name",
    "schema_name",
    "column_name",
    "data_type",
    "null?",
    "default",
    "kind",
    "expression",
    "comment",
    "database_name",
    "autoincrement",
    "schema_evolution_record",
]
DESCRIBE_TABLE = [
    "name",
    "type",
    "kind",
    "null?",
    "default",
    "primary key",
    "unique key",
    "check",
    "expression",
    "comment",
    "policy name",
    "privacy domain",
]
SHOW_PROCEDURES = [
    "created_on",
    "name",
    "schema_name",
    "is_builtin",
    "is_aggregate",
    "is_ansi",
    "min_num_arguments",
    "max_num_arguments",
    "arguments",
    "description",
    "catalog_name",
    "is_table_function",
    "valid_for_clustering",
    "is_secure",
    "secrets",
    "external_access_integrations",
]
SHOW_PARAMETERS = ["key", "value", "default", "level", "description", "type"]
SHOW_VARIABLES = ["session_id", "created_on", "updated_on", "name", "value", "type", "comment"]


def names(cur: SnowflakeCursor) -> list[str]:
    return [d.name for d in cur.description]


def rows_as_dicts(cur: SnowflakeCursor) -> list[dict[str, object]]:
    columns = names(cur)
    return [dict(zip(columns, row, strict=True)) for row in cur.fetchall()]


# --- SHOW DATABASES / SCHEMAS --------------------------------------------------------------------


def test_show_databases_lists_the_database_with_snowflake_columns(
    cur: SnowflakeCursor, database: str
) -> None:
    cur.execute(f"show databases like '{database.lower()}'")
    assert names(cur) == SHOW_DATABASES
    assert cur.description[0].type_code == TIMESTAMP_LTZ
    (row,) = rows_as_dicts(cur)
    assert cur.rowcount == 1
    assert row["name"] == database
    assert (row["is_current"], row["is_default"], row["owner"], row["kind"]) == (
        "Y",
        "N",
        "ACCOUNTADMIN",
        "STANDARD",
    )
    assert isinstance(row["created_on"], dt.datetime)
    assert row["created_on"].tzinfo is not None


def test_show_terse_databases_has_five_columns(cur: SnowflakeCursor, database: str) -> None:
    cur.execute(f"show terse databases starts with '{database}'")
    assert names(cur) == TERSE
    assert [r[1] for r in cur.fetchall()] == [database]


def test_show_schemas_in_database(cur: SnowflakeCursor, database: str) -> None:
    cur.execute("create schema s2")
    cur.execute("use schema public")
    cur.execute(f"show schemas in database {database}")
    assert names(cur) == SHOW_SCHEMAS
    rows = rows_as_dicts(cur)
    assert [r["name"] for r in rows] == ["PUBLIC", "S2"]
    assert [r["is_current"] for r in rows] == ["Y", "N"]
    assert {r["database_name"] for r in rows} == {database}
    assert cur.rowcount == 2


def test_show_terse_schemas_has_null_kind_and_schema_name(cur: SnowflakeCursor, database: str) -> None:
    cur.execute("show terse schemas like 'pub%'")
    assert names(cur) == TERSE
    assert [r[1:] for r in cur.fetchall()] == [("PUBLIC", None, database, None)]


# --- SHOW TABLES / OBJECTS / VIEWS ---------------------------------------------------------------


def test_show_tables_reports_rows_and_bytes_from_the_snapshot(cur: SnowflakeCursor, database: str) -> None:
    cur.execute("create table t (i int) comment = 'the table'")
    cur.execute("insert into t values (1), (2), (3)")
    cur.execute("show tables")
    assert names(cur) == SHOW_TABLES
    types = {d.name: d.type_code for d in cur.description}
    assert (types["created_on"], types["rows"], types["bytes"], types["name"]) == (
        TIMESTAMP_LTZ,
        FIXED,
        FIXED,
        TEXT,
    )
    (row,) = rows_as_dicts(cur)
    assert cur.rowcount == 1
    assert (row["name"], row["database_name"], row["schema_name"], row["kind"]) == (
        "T",
        database,
        "PUBLIC",
        "TABLE",
    )
    assert row["rows"] == 3
    assert isinstance(row["bytes"], int)
    assert row["bytes"] > 0
    assert (row["comment"], row["owner"], row["owner_role_type"]) == ("the table", "ACCOUNTADMIN", "ROLE")


def test_show_tables_of_an_empty_table_reports_zero_rows(cur: SnowflakeCursor) -> None:
    cur.execute("create table empty (i int)")
    cur.execute("show tables like 'EMPTY'")
    (row,) = rows_as_dicts(cur)
    assert (row["rows"], row["bytes"]) == (0, 0)


def test_show_tables_filters(cur: SnowflakeCursor) -> None:
    for name in ("a1", "a2", "b1"):
        cur.execute(f"create table {name} (i int)")

    def shown(sql: str) -> list[str]:
        return [r[1] for r in cur.execute(sql).fetchall()]

    assert shown("show terse tables") == ["A1", "A2", "B1"]
    assert shown("show terse tables like 'a%'") == ["A1", "A2"]
    assert shown("show terse tables like '_1'") == ["A1", "B1"]
    assert shown("show terse tables starts with 'A'") == ["A1", "A2"]
    # STARTS WITH is case-sensitive, unlike LIKE.
    assert shown("show terse tables starts with 'a'") == []
    assert shown("show terse tables limit 1") == ["A1"]
    assert shown("show terse tables limit 2 from 'A2'") == ["A2", "B1"]


def test_show_tables_scopes(cur: SnowflakeCursor, database: str) -> None:
    cur.execute("create table t1 (i int)")
    cur.execute("create schema s2")
    cur.execute("create table s2.t2 (i int)")

    def shown(sql: str) -> list[tuple[str, str]]:
        return [(r[4], r[1]) for r in cur.execute(sql).fetchall()]

    assert shown("show terse tables in schema s2") == [("S2", "T2")]
    assert shown(f"show terse tables in {database}.public") == [("PUBLIC", "T1")]
    assert shown(f"show terse tables in database {database}") == [("PUBLIC", "T1"), ("S2", "T2")]
    assert ("S2", "T2") in shown("show terse tables in account")


def test_show_tables_in_a_missing_schema_fails(cur: SnowflakeCursor) -> None:
    with pytest.raises(snowflake.connector.errors.ProgrammingError) as info:
        cur.execute("show tables in schema no_such_schema")
    assert info.value.errno == 2003


def test_show_objects_lists_tables_and_views(cur: SnowflakeCursor, database: str) -> None:
    cur.execute("create table t (i int)")
    cur.execute("create view v as select i from t")
    cur.execute("show objects")
    assert names(cur) == SHOW_OBJECTS
    assert [(r[1], r[4]) for r in cur.fetchall()] == [("T", "TABLE"), ("V", "VIEW")]
    cur.execute("show terse objects in schema public")
    assert names(cur) == TERSE
    assert [r[1:] for r in cur.fetchall()] == [
        ("T", "TABLE", database, "PUBLIC"),
        ("V", "VIEW", database, "PUBLIC"),
    ]


def test_show_views(cur: SnowflakeCursor, database: str) -> None:
    cur.execute("show views")
    assert names(cur) == SHOW_VIEWS
    assert cur.fetchall() == []
    cur.execute("create table t (i int)")
    cur.execute("create view v comment = 'a view' as select i from t")
    cur.execute("show views like 'v'")
    (row,) = rows_as_dicts(cur)
    assert (row["name"], row["database_name"], row["schema_name"], row["comment"]) == (
        "V",
        database,
        "PUBLIC",
        "a view",
    )
    assert "select i from t" in str(row["text"]).lower()
    assert (row["is_secure"], row["is_materialized"], row["owner"]) == ("false", "false", "ACCOUNTADMIN")
    cur.execute("show terse views")
    assert names(cur) == TERSE
    assert [r[1:] for r in cur.fetchall()] == [("V", "VIEW", database, "PUBLIC")]


# --- SHOW of kinds this server has no objects of -------------------------------------------------

POLICY_COLUMNS = ["created_on", "name", "database_name", "schema_name", "kind", "owner", "comment"]
POLICY_COLUMNS += ["options", "owner_role_type"]
INTEGRATION_COLUMNS = ["name", "type", "category", "enabled", "comment", "created_on"]
EMPTY_SHOWS = {
    "materialized views": [
        "created_on",
        "name",
        "reserved",
        "database_name",
        "schema_name",
        "cluster_by",
        "rows",
        "bytes",
        "source_database_name",
        "source_schema_name",
        "source_table_name",
        "refreshed_on",
        "compacted_on",
        "owner",
        "invalid",
        "invalid_reason",
        "behind_by",
        "comment",
        "text",
        "is_secure",
        "automatic_clustering",
        "owner_role_type",
    ],
    "pipes": [
        "created_on",
        "name",
        "database_name",
        "schema_name",
        "definition",
        "owner",
        "notification_channel",
        "comment",
        "integration",
        "pattern",
        "error_integration",
        "owner_role_type",
        "invalid_reason",
        "kind",
    ],
    "external tables": [
        "created_on",
        "name",
        "database_name",
        "schema_name",
        "invalid",
        "invalid_reason",
        "owner",
        "comment",
        "stage",
        "location",
        "file_format_name",
        "file_format_type",
        "cloud",
        "region",
        "notification_channel",
        "last_refreshed_on",
        "table_format",
        "last_refresh_details",
        "owner_role_type",
    ],
    "terse external tables": TERSE,
    "tags": [
        "created_on",
        "name",
        "database_name",
        "schema_name",
        "owner",
        "comment",
        "allowed_values",
        "owner_role_type",
    ],
    "api integrations": INTEGRATION_COLUMNS,
    "external access integrations": INTEGRATION_COLUMNS,
    "security integrations": INTEGRATION_COLUMNS,
    "storage integrations": INTEGRATION_COLUMNS,
    "notification integrations": [*INTEGRATION_COLUMNS, "direction"],
    "network policies": [
        "created_on",
        "name",
        "comment",
        "entries_in_allowed_ip_list",
        "entries_in_blocked_ip_list",
        "entries_in_allowed_network_rules",
        "entries_in_blocked_network_rules",
    ],
    "masking policies": POLICY_COLUMNS,
    "row access policies": POLICY_COLUMNS,
    "alerts": [
        "created_on",
        "name",
        "database_name",
        "schema_name",
        "owner",
        "comment",
        "warehouse",
        "schedule",
        "state",
        "condition",
        "action",
        "owner_role_type",
    ],
    "terse alerts": ["created_on", "name", "kind", "database_name", "schema_name", "schedule", "state"],
    "shares": [
        "created_on",
        "kind",
        "owner_account",
        "name",
        "database_name",
        "to",
        "owner",
        "comment",
        "listing_global_name",
    ],
    "event tables": [
        "created_on",
        "name",
        "database_name",
        "schema_name",
        "owner",
        "comment",
        "owner_role_type",
    ],
    "terse event tables": ["created_on", "name", "database_name", "schema_name"],
    "hybrid tables": [
        "created_on",
        "name",
        "database_name",
        "schema_name",
        "owner",
        "rows",
        "bytes",
        "comment",
        "owner_role_type",
    ],
    "terse hybrid tables": TERSE,
    "locks": [
        "resource",
        "type",
        "transaction",
        "transaction_started_on",
        "status",
        "acquired_on",
        "query_id",
        "session",
    ],
}


@pytest.mark.parametrize("kind", list(EMPTY_SHOWS))
def test_show_of_a_kind_with_no_objects_has_its_columns_and_no_rows(cur: SnowflakeCursor, kind: str) -> None:
    cur.execute(f"show {kind}")
    assert names(cur) == EMPTY_SHOWS[kind]
    types = {d.name: d.type_code for d in cur.description}
    assert {types[n] for n in types if n.endswith("_on")} == {TIMESTAMP_LTZ}
    assert types.get("name", TEXT) == TEXT
    assert cur.fetchall() == []


def test_show_of_a_kind_with_no_objects_takes_like_and_in(cur: SnowflakeCursor, database: str) -> None:
    assert cur.execute(f"show pipes like 'p%' in schema {database}.public").fetchall() == []
    assert names(cur) == EMPTY_SHOWS["pipes"]
    assert [d.name for d in cur.describe("show event tables")] == EMPTY_SHOWS["event tables"]
    assert cur.execute("show masking policies in account").fetchall() == []
    assert cur.execute("show storage integrations like 's%'").fetchall() == []
    with pytest.raises(snowflake.connector.errors.ProgrammingError) as info:
        cur.execute("show tags in schema no_such_schema")
    assert info.value.errno == 2003
    with pytest.raises(snowflake.connector.errors.ProgrammingError) as info:
        cur.execute("show alerts in database no_such_database")
    assert info.value.errno == 2003


def test_show_integrations_lists_the_catalog_integrations(cur: SnowflakeCursor) -> None:
    cur.execute("show integrations")
    assert names(cur) == INTEGRATION_COLUMNS
    assert {row[2] for row in cur.fetchall()} <= {"CATALOG"}


def test_show_user_procedures_lists_the_procedures_made_with_create_procedure(cur: SnowflakeCursor) -> None:
    cur.execute("create procedure answer() returns int language sql as 'begin return 42; end'")
    cur.execute("show user procedures like 'ANS%' in schema")
    assert names(cur) == SHOW_PROCEDURES
    assert [(r["name"], r["schema_name"], r["is_builtin"]) for r in rows_as_dicts(cur)] == [
        ("ANSWER", "PUBLIC", "N")
    ]
    assert cur.execute("show user procedures like 'NO_SUCH%'").fetchall() == []


# --- SHOW COLUMNS / DESCRIBE ---------------------------------------------------------------------


def test_show_columns_formats_data_type_as_snowflake_json(cur: SnowflakeCursor, database: str) -> None:
    cur.execute("create table t (i int not null, n number(10, 2), s varchar(20) comment 'name', f float)")
    cur.execute("show columns in table t")
    assert names(cur) == SHOW_COLUMNS
    rows = rows_as_dicts(cur)
    assert cur.rowcount == 4
    assert [r["column_name"] for r in rows] == ["I", "N", "S", "F"]
    assert [json.loads(str(r["data_type"])) for r in rows] == [
        {"type": "FIXED", "precision": 38, "scale": 0, "nullable": False},
        {"type": "FIXED", "precision": 10, "scale": 2, "nullable": True},
        {"type": "TEXT", "length": 20, "byteLength": 80, "nullable": True, "fixed": False},
        {"type": "REAL", "nullable": True},
    ]
    assert rows[0]["data_type"] == '{"type":"FIXED","precision":38,"scale":0,"nullable":false}'
    assert [r["null?"] for r in rows] == ["false", "true", "true", "true"]
    assert rows[2]["comment"] == "name"
    assert {(r["table_name"], r["schema_name"], r["database_name"], r["kind"]) for r in rows} == {
        ("T", "PUBLIC", database, "COLUMN")
    }


def test_show_columns_like_and_schema_scope(cur: SnowflakeCursor) -> None:
    cur.execute("create table t (abc int, abd int, x int)")
    cur.execute("create table u (abz int)")
    cur.execute("show columns like 'AB%' in schema public")
    assert [(r[0], r[2]) for r in cur.fetchall()] == [("T", "ABC"), ("T", "ABD"), ("U", "ABZ")]


def test_describe_table(cur: SnowflakeCursor) -> None:
    cur.execute(
        "create table t (i int not null, n number(10, 2), s varchar comment 'c', ts timestamp_ntz,"
        " b boolean, v variant)"
    )
    cur.execute("describe table t")
    assert names(cur) == DESCRIBE_TABLE
    rows = cur.fetchall()
    assert cur.rowcount == 6
    assert [r[:4] for r in rows] == [
        ("I", "NUMBER(38,0)", "COLUMN", "N"),
        ("N", "NUMBER(10,2)", "COLUMN", "Y"),
        ("S", "VARCHAR(16777216)", "COLUMN", "Y"),
        ("TS", "TIMESTAMP_NTZ(9)", "COLUMN", "Y"),
        ("B", "BOOLEAN", "COLUMN", "Y"),
        ("V", "VARIANT", "COLUMN", "Y"),
    ]
    assert rows[0][4:] == (None, "N", "N", None, None, None, None, None)
    assert rows[2][9] == "c"
    with warnings.catch_warnings():
        # Connector 5 warns that bare DESC <table> is deprecated; Snowflake still accepts it.
        warnings.simplefilter("ignore", DeprecationWarning)
        assert cur.execute("desc t").fetchall() == rows


def test_describe_missing_table_fails(cur: SnowflakeCursor) -> None:
    with pytest.raises(snowflake.connector.errors.ProgrammingError) as info:
        cur.execute("describe table no_such_table")
    assert info.value.errno == 2003


def test_describe_database_and_schema(cur: SnowflakeCursor, database: str) -> None:
    cur.execute("create table t (i int)")
    cur.execute("create view v as select i from t")
    cur.execute(f"describe database {database}")
    assert names(cur) == ["created_on", "name", "kind"]
    assert [r[1:] for r in cur.fetchall()] == [("PUBLIC", "SCHEMA")]
    cur.execute("describe schema public")
    assert [r[1:] for r in cur.fetchall()] == [("T", "TABLE"), ("V", "VIEW")]


def test_describe_and_show_columns_of_a_view(cur: SnowflakeCursor) -> None:
    cur.execute("create table t (i int, s varchar(10))")
    cur.execute("create view v as select i, s, i + 1 as j from t")
    cur.execute("describe view v")
    assert names(cur) == DESCRIBE_TABLE
    assert [r[:3] for r in cur.fetchall()] == [
        ("I", "NUMBER(38,0)", "COLUMN"),
        ("S", "VARCHAR(10)", "COLUMN"),
        ("J", "NUMBER(38,0)", "COLUMN"),
    ]
    cur.execute("show columns in view v")
    assert [r[2] for r in cur.fetchall()] == ["I", "S", "J"]
    cur.execute("show columns in schema public")
    assert [(r[0], r[2]) for r in cur.fetchall()] == [
        ("T", "I"),
        ("T", "S"),
        ("V", "I"),
        ("V", "S"),
        ("V", "J"),
    ]


def test_cursor_describe_of_show_gives_its_columns(cur: SnowflakeCursor) -> None:
    cur.execute("create table t (i int)")
    assert [d.name for d in cur.describe("show tables")] == SHOW_TABLES
    assert [d.name for d in cur.describe("describe table t")] == DESCRIBE_TABLE


# --- SHOW PARAMETERS -----------------------------------------------------------------------------


def test_show_parameters_like_is_case_insensitive(cur: SnowflakeCursor) -> None:
    cur.execute("show parameters like 'autocommit'")
    assert names(cur) == SHOW_PARAMETERS
    assert cur.fetchall() == [
        (
            "AUTOCOMMIT",
            "true",
            "true",
            "",
            "Whether each statement commits on its own (autocommit).",
            "BOOLEAN",
        )
    ]


def test_show_parameters_in_session_reflects_alter_session(cur: SnowflakeCursor) -> None:
    cur.execute("alter session set timezone = 'Asia/Tokyo'")
    cur.execute("show parameters like 'TIMEZONE' in session")
    (row,) = rows_as_dicts(cur)
    assert (row["value"], row["default"], row["level"], row["type"]) == (
        "Asia/Tokyo",
        "America/Los_Angeles",
        "SESSION",
        "STRING",
    )
    cur.execute("show parameters")
    keys = [r[0] for r in cur.fetchall()]
    assert "TIMEZONE" in keys
    assert keys == sorted(keys)
    assert cur.rowcount == len(keys)


# --- session variables ---------------------------------------------------------------------------


def test_set_and_reference_variables(cur: SnowflakeCursor) -> None:
    assert cur.execute("set x = 10").fetchall() == [("Statement executed successfully.",)]
    assert cur.execute("select $x + 1 as y").fetchall() == [(11,)]
    cur.execute("set (a, b) = (1.5::float, 'two')")
    assert cur.execute("select $a, $B").fetchall() == [(1.5, "two")]
    assert [d.name for d in cur.description] == ["$A", "$B"]
    cur.execute("set c = (select count(*) from (values (1), (2)))")
    assert cur.execute("select $c").fetchall() == [(2,)]


def test_set_evaluates_every_expression_before_assigning(cur: SnowflakeCursor) -> None:
    cur.execute("set (lo, hi) = (40, 70)")
    cur.execute("set (lo, hi) = (50, 2 * $lo)")
    assert cur.execute("select $lo, $hi").fetchall() == [(50, 80)]


def test_getvariable_and_session_context_read_a_variable_by_its_stored_name(cur: SnowflakeCursor) -> None:
    # https://docs.snowflake.com/en/sql-reference/functions/getvariable
    cur.execute("SET MY_LOCAL_VARIABLE = 'my_local_variable_value'")
    cur.execute("SET n = 42")
    cur.execute(
        "SELECT GETVARIABLE('MY_LOCAL_VARIABLE'), SESSION_CONTEXT('MY_LOCAL_VARIABLE'), $my_local_variable, "
        "GETVARIABLE('N'), GETVARIABLE('n'), GETVARIABLE('NOT_SET')"
    )
    assert cur.fetchone() == ("my_local_variable_value",) * 3 + ("42", None, None)
    assert {d.type_code for d in cur.description} == {2}  # VARCHAR


def test_unknown_variable_fails_like_snowflake(cur: SnowflakeCursor) -> None:
    with pytest.raises(snowflake.connector.errors.ProgrammingError) as info:
        cur.execute("select $nope")
    assert info.value.errno == 2211
    assert info.value.sqlstate == "02000"
    assert "Session variable '$NOPE' does not exist" in str(info.value.msg)


def test_unset_removes_variables(cur: SnowflakeCursor) -> None:
    cur.execute("set (p, q) = (1, 2)")
    assert cur.execute("unset p").fetchall() == [("Statement executed successfully.",)]
    with pytest.raises(snowflake.connector.errors.ProgrammingError) as info:
        cur.execute("select $p")
    assert info.value.errno == 2211
    cur.execute("unset (q)")
    with pytest.raises(snowflake.connector.errors.ProgrammingError):
        cur.execute("select $q")
    with pytest.raises(snowflake.connector.errors.ProgrammingError) as info:
        cur.execute("unset never_set")
    assert info.value.errno == 2211


def test_show_variables(cur: SnowflakeCursor, conn: SnowflakeConnection) -> None:
    cur.execute("set (v_num, v_text) = (7, 'seven')")
    cur.execute("set v_num = 8")
    cur.execute("show variables")
    assert names(cur) == SHOW_VARIABLES
    rows = rows_as_dicts(cur)
    assert [(r["name"], r["value"], r["type"]) for r in rows] == [
        ("V_NUM", "8", "fixed"),
        ("V_TEXT", "seven", "text"),
    ]
    assert {r["session_id"] for r in rows} == {conn.session_id}
    assert rows[0]["updated_on"] >= rows[0]["created_on"]
    cur.execute("show variables like 'v_t%'")
    assert [r[3] for r in cur.fetchall()] == ["V_TEXT"]


def test_variables_belong_to_their_session(cur: SnowflakeCursor, server: Server, database: str) -> None:
    cur.execute("set mine = 1")
    with (
        server.connect(database=database) as other,
        pytest.raises(snowflake.connector.errors.ProgrammingError),
    ):
        other.cursor().execute("select $mine")


def test_identifier_takes_a_table_name_from_a_variable(cur: SnowflakeCursor) -> None:
    cur.execute("create table target (i int)")
    cur.execute("insert into target values (1), (2)")
    cur.execute("set tbl = 'target'")
    assert cur.execute("select count(*) from identifier($tbl)").fetchall() == [(2,)]
