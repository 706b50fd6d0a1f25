"""QueryResult: what one statement produced, in engine terms (Arrow + Snowflake types)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import IntEnum

import pyarrow as pa

from embucket_py.engine.scan import ScanStats
from embucket_py.types import SfType, arrow_field, from_arrow_field


class StatementType(IntEnum):
    """Snowflake's statement type ids (the v1 protocol's statementTypeId); the top hex digit is
    the family, which decides how clients count rows."""

    SELECT = 0x1000
    EXPLAIN = 0x2000
    INSERT = 0x3100
    UPDATE = 0x3200
    DELETE = 0x3300
    MERGE = 0x3400
    MULTI_INSERT = 0x3500
    ALTER_SESSION = 0x4100
    USE = 0x4300
    SHOW = 0x4400
    DESCRIBE = 0x4500
    COMMIT = 0x5100
    BEGIN = 0x5200
    ROLLBACK = 0x5300
    DDL = 0x6100
    MULTI_STATEMENT = 0xA000


@dataclass(frozen=True)
class ResultColumn:
    name: str
    type: SfType
    nullable: bool = True
    database: str = ""
    schema: str = ""
    table: str = ""


@dataclass
class QueryResult:
    """Columns (Snowflake names and types) and a stream of Arrow batches whose fields match them."""

    columns: list[ResultColumn]
    batches: Iterator[pa.RecordBatch] | list[pa.RecordBatch]
    statement_type: StatementType = StatementType.SELECT
    # Session changes a client must see after this statement (e.g. ALTER SESSION SET TIMEZONE).
    changed_parameters: dict[str, object] = field(default_factory=dict)
    stats: dict[str, int] = field(default_factory=dict)
    # What a query's table scans held and read (complete once `batches` is exhausted).
    scan: ScanStats | None = None
    # When a query's plan was made (epoch ms): its compilation ends and its execution begins.
    compiled_ms: int | None = None

    @property
    def is_dml(self) -> bool:
        return 0x3000 <= self.statement_type < 0x4000


_PLAIN = {pa.string_view(): pa.string(), pa.binary_view(): pa.binary()}


def plain_schema(schema: pa.Schema) -> pa.Schema:
    return pa.schema([f.with_type(_PLAIN.get(f.type, f.type)) for f in schema], metadata=schema.metadata)


def without_views(batch: pa.RecordBatch) -> pa.RecordBatch:
    """View columns (DataFusion's string_view) as plain strings and binaries: what file writers
    take, holding only the bytes its rows use (a filtered batch's views keep whole pages)."""
    if not any(f.type in _PLAIN for f in batch.schema):
        return batch
    return batch.cast(plain_schema(batch.schema))


def columns_of(schema: pa.Schema, names: list[str] | None = None) -> list[ResultColumn]:
    names = names or schema.names
    return [
        ResultColumn(name, from_arrow_field(f), f.nullable) for name, f in zip(names, schema, strict=True)
    ]


def constant(
    columns: list[tuple[str, SfType]],
    rows: list[tuple[object, ...]],
    kind: StatementType,
    nullable: bool = True,
) -> QueryResult:
    """A small result made in Python (status rows, DML counts, SHOW output)."""
    schema = pa.schema([arrow_field(name, t, nullable) for name, t in columns])
    batch = pa.RecordBatch.from_pylist([dict(zip(schema.names, r, strict=True)) for r in rows], schema=schema)
    return QueryResult([ResultColumn(n, t, nullable) for n, t in columns], [batch], kind)


# What Snowflake answers a statement with nothing else to say.
OK = "Statement executed successfully."


def status(message: str, kind: StatementType = StatementType.DDL) -> QueryResult:
    return constant([("status", SfType("TEXT", length=16777216))], [(message,)], kind)


DML_COUNT = SfType("FIXED", 19, 0)


def dml_counts(kind: StatementType, counts: dict[str, int]) -> QueryResult:
    """Snowflake's DML answer: one row of counts ("number of rows inserted", ...)."""
    return constant([(name, DML_COUNT) for name in counts], [tuple(counts.values())], kind, nullable=False)
