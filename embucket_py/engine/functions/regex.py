"""REGEXP_SUBSTR_ALL: every match of a pattern as an ARRAY (JSON text), with pyarrow's RE2 kernels.

The other regex functions are DataFusion built-ins; see `embucket_py.sql.transforms.functions.regex`.
https://docs.snowflake.com/en/sql-reference/functions/regexp_substr_all
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from datafusion import SessionContext, udf

from embucket_py.engine.functions.strings import ARRAY_FIELD, json_array, per_value, plain

# Private-use characters bracket each match, so one global replace marks all of them at once.
_OPEN, _CLOSE = "\ue000", "\ue001"


def _all_matches(values: pa.Array, pattern: str, occurrence: int, group: int) -> pa.ListArray:
    marked = pc.replace_substring_regex(values, pattern, f"{_OPEN}\\{group}{_CLOSE}")
    pieces = pc.split_pattern(marked, _OPEN)
    # Piece 0 is the text before the first match; each later piece is "match<CLOSE>text after".
    matches = pc.struct_field(pc.extract_regex(pieces.flatten(), f"^(?P<m>[^{_CLOSE}]*){_CLOSE}"), [0])
    offsets = np.asarray(pieces.offsets)
    counts = np.diff(offsets)
    skip = occurrence  # the leading piece plus occurrence - 1 matches
    parents = pc.list_parent_indices(pieces).to_numpy(zero_copy_only=False)
    within = np.arange(len(parents)) - (offsets[parents] - offsets[0])
    keep = np.flatnonzero(within >= skip)
    new_counts = np.maximum(counts - skip, 0)
    new_offsets = np.concatenate([[0], np.cumsum(new_counts)]).astype(np.int32)
    items = matches.take(pa.array(keep.astype(np.int64), pa.int64()))
    return pa.ListArray.from_arrays(pa.array(new_offsets), items, mask=pieces.is_null())


def _regexp_substr_all(
    values: pa.Array, patterns: pa.Array, occurrence: pa.Array, group: pa.Array
) -> pa.Array:
    values, patterns = plain(values), plain(patterns)
    occ = int(occurrence[0].as_py() or 1) if len(occurrence) else 1
    grp = int(group[0].as_py() or 0) if len(group) else 0

    def apply(rows: np.ndarray, pattern: object) -> pa.Array:
        return json_array(_all_matches(values.take(pa.array(rows)), str(pattern), occ, grp))

    return per_value(patterns, len(values), apply).cast(pa.string())


_UDFS = [
    udf(
        _regexp_substr_all,
        [
            pa.field("s", pa.string()),
            pa.field("p", pa.string()),
            pa.field("o", pa.int64()),
            pa.field("g", pa.int64()),
        ],
        ARRAY_FIELD,
        "immutable",
        name="sf_regexp_substr_all",
    )
]


def register(ctx: SessionContext) -> None:
    for function in _UDFS:
        ctx.register_udf(function)
