"""Semi-structured functions over JSON-text values: conversion, access, predicates, objects.

The representation is described in `variant_values`. Every UDF here works on whole arrays: it
reads the argument column once, does the unavoidable per-value JSON work in one pass, and builds
one Arrow array. Arguments of any SQL type arrive coerced to Utf8 together with `arrow_typeof` of
the original expression (the SQL rewrite adds it), which tells `1` from `'1'`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
from datafusion import SessionContext, udf

from embucket_py import xml_values
from embucket_py.engine.functions.variant_values import (
    INEXACT_JSON,
    VARIANT_FIELDS,
    dumps,
    is_json,
    loads,
    strict,
    texts,
    type_name,
)
from embucket_py.errors import ExecutionError, InvalidJson

# A SQL NULL slot, as opposed to a JSON null (None) inside a value.
MISSING: Any = type("Missing", (), {"__repr__": lambda self: "MISSING"})()

UTF8 = pa.string()
LIST = pa.list_(pa.string())


def make_udf(
    name: str, fn: Callable[..., pa.Array], inputs: list[pa.DataType], ret: pa.Field | pa.DataType
) -> Any:
    field = ret if isinstance(ret, pa.Field) else pa.field("r", ret)
    return udf(fn, [pa.field(f"a{i}", t) for i, t in enumerate(inputs)], field, "immutable", name=name)


# --- argument decoding -------------------------------------------------------------------------


def parsed(array: pa.Array) -> list[Any]:
    """A VARIANT argument as Python values (MISSING for SQL NULL). Batches do not always carry the
    VARIANT tag at run time, so any text that is JSON is read as JSON; other text (a VARCHAR that
    Snowflake casts to VARIANT implicitly) is a string value."""
    out: list[Any] = []
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    values = texts(array)
    # Which texts orjson may read inexactly, told for the whole array at once (see `strict`).
    plain = array.storage if isinstance(array.type, pa.ExtensionType) else array
    inexact = pc.match_substring_regex(plain.cast(UTF8), INEXACT_JSON).to_pylist()
    for text, may_be_inexact in zip(values, inexact, strict=True):
        if text is None:
            out.append(MISSING)
            continue
        try:
            out.append(strict(text, may_be_inexact))
        except ValueError:
            try:
                out.append(loads(text) if text[:1] in ("{", "[") else text)
            except ValueError:
                out.append(text)
    return out


def _scalar_of(text: str, arrow_type: str) -> Any:
    if arrow_type.startswith(("Int", "UInt")):
        return int(text)
    if arrow_type.startswith("Decimal"):
        return Decimal(text)
    if arrow_type.startswith("Float"):
        return float(text)
    if arrow_type == "Boolean":
        return text == "true"
    if arrow_type.startswith("Timestamp"):
        return text.replace("T", " ")
    if arrow_type.startswith(("List", "LargeList", "FixedSizeList", "Struct", "Map")):
        try:
            return loads(text)
        except ValueError:
            return text
    return text


def values_of(array: pa.Array, types: pa.Array) -> list[Any]:
    """An argument of any SQL type (coerced to Utf8) as variant values; `types` holds the
    `<arrow type>|<Snowflake tag>` of the original expression (see the SQL rewrite)."""
    kinds = texts(types)
    first = kinds[0] if kinds else None
    if is_json(array) or (first or "").split("|")[-1] in ("VARIANT", "OBJECT", "ARRAY"):
        return parsed(array)
    out = []
    for t, k in zip(texts(array), kinds, strict=True):
        kind = (k or "Utf8").split("|")[0]
        out.append(MISSING if t is None or kind == "Null" else _scalar_of(t, kind))
    return out


def variant_out(values: list[Any]) -> pa.Array:
    return pa.array([None if v is MISSING else dumps(v) for v in values], UTF8)


def text_of(value: Any) -> str | None:
    """A variant as VARCHAR: strings unquoted, JSON null as NULL, everything else as JSON text."""
    if value is MISSING or value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, float) and math.isfinite(value):
        return repr(value)  # a DOUBLE as text, as FLOAT -> VARCHAR gives it (not the exponent form)
    if xml_values.is_element(value):
        return xml_values.write(value)  # XML as VARCHAR is its compact text
    return dumps(value)


# --- parse / convert ---------------------------------------------------------------------------


def _parse_json(array: pa.Array) -> pa.Array:
    out = []
    for text in texts(array):
        if text is None or (not text.strip()):
            out.append(None)
            continue
        try:
            out.append(dumps(loads(text)))
        except ValueError as e:
            raise InvalidJson(f"Error parsing JSON: {e}") from None
    return pa.array(out, UTF8)


def _try_parse_json(array: pa.Array) -> pa.Array:
    out = []
    for text in texts(array):
        try:
            out.append(None if text is None else dumps(loads(text)))
        except ValueError:
            out.append(None)
    return pa.array(out, UTF8)


def _check_json(array: pa.Array) -> pa.Array:
    out = []
    for text in texts(array):
        if text is None or not text.strip():
            out.append(None)
            continue
        try:
            loads(text)
            out.append(None)
        except ValueError as e:
            out.append(str(e))
    return pa.array(out, UTF8)


_WHOLE_DECIMAL = re.compile(r"Decimal(?:128|256)\(\d+, 0\)")


_TEXT_TYPES = ("Utf8", "Utf8View", "LargeUtf8")
# What json.dumps escapes in a string (ensure_ascii off): quotes, backslashes, control characters.
_ESCAPED = r'["\\\x00-\x1f]'


def _to_variant(array: pa.Array, types: pa.Array) -> pa.Array:
    kind = next(iter(texts(types)), None) or ""
    if kind.startswith(("Int", "UInt")) or _WHOLE_DECIMAL.match(kind):
        return array.cast(UTF8)  # an integer's JSON is the text it arrives as
    base, _, tag = kind.partition("|")
    if base in _TEXT_TYPES and tag not in ("VARIANT", "OBJECT", "ARRAY") and not is_json(array):
        return _quoted(array.cast(UTF8))
    return variant_out(values_of(array, types))


def _quoted(array: pa.Array) -> pa.Array:
    """VARCHAR values as JSON strings: quoted in one pass over the array, and only those with
    characters to escape written one by one (~50x faster than writing each)."""
    quoted = pc.binary_join_element_wise('"', array, '"', "")
    escaped = pc.match_substring_regex(array, _ESCAPED)
    if not pc.any(escaped).as_py():
        return quoted
    written = pa.array([None if v is None else dumps(v) for v in array.to_pylist()], UTF8)
    return pc.if_else(escaped, written, quoted)


def _to_json(array: pa.Array, types: pa.Array) -> pa.Array:
    return pa.array([None if v is MISSING else dumps(v) for v in values_of(array, types)], UTF8)


def _to_array(array: pa.Array, types: pa.Array) -> pa.Array:
    values = values_of(array, types)
    return variant_out([v if v is MISSING or isinstance(v, list) else [v] for v in values])


def _to_object(array: pa.Array, types: pa.Array) -> pa.Array:
    out = []
    for v in values_of(array, types):
        if v is not MISSING and v is not None and not isinstance(v, dict):
            raise ValueError(f"Invalid object value: TO_OBJECT needs an OBJECT, got {type_name(v)}")
        out.append(MISSING if v is None else v)
    return variant_out(out)


def _text(array: pa.Array) -> pa.Array:
    return pa.array([_scalar_text(t) for t in texts(array)], UTF8)


_INTEGER = re.compile(r"(?:0|-?[1-9][0-9]*)\Z")  # as JSON writes integers (not -0 or 007)


def _scalar_text(text: str | None) -> str | None:
    """`text_of` of a VARIANT's JSON text; integers, plain strings and booleans read without
    parsing (their text is known from the JSON: ~10x faster), the rest parsed."""
    if text is None:
        return None
    if _INTEGER.match(text) or text in ("true", "false"):
        return text
    inner = text[1:-1]
    if (
        len(text) > 1
        and text[0] == '"' == text[-1]
        and '"' not in inner
        and "\\" not in inner
        and inner.isprintable()
    ):
        return inner
    return text_of(parsed(pa.array([text], UTF8))[0])


_AS_KINDS: dict[str, Callable[[Any], bool]] = {
    "VARCHAR": lambda v: isinstance(v, str),
    "INTEGER": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "DECIMAL": lambda v: isinstance(v, int | Decimal) and not isinstance(v, bool),
    "DOUBLE": lambda v: isinstance(v, int | float | Decimal) and not isinstance(v, bool),
    "BOOLEAN": lambda v: isinstance(v, bool),
    "ARRAY": lambda v: isinstance(v, list),
    "OBJECT": lambda v: isinstance(v, dict),
    "STRING_LIKE": lambda v: isinstance(v, str),
}


def _as(array: pa.Array, kinds: pa.Array) -> pa.Array:
    """AS_<kind>: the value as text when it has that type, else NULL (the SQL casts the text)."""
    kind = (texts(kinds) or ["VARCHAR"])[0] or "VARCHAR"
    check = _AS_KINDS[kind]
    return pa.array([text_of(v) if v is not MISSING and check(v) else None for v in parsed(array)], UTF8)


def _as_json(kind: str) -> Callable[[pa.Array], pa.Array]:
    check = _AS_KINDS[kind]

    def run(array: pa.Array) -> pa.Array:
        return variant_out([v if v is not MISSING and check(v) else MISSING for v in parsed(array)])

    return run


_COLUMN_FORMATS = {
    "TABLE": '"{name}" {type}',
    "EXTERNAL_TABLE": '"{name}" {type} AS ({expression})',
    "VIEW": '"{name}" ',
}


def _column_description(columns: pa.Array, kinds: pa.Array) -> pa.Array:
    """GENERATE_COLUMN_DESCRIPTION: INFER_SCHEMA's rows (objects with COLUMN_NAME, TYPE and
    EXPRESSION) as the column list of a CREATE TABLE | EXTERNAL TABLE | VIEW, one per line.
    https://docs.snowflake.com/en/sql-reference/functions/generate_column_description"""
    out: list[str | None] = []
    for value, kind in zip(parsed(columns), texts(kinds), strict=True):
        if value is MISSING or kind is None:
            out.append(None)
            continue
        line = _COLUMN_FORMATS.get(kind.strip().upper())
        if line is None:
            raise ExecutionError(
                f"Invalid object type '{kind}' for GENERATE_COLUMN_DESCRIPTION: "
                "expected 'table', 'external_table' or 'view'."
            )
        if not isinstance(value, list) or not all(isinstance(c, dict) for c in value):
            raise ExecutionError("GENERATE_COLUMN_DESCRIPTION expects an array of INFER_SCHEMA objects.")
        out.append(
            ",\n".join(
                line.format(
                    name=str(c.get("COLUMN_NAME", "")).replace('"', '""'),
                    type=_text_or_null(c.get("TYPE")),
                    expression=_text_or_null(c.get("EXPRESSION")),
                )
                for c in value
            )
        )
    return pa.array(out, UTF8)


