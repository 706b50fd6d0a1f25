"""SHOW / DESCRIBE / SET / UNSET trees -> plain descriptions, with scopes resolved."""

from __future__ import annotations

import pytest

from embucket_py.errors import SqlCompilationError, Unsupported
from embucket_py.sql.context import SqlContext
from embucket_py.sql.metadata import (
    DescribeDef,
    ShowDef,
    UnsetDef,
    describe_def,
    is_show,
    set_def,
    show_def,
    unset_def,
)
from embucket_py.sql.parse import parse

CTX = SqlContext(database="DB", schema="PUBLIC")
NO_DATABASE = SqlContext(database=None, schema=None)


def show(sql: str, ctx: SqlContext = CTX) -> ShowDef:
    (tree,) = parse(sql)
    assert is_show(tree)
    return show_def(tree, ctx)


def test_show_options() -> None:
    assert show("SHOW TERSE TABLES LIKE 'a%' STARTS WITH 'A' LIMIT 3 FROM 'B'") == ShowDef(
        "TABLES",
        terse=True,
        like="a%",
        starts_with="A",
        limit=3,
        from_name="B",
        scope="DATABASE",
        database="DB",
    )
    assert show("SHOW DATABASES LIKE $$x%$$") == ShowDef("DATABASES", like="x%")


def test_show_without_in_uses_the_current_database_else_the_account() -> None:
    assert show("SHOW TABLES") == ShowDef("TABLES", scope="DATABASE", database="DB")
    assert show("SHOW TABLES", NO_DATABASE) == ShowDef("TABLES")
    assert show("SHOW DATABASES") == ShowDef("DATABASES")


def test_show_scopes() -> None:
    assert show("SHOW TABLES IN ACCOUNT") == ShowDef("TABLES")
    assert show("SHOW TABLES IN DATABASE") == ShowDef("TABLES", scope="DATABASE", database="DB")
    assert show("SHOW TABLES IN DATABASE other") == ShowDef("TABLES", scope="DATABASE", database="OTHER")
    schema = ShowDef("TABLES", scope="SCHEMA", database="DB", schema="S")
    assert show("SHOW TABLES IN SCHEMA s") == schema
    assert show("SHOW TABLES IN s") == schema
    assert show("SHOW TABLES IN db.s") == schema
    assert show("SHOW TABLES IN SCHEMA") == ShowDef("TABLES", scope="SCHEMA", database="DB", schema="PUBLIC")
    assert show('SHOW OBJECTS IN SCHEMA "Db"."Mixed"') == ShowDef(
        "OBJECTS", scope="SCHEMA", database="Db", schema="Mixed"
    )


def test_show_schemas_in_a_name_means_a_database() -> None:
    assert show("SHOW SCHEMAS IN other") == ShowDef("SCHEMAS", scope="DATABASE", database="OTHER")
    assert show("SHOW SCHEMAS IN DATABASE other") == ShowDef("SCHEMAS", scope="DATABASE", database="OTHER")


def test_show_columns_in_a_table() -> None:
    table = ShowDef("COLUMNS", scope="TABLE", database="DB", schema="PUBLIC", table="T")
    assert show("SHOW COLUMNS IN TABLE t") == table
    assert show("SHOW COLUMNS IN t") == table
    assert show("SHOW COLUMNS LIKE 'a%' IN db.public.t") == ShowDef(
        "COLUMNS", like="a%", scope="TABLE", database="DB", schema="PUBLIC", table="T"
    )


def test_show_parameters_and_variables_arrive_as_commands() -> None:
    assert show("SHOW PARAMETERS") == ShowDef("PARAMETERS", scope="SESSION")
    assert show("SHOW PARAMETERS LIKE 'time%' IN SESSION") == ShowDef(
        "PARAMETERS", like="time%", scope="SESSION"
    )
    assert show("SHOW PARAMETERS FOR SESSION") == ShowDef("PARAMETERS", scope="SESSION")
    assert show("SHOW VARIABLES LIKE 'v%'") == ShowDef("VARIABLES", like="v%", scope="SESSION")
    assert show("SHOW PARAMETERS LIKE 'T%' IN ACCOUNT") == ShowDef("PARAMETERS", like="T%", scope="ACCOUNT")
    with pytest.raises(Unsupported):
        show("SHOW PARAMETERS IN WAREHOUSE wh")


