"""Snowflake types <-> Arrow types <-> Iceberg types, in one place.

A Snowflake type is an `SfType`: a logical name as the wire protocol spells it (FIXED, REAL, TEXT,
...) plus precision/scale/length. Arrow fields carry the Snowflake type they stand for in the field
metadata key `SFTYPE_KEY`, so a VARIANT stored as a string, or a VARCHAR(10), keeps its identity
through the engine. https://docs.snowflake.com/en/sql-reference-data-types
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pyarrow as pa
from pyiceberg import types as it

SFTYPE_KEY = b"embucket.sftype"

MAX_VARCHAR = 16777216
MAX_BINARY = 8388608

_INTEGER_SYNONYMS = {"INT", "INTEGER", "BIGINT", "SMALLINT", "TINYINT", "BYTEINT"}
_NUMBER_NAMES = {"NUMBER", "DECIMAL", "NUMERIC", "DEC"}
_FLOAT_NAMES = {"FLOAT", "FLOAT4", "FLOAT8", "DOUBLE", "DOUBLE PRECISION", "REAL"}
_TEXT_NAMES = {
    "VARCHAR",
    "STRING",
    "TEXT",
    "CHAR",
    "CHARACTER",
    "NCHAR",
    "NVARCHAR",
    "NVARCHAR2",
    "CHAR VARYING",
}
_BINARY_NAMES = {"BINARY", "VARBINARY"}
_TIMESTAMP_NAMES = {
    "TIMESTAMP": "TIMESTAMP_NTZ",
    "DATETIME": "TIMESTAMP_NTZ",
    "TIMESTAMP_NTZ": "TIMESTAMP_NTZ",
    "TIMESTAMPNTZ": "TIMESTAMP_NTZ",
    "TIMESTAMP WITHOUT TIME ZONE": "TIMESTAMP_NTZ",
    "TIMESTAMP_LTZ": "TIMESTAMP_LTZ",
    "TIMESTAMPLTZ": "TIMESTAMP_LTZ",
    "TIMESTAMP WITH LOCAL TIME ZONE": "TIMESTAMP_LTZ",
    "TIMESTAMP_TZ": "TIMESTAMP_TZ",
    "TIMESTAMPTZ": "TIMESTAMP_TZ",
    "TIMESTAMP WITH TIME ZONE": "TIMESTAMP_TZ",
}
TIMESTAMP_KINDS = ("TIMESTAMP_NTZ", "TIMESTAMP_LTZ", "TIMESTAMP_TZ")
SEMI_STRUCTURED = ("VARIANT", "OBJECT", "ARRAY")


@dataclass(frozen=True)
class SfType:
    """A Snowflake data type, named as the v1 protocol's `rowtype.type` (upper-cased)."""

    kind: str  # FIXED REAL TEXT BINARY BOOLEAN DATE TIME TIMESTAMP_NTZ/LTZ/TZ VARIANT OBJECT ARRAY
    precision: int | None = None
    scale: int | None = None
    length: int | None = None

    @property
    def sql(self) -> str:
        """The type as Snowflake's DESCRIBE and SHOW COLUMNS print it."""
        if self.kind == "FIXED":
            return f"NUMBER({self.precision},{self.scale})"
        if self.kind == "TEXT":
            return f"VARCHAR({self.length or MAX_VARCHAR})"
        if self.kind == "BINARY":
            return f"BINARY({self.length or MAX_BINARY})"
        if self.kind in ("TIME", *TIMESTAMP_KINDS):
            return f"{self.kind}({self.scale if self.scale is not None else 9})"
        return {"REAL": "FLOAT"}.get(self.kind, self.kind)


NUMBER_38_0 = SfType("FIXED", 38, 0)