def _text_or_null(value: Any) -> str:
    return "null" if value is None else str(value)


def _typeof(array: pa.Array) -> pa.Array:
    return pa.array([None if v is MISSING else type_name(v) for v in parsed(array)], UTF8)


_IS_KINDS: dict[str, Callable[[Any], bool]] = {
    "ARRAY": lambda v: isinstance(v, list),
    "OBJECT": lambda v: isinstance(v, dict),
    "INTEGER": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "DECIMAL": lambda v: isinstance(v, int | Decimal) and not isinstance(v, bool),
    "DOUBLE": lambda v: isinstance(v, int | float | Decimal) and not isinstance(v, bool),
    "VARCHAR": lambda v: isinstance(v, str),
    "BOOLEAN": lambda v: isinstance(v, bool),
    "NULL_VALUE": lambda v: v is None,
    "BINARY": lambda v: False,
    "DATE": lambda v: False,
    "TIME": lambda v: False,
    "TIMESTAMP": lambda v: False,
}


def _is(array: pa.Array, kinds: pa.Array) -> pa.Array:
    kind = (texts(kinds) or ["ARRAY"])[0] or "ARRAY"
    check = _IS_KINDS[kind]
    return pa.array([None if v is MISSING else check(v) for v in parsed(array)], pa.bool_())


