"""snowflake-sqlalchemy (and pandas on top of it), unmodified, against the server.

Runs from the legacy virtualenv (snowflake-sqlalchemy 1.11 on connector 4.x, as Superset uses it).
The engine URL names account, database and schema; host, port and protocol go in connect_args,
since this line refuses them in the URL.
"""

from __future__ import annotations

from collections.abc import Iterator

import pandas as pd
import pytest
import sqlalchemy as sa

from tests.e2e.conftest import Server


@pytest.fixture
def engine(server: Server, tool_database: str) -> Iterator[sa.engine.Engine]:
    url = f"snowflake://embucket:embucket@embucket/{tool_database}/PUBLIC?warehouse=COMPUTE_WH"
    engine = sa.create_engine(
        url, connect_args={"host": "127.0.0.1", "port": server.port, "protocol": "http"}
    )
    with engine.begin() as conn:
        conn.exec_driver_sql(
            "create table parent (id int primary key, code varchar(8) unique, "
            "amount number(10, 2) comment 'money', seen timestamp_ntz, ok boolean) comment = 'the parents'"
        )
        conn.exec_driver_sql(
            "create table child (id int, parent_id int, "
            "constraint child_parent foreign key (parent_id) references parent (id))"
        )
        conn.exec_driver_sql("create view parent_codes as select id, code from parent")
        conn.exec_driver_sql("create schema other")  # which becomes current, as on Snowflake
        conn.exec_driver_sql("use schema public")
    yield engine
    engine.dispose()


def test_inspector_lists_schemas_tables_and_views(engine: sa.engine.Engine) -> None:
    inspector = sa.inspect(engine)
    assert {"public", "other"} <= set(inspector.get_schema_names())
    assert inspector.get_table_names() == ["child", "parent"]
    assert inspector.get_view_names() == ["parent_codes"]


def test_inspector_columns_have_their_types(engine: sa.engine.Engine) -> None:
    columns = {c["name"]: c for c in sa.inspect(engine).get_columns("parent")}
    assert list(columns) == ["id", "code", "amount", "seen", "ok"]
    assert isinstance(columns["code"]["type"], sa.types.VARCHAR) and columns["code"]["type"].length == 8
    assert isinstance(columns["amount"]["type"], sa.types.DECIMAL)
    assert (columns["amount"]["type"].precision, columns["amount"]["type"].scale) == (10, 2)
    assert type(columns["seen"]["type"]).__name__ == "TIMESTAMP_NTZ"
    assert isinstance(columns["ok"]["type"], sa.types.Boolean)
    assert columns["amount"]["comment"] == "money"
    assert columns["id"]["nullable"] is False and columns["id"]["primary_key"] is True


def test_inspector_constraints_and_comment(engine: sa.engine.Engine) -> None:
    inspector = sa.inspect(engine)
    assert inspector.get_pk_constraint("parent")["constrained_columns"] == ["id"]
    assert [u["column_names"] for u in inspector.get_unique_constraints("parent")] == [["code"]]
    (fk,) = inspector.get_foreign_keys("child")
    assert (fk["name"], fk["constrained_columns"], fk["referred_table"], fk["referred_columns"]) == (
        "child_parent", ["parent_id"], "parent", ["id"],
    )  # fmt: skip
    assert inspector.get_table_comment("parent") == {"text": "the parents"}


def test_reflected_table_round_trips_through_the_orm_core(engine: sa.engine.Engine) -> None:
    parent = sa.Table("parent", sa.MetaData(), autoload_with=engine)
    with engine.begin() as conn:
        conn.execute(
            parent.insert(), [{"id": 1, "code": "a", "amount": 1.5}, {"id": 2, "code": "b", "amount": None}]
        )
        rows = conn.execute(sa.select(parent.c.id, parent.c.code).order_by(parent.c.id)).all()
    assert [tuple(r) for r in rows] == [(1, "a"), (2, "b")]


def test_pandas_to_sql_and_read_sql(engine: sa.engine.Engine) -> None:
    frame = pd.DataFrame({"city": ["Oslo", "Lima", "Pune"], "people": [709_000, 10_000_000, 3_100_000]})
    assert frame.to_sql("cities", engine, index=False, if_exists="replace") == 3
    back = pd.read_sql("select city, people from cities order by people", engine)
    assert back.to_dict("records") == [
        {"city": "Oslo", "people": 709_000},
        {"city": "Pune", "people": 3_100_000},
        {"city": "Lima", "people": 10_000_000},
    ]
