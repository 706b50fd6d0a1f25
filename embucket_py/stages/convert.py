"""Raw staged fields -> a table's column types, batch by batch, with the rows that fail marked.

Conversion is vectorized on DataFusion (TRY_CAST and friends over whole batches): a value that
is present in the file but NULL after conversion is a conversion error, as are strings longer
than a VARCHAR(n) and NULLs in NOT NULL columns. Explicit DATE/TIME/TIMESTAMP formats go through
pyarrow's strptime, which marks failures as NULL too.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.compute as pc
from datafusion import Expr, SessionContext, col, lit
from datafusion import functions as f

from embucket_py.errors import not_recognized
from embucket_py.types import SFTYPE_KEY, SfType, to_arrow

_STRPTIME = [
    ("YYYY", "%Y"),
    ("YY", "%y"),
    ("MM", "%m"),
    ("MON", "%b"),
    ("DD", "%d"),
    ("HH24", "%H"),
    ("HH", "%H"),
    ("MI", "%M"),
    ("SS", "%S"),
    ("FF", "%f"),
]


@dataclass(frozen=True)
class Target:
    """One column being loaded: Snowflake name, stored (Iceberg) name, type, nullability."""

    name: str
    stored: str
    type: SfType
    nullable: bool = True
    zone: str = "UTC"  # the session's time zone: TIMESTAMP_LTZ/TZ text without an offset is read there
    truncate: bool = False  # text longer than a VARCHAR(n) is cut to n characters (TRUNCATECOLUMNS)


@dataclass(frozen=True)
class RowError:
    """The first failing row of a batch, in Snowflake's terms."""

    line: int
    message: str
    column: int  # 1-based position of the target column
    character: int


@dataclass
class Converted:
    good: pa.RecordBatch  # rows without errors, columns named by the targets' stored names
    errors: int
    first: RowError | None


def _strptime_format(fmt: str) -> str:
    out = fmt.upper()
    for snow, py in _STRPTIME:
        out = out.replace(snow, py)
    return out


def _value(
    source: Expr, raw_type: pa.DataType, target: SfType, variant: bool = False, zone: str = "UTC"
) -> Expr:
    """The expression converting a raw column to a target type (NULL where it cannot)."""
    arrow = to_arrow(target)
    textual = (
        pa.types.is_string(raw_type) or pa.types.is_large_string(raw_type) or raw_type == pa.string_view()
    )
    if variant and target.kind not in ("VARIANT", "OBJECT", "ARRAY"):
        # A VARIANT string is JSON text ("x"): its value is the text inside the quotes.
        source = f.regexp_replace(source, lit('^"(.*)"$'), lit("${1}"))
    if target.kind in ("TEXT", "VARIANT", "OBJECT", "ARRAY"):
        return source if textual else source.try_cast(pa.string())
    if target.kind == "FIXED" and textual:
        # A string-to-decimal cast rounds ('2.5' -> 3, as Snowflake does) and skips spaces;
        # integer columns go through DECIMAL(38, 0) so '2.5' rounds instead of failing.
        exact = pa.decimal128(target.precision or 38, target.scale or 0)
        text = f.nullif(source, lit(""))  # '' is no number (the cast would read it as 0)
        target_type = exact if pa.types.is_decimal(arrow) else pa.decimal128(38, 0)
        decimal = text.try_cast(target_type)
        # '1.5e2' is a number too: read as a FLOAT first, only where the decimal cast failed.
        exponent = text.try_cast(pa.float64()).try_cast(target_type)
        decimal = f.when(decimal.is_null() & text.is_not_null(), exponent).otherwise(decimal)
        return decimal if pa.types.is_decimal(arrow) else decimal.try_cast(arrow)
    if target.kind == "BINARY" and textual:
        # BINARY_FORMAT = HEX (the only one taken): two hex digits a byte; other text is no value.
        text = f.btrim(source)
        hex_text = f.regexp_like(text, lit("^([0-9A-Fa-f]{2})*$"))
        return f.when(hex_text, f.decode(text, lit("hex"))).otherwise(lit(None).cast(pa.binary()))
    if target.kind == "BOOLEAN" and textual:
        lowered = f.lower(f.btrim(source))
        truthy = f.in_list(lowered, [lit(v) for v in ("true", "t", "yes", "y", "on", "1")])
        falsy = f.in_list(lowered, [lit(v) for v in ("false", "f", "no", "n", "off", "0")])
        return f.when(truthy, lit(True)).when(falsy, lit(False)).otherwise(lit(None).cast(pa.bool_()))
    if textual and target.kind in ("TIMESTAMP_LTZ", "TIMESTAMP_TZ") and zone != "UTC":
        # A wall clock without an offset is in the session's time zone, as Snowflake reads it.
        text = f.btrim(source)
        wall = text.try_cast(pa.timestamp("us")).cast(pa.timestamp("us", tz=zone)).cast(arrow)
        return f.when(f.regexp_like(text, lit(_OFFSET)), text.try_cast(arrow)).otherwise(wall)
    if textual:
        return f.btrim(source).try_cast(arrow)
    return source.try_cast(arrow)


# Text that names its own offset: Z, +hh, +hhmm, +hh:mm at the end.
_OFFSET = r"(Z|[+-]\d{2}(:?\d{2})?)$"