def _tag(array: pa.Array) -> pa.Array:
    """The argument unchanged, typed VARIANT (for values read out of FLATTEN's structs)."""
    return pa.array(texts(array), UTF8)


def _strip_null_value(array: pa.Array) -> pa.Array:
    return variant_out([MISSING if v is None else v for v in parsed(array)])


# --- access ------------------------------------------------------------------------------------


def parse_path(path: str) -> list[str | int]:
    """A Snowflake path (`a.b[0]`, `"Quoted Key".x`, `['k']`) as keys and indexes."""
    steps: list[str | int] = []
    i = 0
    while i < len(path):
        c = path[i]
        if c == ".":
            i += 1
        elif c == "[":
            j = path.index("]", i)
            inner = path[i + 1 : j].strip()
            if inner[:1] in ("'", '"'):
                steps.append(inner[1:-1])
            else:
                steps.append(int(inner))
            i = j + 1
        elif c == '"':
            j = path.index('"', i + 1)
            steps.append(path[i + 1 : j])
            i = j + 1
        else:
            j = i
            while j < len(path) and path[j] not in ".[":
                j += 1
            steps.append(path[i:j])
            i = j
    return steps


def step(value: Any, key: str | int, ignore_case: bool = False) -> Any:
    if isinstance(key, int) and not isinstance(key, bool):
        if isinstance(value, list) and 0 <= key < len(value):
            return value[key]
        return MISSING
    if isinstance(value, dict):
        if key in value:
            return value[key]
        if ignore_case:
            lowered = key.lower()
            for k, v in value.items():
                if k.lower() == lowered:
                    return v
    return MISSING