def parse_sql_type(text: str) -> SfType:
    """Parses a Snowflake type name as written in DDL or a cast ("NUMBER(10, 2)", "varchar")."""
    match = re.fullmatch(r"\s*([A-Za-z_][A-Za-z_0-9 ]*?)\s*(?:\(([^)]*)\))?\s*", text)
    if not match:
        raise ValueError(f"unknown type {text!r}")
    name = match.group(1).upper()
    args = [int(a) for a in (match.group(2) or "").replace(" ", "").split(",") if a]
    if name in _INTEGER_SYNONYMS:
        return NUMBER_38_0
    if name in _NUMBER_NAMES:
        precision = args[0] if args else 38
        return SfType("FIXED", precision, args[1] if len(args) > 1 else 0)
    if name in _FLOAT_NAMES:
        return SfType("REAL")
    if name in _TEXT_NAMES:
        default = 1 if name in ("CHAR", "CHARACTER", "NCHAR") else MAX_VARCHAR
        return SfType("TEXT", length=args[0] if args else default)
    if name in _BINARY_NAMES:
        return SfType("BINARY", length=args[0] if args else MAX_BINARY)
    if name in ("BOOLEAN", "BOOL"):
        return SfType("BOOLEAN")
    if name == "DATE":
        return SfType("DATE")
    if name == "TIME":
        return SfType("TIME", scale=args[0] if args else 9)
    if name in _TIMESTAMP_NAMES:
        return SfType(_TIMESTAMP_NAMES[name], scale=args[0] if args else 9)
    if name in SEMI_STRUCTURED:
        return SfType(name)
    raise ValueError(f"Unsupported data type '{name}'.")


# --- Iceberg (storage) --------------------------------------------------------------------------


def to_iceberg(t: SfType) -> it.IcebergType:
    """The Iceberg type a Snowflake column is stored as. Integers fit Iceberg's long when they can,
    so Spark and pyiceberg users see ordinary integer columns."""
    if t.kind == "FIXED":
        if (t.scale == 0 and (t.precision or 38) <= 18) or t == NUMBER_38_0:
            return it.LongType()
        return it.DecimalType(t.precision or 38, t.scale or 0)
    return {
        "REAL": it.DoubleType(),
        "TEXT": it.StringType(),
        "BINARY": it.BinaryType(),
        "BOOLEAN": it.BooleanType(),
        "DATE": it.DateType(),
        "TIME": it.TimeType(),
        "TIMESTAMP_NTZ": it.TimestampType(),
        "TIMESTAMP_LTZ": it.TimestamptzType(),
        "TIMESTAMP_TZ": it.TimestamptzType(),
    }.get(t.kind, it.StringType())  # VARIANT/OBJECT/ARRAY are JSON text


def from_iceberg(t: it.IcebergType) -> SfType:
    """The Snowflake type of an Iceberg column written by another engine (no declared type)."""
    if isinstance(t, it.IntegerType | it.LongType):
        return NUMBER_38_0
    if isinstance(t, it.DecimalType):
        return SfType("FIXED", t.precision, t.scale)
    if isinstance(t, it.FloatType | it.DoubleType):
        return SfType("REAL")
    if isinstance(t, it.BinaryType | it.FixedType | it.UUIDType):
        return SfType("BINARY", length=MAX_BINARY)
    if isinstance(t, it.BooleanType):
        return SfType("BOOLEAN")
    if isinstance(t, it.DateType):
        return SfType("DATE")
    if isinstance(t, it.TimeType):
        return SfType("TIME", scale=6)
    if isinstance(t, it.TimestamptzType):
        return SfType("TIMESTAMP_LTZ", scale=6)
    if isinstance(t, it.TimestampType):
        return SfType("TIMESTAMP_NTZ", scale=6)
    if isinstance(t, it.ListType):
        return SfType("ARRAY")
    if isinstance(t, it.StructType | it.MapType):
        return SfType("OBJECT")
    return SfType("TEXT", length=MAX_VARCHAR)


# --- Arrow (engine) -----------------------------------------------------------------------------


