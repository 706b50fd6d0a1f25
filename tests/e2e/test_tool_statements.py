"""Statements dbt and other tools send, answered as Snowflake answers them."""

from __future__ import annotations

import pytest
import snowflake.connector
from snowflake.connector.cursor import SnowflakeCursor


def test_merge_insert_values_name_source_columns_bare(cur: SnowflakeCursor) -> None:
    # dbt's merge: WHEN NOT MATCHED ... VALUES ("ID", ...) means the source's columns.
    cur.execute("create table dest (id int, v varchar)")
    cur.execute("insert into dest values (1, 'a')")
    cur.execute("create table src (id int, v varchar)")
    cur.execute("insert into src values (1, 'b'), (2, 'c')")
    cur.execute(
        "merge into dest as d using src as s on s.id = d.id "
        'when matched then update set "V" = s."V" '
        'when not matched then insert ("ID", "V") values ("ID", "V")'
    )
    assert cur.fetchall() == [(1, 1)]
    assert cur.execute("select id, v from dest order by id").fetchall() == [(1, "b"), (2, "c")]


def test_show_objects_calls_a_transient_table_a_table(cur: SnowflakeCursor) -> None:
    cur.execute("create transient table scratch (id int)")
    cur.execute("show objects like 'SCRATCH' in schema public")
    names = [d.name for d in cur.description]
    (row,) = cur.fetchall()
    assert dict(zip(names, row, strict=True))["kind"] == "TABLE"


def test_show_objects_in_a_missing_schema_fails_as_dbt_expects(cur: SnowflakeCursor) -> None:
    with pytest.raises(snowflake.connector.errors.ProgrammingError) as info:
        cur.execute("show objects in schema no_such_schema")
    assert (info.value.errno, info.value.sqlstate) == (2043, "02000")