def walk(value: Any, steps: list[str | int]) -> Any:
    for s in steps:
        if value is MISSING:
            break
        value = step(value, s)
    return value


def _keys(keys: pa.Array, types: pa.Array) -> list[Any]:
    return [
        None if k is None else (int(k) if (t or "").startswith(("Int", "UInt")) else k)
        for k, t in zip(texts(keys), texts(types), strict=True)
    ]


def _get(array: pa.Array, keys: pa.Array, types: pa.Array) -> pa.Array:
    return variant_out(
        [MISSING if k is None else step(v, k) for v, k in zip(parsed(array), _keys(keys, types), strict=True)]
    )


def _get_ignore_case(array: pa.Array, keys: pa.Array, types: pa.Array) -> pa.Array:
    return variant_out(
        [
            MISSING if k is None else step(v, k, ignore_case=True)
            for v, k in zip(parsed(array), _keys(keys, types), strict=True)
        ]
    )


def _paths(paths: pa.Array) -> list[list[str | int] | None]:
    cache: dict[str, list[str | int]] = {}
    out: list[list[str | int] | None] = []
    for p in texts(paths):
        if p is None:
            out.append(None)
            continue
        if p not in cache:
            cache[p] = parse_path(p)
        out.append(cache[p])
    return out


def _get_path(array: pa.Array, paths: pa.Array) -> pa.Array:
    return variant_out(
        [MISSING if p is None else walk(v, p) for v, p in zip(parsed(array), _paths(paths), strict=True)]
    )


def _json_extract_path_text(array: pa.Array, paths: pa.Array) -> pa.Array:
    out = []
    for text, p in zip(texts(array), _paths(paths), strict=True):
        if text is None or p is None:
            out.append(None)
            continue
        try:
            out.append(text_of(walk(loads(text), p)))
        except ValueError:
            out.append(None)
    return pa.array(out, UTF8)


