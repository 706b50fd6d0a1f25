"""Avro data files as Arrow batches: the writer's schema mapped to Arrow types, records decoded by
fastavro (logical types included: date, time, timestamps, decimal, uuid).

Records become named columns, as Parquet's and ORC's rows: a record field a struct, an array a
list, a map a map of strings, an enum its symbol. A union of null and one type is that type; a
union of several types is the value's JSON text.
https://avro.apache.org/docs/1.11.1/specification/
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, BinaryIO

import fastavro
import pyarrow as pa

BATCH_ROWS = 65536

_PRIMITIVES = {
    "null": pa.null(),
    "boolean": pa.bool_(),
    "int": pa.int32(),
    "long": pa.int64(),
    "float": pa.float32(),
    "double": pa.float64(),
    "bytes": pa.binary(),
    "string": pa.string(),
}
_LOGICAL = {
    "date": pa.date32(),
    "time-millis": pa.time32("ms"),
    "time-micros": pa.time64("us"),
    "timestamp-millis": pa.timestamp("ms", tz="UTC"),
    "timestamp-micros": pa.timestamp("us", tz="UTC"),
    "local-timestamp-millis": pa.timestamp("ms"),
    "local-timestamp-micros": pa.timestamp("us"),
    "uuid": pa.string(),
}


class _Types:
    """Arrow types of Avro schemas; named types (records, enums, fixed) are kept for later
    references by name."""

    def __init__(self) -> None:
        self.named: dict[str, pa.DataType] = {}

    def of(self, schema: Any) -> pa.DataType:
        if isinstance(schema, str):
            return _PRIMITIVES.get(schema) or self.named[schema]
        if isinstance(schema, list):
            kinds = [s for s in schema if s != "null"]
            return self.of(kinds[0]) if len(kinds) == 1 else pa.string()
        logical = schema.get("logicalType")
        if logical == "decimal":
            return pa.decimal128(int(schema["precision"]), int(schema.get("scale", 0)))
        if logical in _LOGICAL:
            return _LOGICAL[logical]
        kind = schema["type"]
        if kind == "record":
            t: pa.DataType = pa.struct([pa.field(f["name"], self.of(f["type"])) for f in schema["fields"]])
        elif kind == "enum":
            t = pa.string()
        elif kind == "fixed":
            t = pa.binary(int(schema["size"]))
        elif kind == "array":
            return pa.list_(self.of(schema["items"]))
        elif kind == "map":
            return pa.map_(pa.string(), self.of(schema["values"]))
        else:
            return self.of(kind)
        self.named[schema["name"]] = t
        if "namespace" in schema:
            self.named[f"{schema['namespace']}.{schema['name']}"] = t
        return t


def _plain(value: Any, t: pa.DataType) -> Any:
    """A decoded value as pyarrow builds `t` from it: maps as key-value pairs, several-type
    unions as JSON text."""
    if value is None:
        return None
    if pa.types.is_struct(t):
        return {f.name: _plain(value.get(f.name), f.type) for f in t}
    if pa.types.is_map(t):
        return [(k, _plain(v, t.item_type)) for k, v in value.items()]
    if pa.types.is_list(t):
        return [_plain(v, t.value_type) for v in value]
    if pa.types.is_string(t) and not isinstance(value, str):
        return json.dumps(value, default=str)
    return value


def read(stream: BinaryIO) -> Iterator[pa.RecordBatch]:
    """The file's records in batches of the schema's columns.

    Raises:
        ValueError: not an Avro data file, or a record that does not decode.
    """
    reader = fastavro.reader(stream)
    root = _Types().of(reader.writer_schema)
    if not pa.types.is_struct(root):  # a file of plain values: one column named after its type
        root = pa.struct([pa.field("value", root)])
        records: Iterator[Any] = ({"value": v} for v in reader)
    else:
        records = iter(reader)
    schema = pa.schema(list(root))
    rows: list[dict[str, Any]] = []
    for record in records:
        rows.append({f.name: _plain(record.get(f.name), f.type) for f in schema})
        if len(rows) == BATCH_ROWS:
            yield pa.RecordBatch.from_pylist(rows, schema=schema)
            rows = []
    if rows:
        yield pa.RecordBatch.from_pylist(rows, schema=schema)