def preformat(
    batch: pa.RecordBatch, sources: list[str | None], targets: list[Target], formats: dict[str, str]
) -> pa.RecordBatch:
    """Applies explicit DATE/TIME/TIMESTAMP formats in pyarrow (failures become NULL)."""
    arrays, names = list(batch.columns), list(batch.schema.names)
    fields = list(batch.schema)
    changed = False
    for source, target in zip(sources, targets, strict=True):
        kind = "TIMESTAMP" if target.type.kind.startswith("TIMESTAMP") else target.type.kind
        fmt = formats.get(kind)
        if source is None or not fmt or fmt.upper() == "AUTO" or kind not in ("DATE", "TIMESTAMP", "TIME"):
            continue
        i = names.index(source)
        if not pa.types.is_string(arrays[i].type):
            continue
        parsed = pc.strptime(arrays[i], format=_strptime_format(fmt), unit="us", error_is_null=True)
        arrays[i] = parsed.cast(pa.date32()) if kind == "DATE" else parsed
        fields[i] = pa.field(names[i], arrays[i].type)
        changed = True
    # Unchanged columns keep their fields (a VARIANT tag decides how text converts).
    return pa.RecordBatch.from_arrays(arrays, schema=pa.schema(fields)) if changed else batch


def nested_as_json(batch: pa.RecordBatch) -> pa.RecordBatch:
    """Objects and arrays a file's reader typed (JSON or Parquet read by column name) as JSON text,
    tagged VARIANT: no cast turns a struct or list into text, and a VARIANT holds them as JSON."""
    if not any(pa.types.is_nested(t) for t in batch.schema.types):
        return batch
    fields, arrays = [], []
    for field, array in zip(batch.schema, batch.columns, strict=True):
        if pa.types.is_nested(field.type):
            values = array.to_pylist()
            if pa.types.is_map(field.type):  # key-value pairs: an OBJECT
                values = [None if v is None else dict(v) for v in values]
            texts = [None if v is None else json.dumps(v, separators=(",", ":"), default=str) for v in values]
            field, array = (
                pa.field(field.name, pa.string(), metadata={SFTYPE_KEY: b"VARIANT"}),
                pa.array(texts),
            )
        fields.append(field)
        arrays.append(array)
    return pa.RecordBatch.from_arrays(arrays, schema=pa.schema(fields))


def convert(
    ctx: SessionContext,
    batch: pa.RecordBatch,
    sources: list[str | None],
    targets: list[Target],
    lines: pa.Array,
) -> Converted:
    """Converts one batch; `sources[i]` names the raw column for `targets[i]` (None: NULL)."""
    # A fresh context per batch: from_arrow registers the batch in the context it is given, so a
    # long-lived one would keep every batch of the load alive.
    del ctx
    batch = nested_as_json(batch)
    frame = SessionContext().from_arrow(batch)
    values, flags = [], []
    for i, (source, target) in enumerate(zip(sources, targets, strict=True)):
        arrow = to_arrow(target.type)
        if source is None:
            value = lit(None).cast(arrow)
            flag = lit(not target.nullable)
        else:
            raw = col(f'"{source}"')
            field = batch.schema.field(source)
            tag = (field.metadata or {}).get(SFTYPE_KEY, b"")
            semi = tag.startswith((b"VARIANT", b"OBJECT", b"ARRAY"))
            value = _value(raw, field.type, target.type, semi, target.zone)
            flag = raw.is_not_null() & value.is_null()
            if target.type.kind == "TEXT" and target.type.length and target.truncate:
                value = f.left(value, lit(target.type.length))
            elif target.type.kind == "TEXT" and target.type.length:
                flag = flag | (f.character_length(value) > lit(target.type.length))
            if not target.nullable:
                flag = flag | value.is_null()
        values.append(value.alias(target.stored))
        flags.append(f.coalesce(flag, lit(False)).alias(f"__e{i}"))
    out = frame.select(*values, *flags).to_arrow_table().combine_chunks()
    data = out.select(list(range(len(targets))))
    flag_columns = [out.column(len(targets) + i) for i in range(len(targets))]
    if not flag_columns:
        return Converted(_batch(data), 0, None)
    bad = flag_columns[0]
    for flag in flag_columns[1:]:
        bad = pc.or_(bad, flag)
    errors = pc.sum(pc.cast(bad, pa.int64())).as_py() or 0
    if not errors:
        return Converted(_batch(data), 0, None)
    row = pc.index(bad, True).as_py()
    column = next(i for i, flag in enumerate(flag_columns) if flag[row].as_py())
    first = _row_error(batch, sources, targets, row, column, int(lines[row].as_py()))
    return Converted(_batch(data.filter(pc.invert(bad))), errors, first)


def _row_error(
    batch: pa.RecordBatch, sources: list[str | None], targets: list[Target], row: int, column: int, line: int
) -> RowError:
    target, source = targets[column], sources[column]
    raw = batch.column(source)[row].as_py() if source is not None else None
    if raw is None:
        message = "NULL result in a non-nullable column"
    elif target.type.kind == "TEXT":
        message = f"User character length limit ({target.type.length}) exceeded by string '{raw}'"
    else:
        message = not_recognized(target.type.kind, raw).message
    # Where the field starts in its line: the lengths of the fields before it, plus delimiters.
    character = 1
    for i in range(column):
        previous = sources[i]
        value = batch.column(previous)[row].as_py() if previous is not None else None
        character += len(str(value)) + 1 if value is not None else 1
    return RowError(line, message, column + 1, character)


def _batch(table: pa.Table) -> pa.RecordBatch:
    batches = table.to_batches()
    if len(batches) == 1:
        return batches[0]
    return (
        pa.RecordBatch.from_arrays(
            [pa.array([], type=field.type) for field in table.schema], schema=table.schema
        )
        if not batches
        else table.combine_chunks().to_batches()[0]
    )
