"""Golden translation tests in the sqlglot style: Snowflake SQL in, the exact DataFusion SQL out.

Every golden is also planned and run on DataFusion over empty stub tables registered under the
engine-side names (`__t0`, ...), so a golden that DataFusion cannot plan fails its test.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

import pyarrow as pa
from datafusion import SessionContext

from embucket_py.engine.context import new_context
from embucket_py.naming import display
from embucket_py.sql.context import SqlContext, kind_text
from embucket_py.sql.names import SourceText
from embucket_py.sql.parse import parse
from embucket_py.sql.translate import QueryTranslation, translate_query
from embucket_py.types import from_arrow_field

CONTEXT_VALUES: dict[str, Any] = {
    "CURRENT_DATABASE": "DB",
    "CURRENT_SCHEMA": "PUBLIC",
    "CURRENT_USER": "EMBUCKET",
    "CURRENT_ROLE": "ACCOUNTADMIN",
    "CURRENT_WAREHOUSE": None,
    "CURRENT_VERSION": "9.99.0",
    "CURRENT_SESSION": "42",
}
CTX = SqlContext(database="DB", schema="PUBLIC", values=CONTEXT_VALUES)

# Columns every stub table has, under their stored (Iceberg) names; tests pass others by table.
STUB_COLUMNS = pa.schema(
    [
        ("a", pa.int64()),
        ("b", pa.string()),
        ("c", pa.int64()),
        ("d", pa.float64()),
        ("ts", pa.timestamp("us")),
        ("MyCol", pa.int64()),
        ("q", pa.string()),
    ]
)


def with_stub_kinds(ctx: SqlContext, schemas: dict[str, pa.Schema] | None) -> SqlContext:
    """The context as the engine builds it: column types of the stub tables known by name."""
    if ctx.column_kinds is not None:
        return ctx

    def kinds(parts: list[str]) -> dict[str, str]:
        schema = (schemas or {}).get(parts[2], STUB_COLUMNS)
        return {display(f.name): kind_text(from_arrow_field(f)) for f in schema}

    return dataclasses.replace(ctx, column_kinds=kinds)


def translate(sql: str, ctx: SqlContext = CTX) -> QueryTranslation:
    """Parses one Snowflake query and translates it as the engine does."""
    (tree,) = parse(sql)
    return translate_query(tree, ctx, SourceText(sql))


def run_on_datafusion(
    translation: QueryTranslation, schemas: dict[str, pa.Schema] | None = None
) -> pa.Schema:
    """Plans and runs the translated SQL over empty stub tables. Returns the result schema.

    Args:
        translation: what `translate` produced.
        schemas: stub columns by Snowflake table name (default `STUB_COLUMNS` for every table).
    """
    ctx: SessionContext = new_context()
    for use in translation.tables:
        schema = (schemas or {}).get(use.name, STUB_COLUMNS)
        ctx.register_record_batches(use.registered_as, [[pa.RecordBatch.from_pylist([], schema=schema)]])
    frame = ctx.sql(translation.sql)
    frame.collect()
    return frame.schema()


def validate(
    snowflake_sql: str,
    datafusion_sql: str,
    *,
    schemas: dict[str, pa.Schema] | None = None,
    ctx: SqlContext = CTX,
) -> QueryTranslation:
    """Asserts the exact DataFusion SQL of a Snowflake query, and that DataFusion runs it."""
    translation = translate(snowflake_sql, with_stub_kinds(ctx, schemas))
    assert translation.sql == datafusion_sql
    run_on_datafusion(translation, schemas)
    return translation


def result_names(snowflake_sql: str, schemas: dict[str, pa.Schema] | None = None) -> list[str]:
    """The column names a client sees for a query: translated, run, then named the Snowflake way."""
    from embucket_py.sql.transforms.projections import result_names as snowflake_names

    translation = translate(snowflake_sql)
    schema = run_on_datafusion(translation, schemas)
    return snowflake_names(translation.projected, schema.names)


def squash(sql: str) -> str:
    """One-line form of a golden written over several lines for reading."""
    return re.sub(r"\s+", " ", sql).strip()