# --- objects -----------------------------------------------------------------------------------


# JSON scalars exactly as `dumps` writes them: an integer, an exact decimal (no trailing zeros),
# a DOUBLE (`1.500000000000000e+00`), a Boolean or null, a string escaped as json.dumps does.
_CANONICAL_SCALAR = (
    r"^(?:0|-?[1-9][0-9]*|-?(?:0|[1-9][0-9]*)\.[0-9]*[1-9]|-?[0-9]\.[0-9]{15}e[+-][0-9]{2,3}|true|false|null"
    r'|"(?:[^"\\\x00-\x1f]|\\["\\bfnrt]|\\u00[01][0-9a-f])*")$'
)


def _object_of_columns(keys: pa.Array, values: pa.Array, keep: bool) -> pa.Array | None:
    """OBJECT_CONSTRUCT over whole columns: with the same keys in every row (literals, as written)
    the values' JSON texts are joined, in one pass per pair (~5x faster than building each
    object); only values not already written as `dumps` writes them (objects, arrays, stored
    text) are read and written again. None when the keys differ between rows."""
    rows = len(keys)
    if rows == 0 or keys.null_count or values.null_count:
        return None
    width = len(keys[0])
    flat_keys, flat_values = keys.flatten(), values.flatten().cast(UTF8)
    if len(flat_keys) != rows * width or len(flat_values) != rows * width or flat_keys.null_count:
        return None
    names = flat_keys.slice(0, width).to_pylist()
    if len(set(names)) != width:
        return None  # repeated keys: the last one wins, below
    pairs = []
    for name in sorted(names):
        at = pa.array(range(names.index(name), rows * width, width), pa.int64())
        if not pc.all(pc.equal(flat_keys.take(at), name)).as_py():
            return None
        column = flat_values.take(at)
        canonical = pc.match_substring_regex(column.fill_null("null"), _CANONICAL_SCALAR)
        if not pc.all(canonical).as_py():  # objects and arrays (and odd scalars) written anew
            column = pa.array(
                [
                    t if ok or t is None else dumps(loads(t))
                    for t, ok in zip(column.to_pylist(), canonical.to_pylist(), strict=True)
                ],
                UTF8,
            )
        if keep:
            column = column.fill_null("null")
        pairs.append(pc.binary_join_element_wise(f"{dumps(name)}:", column, ""))
    body = pa.nulls(rows, UTF8)
    for pair in pairs:  # pairs of NULL values are left out (pyarrow's "skip" drops all-null rows)
        body = pc.coalesce(pc.binary_join_element_wise(body, pair, ","), body, pair)
    return pc.binary_join_element_wise("{", body.fill_null(""), "}", "")


def _object_construct(keys: pa.Array, values: pa.Array, keep_null: pa.Array) -> pa.Array:
    keep = bool((keep_null.to_pylist() or [False])[0])
    joined = _object_of_columns(keys, values, keep)
    if joined is not None:
        return joined
    out: list[Any] = []
    for ks, vs in zip(keys.to_pylist(), values.to_pylist(), strict=True):
        obj: dict[str, Any] = {}
        for k, v in zip(ks or [], vs or [], strict=True):
            if k is None:
                continue
            if v is None:
                if keep:
                    obj[k] = None
                continue
            obj[k] = loads(v)
        out.append(obj)
    return variant_out(out)


def _object_insert(objs: pa.Array, keys: pa.Array, values: pa.Array, update: pa.Array) -> pa.Array:
    out: list[Any] = []
    for o, k, v, u in zip(parsed(objs), texts(keys), texts(values), update.to_pylist(), strict=True):
        if o is MISSING or k is None:
            out.append(MISSING)
            continue
        if not isinstance(o, dict):
            raise ValueError("Invalid argument: OBJECT_INSERT needs an OBJECT")
        if k in o and not u:
            raise ValueError(f"Duplicate field key '{k}'")
        obj = dict(o)
        if v is not None:  # a SQL NULL value leaves the object unchanged
            obj[k] = loads(v)
        out.append(obj)
    return variant_out(out)