def to_arrow(t: SfType) -> pa.DataType:
    """The Arrow type the engine uses for values of a Snowflake type."""
    if t.kind == "FIXED":
        if isinstance(to_iceberg(t), it.LongType):
            return pa.int64()
        return pa.decimal128(t.precision or 38, t.scale or 0)
    return {
        "REAL": pa.float64(),
        "BINARY": pa.binary(),
        "BOOLEAN": pa.bool_(),
        "DATE": pa.date32(),
        "TIME": pa.time64("us"),
        "TIMESTAMP_NTZ": pa.timestamp("us"),
        "TIMESTAMP_LTZ": pa.timestamp("us", tz="UTC"),
        "TIMESTAMP_TZ": pa.timestamp("us", tz="UTC"),
    }.get(t.kind, pa.string())


def arrow_field(name: str, t: SfType, nullable: bool = True) -> pa.Field:
    """An Arrow field of a Snowflake type, tagged so the engine and the encoder know the type."""
    return pa.field(name, to_arrow(t), nullable=nullable, metadata={SFTYPE_KEY: t.sql.encode()})


def from_arrow_field(field: pa.Field) -> SfType:
    """The Snowflake type of an engine result column: its tag if it has one, else its Arrow type."""
    tag = (field.metadata or {}).get(SFTYPE_KEY)
    if tag:
        declared = parse_sql_type(tag.decode())
        if _compatible(declared, field.type):
            return declared
    return from_arrow_type(field.type)


def from_arrow_type(t: pa.DataType) -> SfType:
    if pa.types.is_integer(t):
        return NUMBER_38_0
    if pa.types.is_decimal(t):
        return SfType("FIXED", min(t.precision, 38), t.scale)
    if pa.types.is_floating(t):
        return SfType("REAL")
    if pa.types.is_boolean(t):
        return SfType("BOOLEAN")
    if pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_binary_view(t):
        return SfType("BINARY", length=MAX_BINARY)
    if pa.types.is_fixed_size_binary(t):
        return SfType("BINARY", length=t.byte_width)
    if pa.types.is_date(t):
        return SfType("DATE")
    if pa.types.is_time(t):
        return SfType("TIME", scale=_unit_scale(t.unit))
    if pa.types.is_timestamp(t):
        # A zone other than UTC is a TIMESTAMP_TZ shown in that zone (CONVERT_TIMEZONE's result).
        kind = "TIMESTAMP_NTZ" if not t.tz else "TIMESTAMP_LTZ" if t.tz == "UTC" else "TIMESTAMP_TZ"
        return SfType(kind, scale=_unit_scale(t.unit))
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return SfType("ARRAY")
    if pa.types.is_struct(t) or pa.types.is_map(t):
        return SfType("OBJECT")
    if pa.types.is_null(t):
        return SfType("TEXT", length=MAX_VARCHAR)
    return SfType("TEXT", length=MAX_VARCHAR)


def _compatible(declared: SfType, physical: pa.DataType) -> bool:
    """Whether a tag still describes the column (an expression over a tagged column may not: a
    cast keeps its input's tag, so NUMBER(5,1) cast to an integer still says scale 1)."""
    if declared.kind == "FIXED" and (pa.types.is_integer(physical) or pa.types.is_decimal(physical)):
        return declared.scale == (physical.scale if pa.types.is_decimal(physical) else 0)
    return from_arrow_type(physical).kind == declared.kind or (
        declared.kind in (*SEMI_STRUCTURED, "TEXT", "TIMESTAMP_TZ", "TIMESTAMP_LTZ")
        and from_arrow_type(physical).kind in ("TEXT", "TIMESTAMP_LTZ")
        and (declared.kind in ("TIMESTAMP_TZ", "TIMESTAMP_LTZ")) == pa.types.is_timestamp(physical)
    )


def _unit_scale(unit: str) -> int:
    return {"s": 0, "ms": 3, "us": 6, "ns": 9}[unit]