def test_show_of_unknown_objects_is_unsupported() -> None:
    with pytest.raises(Unsupported):
        show("SHOW TASKS")
    assert show("SHOW USER FUNCTIONS LIKE 'A%'") == show("SHOW FUNCTIONS LIKE 'A%'")
    assert show("SHOW USER FUNCTIONS").kind == "FUNCTIONS"


def test_show_of_kinds_with_no_objects_reads_like_show_tables_or_databases() -> None:
    assert show("SHOW PIPES LIKE 'p%' IN s") == ShowDef(
        "PIPES", like="p%", scope="SCHEMA", database="DB", schema="S"
    )
    assert show("show  hybrid   tables") == ShowDef("HYBRID TABLES", scope="DATABASE", database="DB")
    assert show("SHOW TERSE ALERTS IN ACCOUNT") == ShowDef("ALERTS", terse=True)
    assert show("SHOW SHARES STARTS WITH 'A' LIMIT 2") == ShowDef("SHARES", starts_with="A", limit=2)
    assert show("SHOW STORAGE INTEGRATIONS LIKE 's%'") == ShowDef("STORAGE INTEGRATIONS", like="s%")
    assert show("SHOW LOCKS IN ACCOUNT") == ShowDef("LOCKS")
    assert show("SHOW USER PROCEDURES IN SCHEMA") == show("SHOW PROCEDURES IN SCHEMA")
    for sql in ("SHOW INTEGRATIONS IN DATABASE d", "SHOW PIPES IN TABLE t", "SHOW PIPESX"):
        with pytest.raises(Unsupported):
            show(sql)


def test_show_in_schema_needs_a_current_database() -> None:
    with pytest.raises(SqlCompilationError) as info:
        show("SHOW TABLES IN SCHEMA s", NO_DATABASE)
    assert info.value.code == 90105


def describe(sql: str) -> DescribeDef:
    (tree,) = parse(sql)
    return describe_def(tree, CTX)  # type: ignore[arg-type]


def test_describe() -> None:
    assert describe("DESCRIBE TABLE t") == DescribeDef("TABLE", ["DB", "PUBLIC", "T"])
    assert describe("DESC t") == DescribeDef("TABLE", ["DB", "PUBLIC", "T"])
    assert describe("DESC TABLE x.y.z TYPE = COLUMNS") == DescribeDef("TABLE", ["X", "Y", "Z"])
    assert describe("DESC VIEW v") == DescribeDef("VIEW", ["DB", "PUBLIC", "V"])
    assert describe("DESCRIBE DATABASE d") == DescribeDef("DATABASE", ["D"])
    assert describe("DESCRIBE SCHEMA s") == DescribeDef("SCHEMA", ["DB", "S"])
    assert describe("DESCRIBE SCHEMA d.s") == DescribeDef("SCHEMA", ["D", "S"])
    with pytest.raises(Unsupported):
        describe("DESCRIBE TABLE t TYPE = STAGE")


def set_sql(sql: str) -> tuple[list[str], str]:
    (tree,) = parse(sql)
    d = set_def(tree)  # type: ignore[arg-type]
    return d.names, d.query.sql(dialect="snowflake")


def test_set_becomes_names_and_one_query() -> None:
    assert set_sql("SET x = 1") == (["X"], "SELECT 1")
    assert set_sql("SET (a, b) = (1, 'two')") == (["A", "B"], "SELECT 1, 'two'")
    assert set_sql("SET (a, b) = (SELECT 1, 2)") == (["A", "B"], "SELECT 1, 2")
    assert set_sql("SET (a) = (1)") == (["A"], "SELECT 1")
    assert set_sql("SET x = (SELECT COUNT(*) FROM t)") == (["X"], "SELECT COUNT(*) FROM t")
    assert set_sql("SET y = 2 * $x") == (["Y"], "SELECT 2 * $x")


def test_set_with_mismatched_counts_fails() -> None:
    (tree,) = parse("SET (a, b) = (1, 2, 3)")
    with pytest.raises(SqlCompilationError):
        set_def(tree)  # type: ignore[arg-type]


def test_unset_is_recognised_from_the_trees_sqlglot_makes() -> None:
    assert unset_def(parse("UNSET x")[0]) == UnsetDef(["X"])
    assert unset_def(parse("UNSET (a, b)")[0]) == UnsetDef(["A", "B"])
    assert unset_def(parse("SELECT 1")[0]) is None
    assert unset_def(parse("SELECT unset AS x")[0]) is None