def _object_pick_or_delete(pick: bool) -> Callable[[pa.Array, pa.Array], pa.Array]:
    def run(objs: pa.Array, keys: pa.Array) -> pa.Array:
        out: list[Any] = []
        for o, ks in zip(parsed(objs), keys.to_pylist(), strict=True):
            if not isinstance(o, dict):
                out.append(MISSING)
                continue
            names = set()
            for k in ks or []:
                if k is not None:
                    value = loads(k) if k[:1] == "[" else k
                    names.update(value if isinstance(value, list) else [value])
            out.append({k: v for k, v in o.items() if (k in names) == pick})
        return variant_out(out)

    return run


def _object_keys(array: pa.Array) -> pa.Array:
    return variant_out([sorted(v) if isinstance(v, dict) else MISSING for v in parsed(array)])


def _object_from_pairs(pairs: pa.Array) -> pa.Array:
    """OBJECT_AGG's final step over ARRAY_AGG([key, value-json]) lists."""
    out: list[Any] = []
    for group in pairs.to_pylist():
        obj: dict[str, Any] = {}
        for pair in group or []:
            if pair is None or pair[0] is None or pair[1] is None:
                continue
            obj[pair[0]] = loads(pair[1])
        out.append(obj if group is not None else MISSING)
    return variant_out(out)


V, OBJ, A = VARIANT_FIELDS["VARIANT"], VARIANT_FIELDS["OBJECT"], VARIANT_FIELDS["ARRAY"]

UDFS = [
    make_udf("sf_parse_json", _parse_json, [UTF8], V),
    make_udf("sf_try_parse_json", _try_parse_json, [UTF8], V),
    make_udf("sf_check_json", _check_json, [UTF8], UTF8),
    make_udf("sf_to_variant", _to_variant, [UTF8, UTF8], V),
    make_udf("sf_to_json", _to_json, [UTF8, UTF8], UTF8),
    make_udf("sf_to_array", _to_array, [UTF8, UTF8], A),
    make_udf("sf_to_object", _to_object, [UTF8, UTF8], OBJ),
    make_udf("sf_variant_text", _text, [UTF8], UTF8),
    make_udf("sf_as", _as, [UTF8, UTF8], UTF8),
    make_udf("sf_as_array", _as_json("ARRAY"), [UTF8], A),
    make_udf("sf_as_object", _as_json("OBJECT"), [UTF8], OBJ),
    make_udf("sf_typeof", _typeof, [UTF8], UTF8),
    make_udf("sf_generate_column_description", _column_description, [UTF8, UTF8], UTF8),
    make_udf("sf_is", _is, [UTF8, UTF8], pa.bool_()),
    make_udf("sf_variant_tag", _tag, [UTF8], V),
    make_udf("sf_strip_null_value", _strip_null_value, [UTF8], V),
    make_udf("sf_get", _get, [UTF8, UTF8, UTF8], V),
    make_udf("sf_get_ignore_case", _get_ignore_case, [UTF8, UTF8, UTF8], V),
    make_udf("sf_get_path", _get_path, [UTF8, UTF8], V),
    make_udf("sf_json_extract_path_text", _json_extract_path_text, [UTF8, UTF8], UTF8),
    make_udf("sf_object_construct", _object_construct, [LIST, LIST, pa.bool_()], OBJ),
    make_udf("sf_object_insert", _object_insert, [UTF8, UTF8, UTF8, pa.bool_()], OBJ),
    make_udf("sf_object_pick", _object_pick_or_delete(True), [UTF8, LIST], OBJ),
    make_udf("sf_object_delete", _object_pick_or_delete(False), [UTF8, LIST], OBJ),
    make_udf("sf_object_keys", _object_keys, [UTF8], A),
    make_udf("sf_object_from_pairs", _object_from_pairs, [pa.list_(LIST)], OBJ),
]


def register(ctx: SessionContext) -> None:
    for u in UDFS:
        ctx.register_udf(u)
