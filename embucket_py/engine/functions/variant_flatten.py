"""FLATTEN as a UDF: each input value -> a list of (SEQ, KEY, PATH, INDEX, VALUE, THIS) structs.

The SQL rewrite (`sql/transforms/functions/flatten.py`) unnests that list next to the row's other
columns, so the lateral join is an ordinary DataFusion plan.
https://docs.snowflake.com/en/sql-reference/functions/flatten
"""

from __future__ import annotations

import re
from typing import Any

import pyarrow as pa
from datafusion import SessionContext

from embucket_py.engine.functions.variant import MISSING, UTF8, make_udf, parse_path, parsed, walk
from embucket_py.engine.functions.variant_values import VARIANT_FIELDS, dumps, texts

_VALUE = VARIANT_FIELDS["VARIANT"]
ROW = pa.struct(
    [
        pa.field("seq", pa.int64()),
        pa.field("key", UTF8),
        pa.field("path", UTF8),
        pa.field("index", pa.int64()),
        _VALUE.with_name("value"),
        _VALUE.with_name("this"),
    ]
)
ROWS = pa.list_(pa.field("item", ROW))
_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_$]*")


def _key_path(prefix: str, key: str) -> str:
    if _PLAIN_KEY.fullmatch(key):
        return f"{prefix}.{key}" if prefix else key
    return f"{prefix}['{key}']"


def _expand(
    seq: int, value: Any, prefix: str, recursive: bool, mode: str, rows: list[dict[str, Any]]
) -> None:
    this = dumps(value)
    if isinstance(value, dict) and mode != "ARRAY":
        items: list[tuple[str | None, int | None, Any, str]] = [
            (k, None, v, _key_path(prefix, k)) for k, v in value.items()
        ]
    elif isinstance(value, list) and mode != "OBJECT":
        items = [(None, i, v, f"{prefix}[{i}]") for i, v in enumerate(value)]
    else:
        return
    for key, index, element, path in items:
        rows.append(
            {"seq": seq, "key": key, "path": path, "index": index, "value": dumps(element), "this": this}
        )
        if recursive:
            _expand(seq, element, path, recursive, mode, rows)


def _flatten(
    inputs: pa.Array, paths: pa.Array, outers: pa.Array, recursives: pa.Array, modes: pa.Array
) -> pa.Array:
    path_text = (texts(paths) or [""])[0] or ""
    steps = parse_path(path_text) if path_text else []
    outer = bool((outers.to_pylist() or [False])[0])
    recursive = bool((recursives.to_pylist() or [False])[0])
    mode = ((texts(modes) or ["BOTH"])[0] or "BOTH").upper()
    if mode not in ("BOTH", "OBJECT", "ARRAY"):
        raise ValueError(f"FLATTEN: invalid mode '{mode}'")
    out: list[list[dict[str, Any]]] = []
    # SEQ numbers the input rows of this call (Snowflake: unique per record, not gap-free).
    for seq, value in enumerate(parsed(inputs), start=1):
        target = walk(value, steps) if value is not MISSING else MISSING
        rows: list[dict[str, Any]] = []
        if target is not MISSING and target is not None:
            _expand(seq, target, path_text, recursive, mode, rows)
        if not rows and outer:
            this = None if target is MISSING else dumps(target)
            rows.append(
                {"seq": seq, "key": None, "path": path_text, "index": None, "value": None, "this": this}
            )
        out.append(rows)
    return pa.array(out, ROWS)


UDFS = [
    make_udf("sf_flatten", _flatten, [UTF8, UTF8, pa.bool_(), pa.bool_(), UTF8], pa.field("r", ROWS)),
]


def register(ctx: SessionContext) -> None:
    for u in UDFS:
        ctx.register_udf(u)
