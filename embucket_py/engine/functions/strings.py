"""String & binary functions DataFusion lacks (SPLIT, STRTOK, INITCAP with delimiters, SOUNDEX,
JAROWINKLER_SIMILARITY, PARSE_URL, UUID_STRING v5), plus the Arrow helpers the regex UDFs share.

ARRAY and OBJECT results are JSON text in a Utf8 column tagged with the Snowflake type
(`embucket_py.types.SFTYPE_KEY`), the representation the semi-structured functions read.
https://docs.snowflake.com/en/sql-reference/functions-string
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from urllib.parse import parse_qsl, urlsplit

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from datafusion import SessionContext, udf

from embucket_py.errors import UrlParseError, string_too_long
from embucket_py.types import SFTYPE_KEY

ARRAY_FIELD = pa.field("array", pa.string(), metadata={SFTYPE_KEY: b"ARRAY"})
OBJECT_FIELD = pa.field("object", pa.string(), metadata={SFTYPE_KEY: b"OBJECT"})

# JSON escapes for the characters a JSON string may not hold raw; backslash must go first.
_JSON_ESCAPES = [("\\", "\\\\"), ('"', '\\"'), ("\n", "\\n"), ("\r", "\\r"), ("\t", "\\t")]
_CONTROL = "[\x00-\x08\x0b\x0c\x0e-\x1f]"


def plain(values: pa.Array | pa.ChunkedArray) -> pa.Array:
    """One contiguous array with view types made plain (pyarrow kernels lack view support)."""
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    if values.type == pa.string_view():
        return values.cast(pa.large_string()).cast(pa.string())
    if values.type == pa.binary_view():
        return values.cast(pa.large_binary()).cast(pa.binary())
    return values


def json_strings(values: pa.Array) -> pa.Array:
    """Each string as a JSON string literal (quoted, escaped); nulls stay null."""
    for raw, escaped in _JSON_ESCAPES:
        values = pc.replace_substring(values, raw, escaped)
    if pc.any(pc.match_substring_regex(values, _CONTROL)).as_py():
        # Rare: other control characters need \u escapes, which no kernel writes.
        values = pa.array([_u_escape(v) for v in values.to_pylist()], pa.string())
    return pc.binary_join_element_wise('"', values, '"', "")


def _u_escape(value: str | None) -> str | None:
    if value is None:
        return None
    return "".join(f"\\u{ord(c):04x}" if ord(c) < 0x20 and c not in "\n\r\t" else c for c in value)


def json_array(lists: pa.ListArray) -> pa.Array:
    """A list<string> array as JSON array text; null lists stay null."""
    items = json_strings(lists.flatten())
    joined = pc.binary_join(pa.ListArray.from_arrays(lists.offsets, items), ",")
    return pc.if_else(lists.is_null(), None, pc.binary_join_element_wise("[", joined, "]", ""))


def drop_empty(lists: pa.ListArray) -> pa.ListArray:
    """The lists without their empty-string items (null lists stay null)."""
    flat = lists.flatten()
    keep = pc.greater(pc.utf8_length(flat), 0)
    parents = pc.filter(pc.list_parent_indices(lists), keep).to_numpy(zero_copy_only=False)
    counts = np.bincount(parents, minlength=len(lists)) if len(parents) else np.zeros(len(lists), int)
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int32)
    return pa.ListArray.from_arrays(pa.array(offsets), pc.filter(flat, keep), mask=lists.is_null())


def item(lists: pa.ListArray, index: pa.Array) -> pa.Array:
    """The item at a 0-based index per list; null where the index is null or out of range."""
    starts = np.asarray(lists.offsets)[:-1]
    lengths = pc.fill_null(pc.list_value_length(lists), 0).to_numpy(zero_copy_only=False)
    idx = pc.fill_null(index, -1).to_numpy(zero_copy_only=False).astype(np.int64)
    ok = (idx >= 0) & (idx < lengths) & ~np.asarray(lists.is_null())
    positions = pa.array(np.where(ok, starts + idx, 0), mask=~ok)
    return lists.flatten().take(positions) if len(lists.flatten()) else pa.nulls(len(lists), pa.string())


def per_value(param: pa.Array, size: int, kernel: Callable[[np.ndarray, object], pa.Array]) -> pa.Array:
    """Runs `kernel(rows, value)` once per distinct non-null value of a parameter column (one call
    when the parameter is a literal, the usual case) and puts the results back in row order."""
    uniques = pc.unique(param).drop_null()
    values = param.to_pylist() if len(uniques) > 1 else None
    pieces: list[pa.Array] = []
    order: list[np.ndarray] = []
    for value in uniques.to_pylist():
        if values is None:
            rows = np.flatnonzero(~np.asarray(param.is_null()))
        else:
            rows = np.flatnonzero(np.asarray(pc.fill_null(pc.equal(param, value), False)))
        pieces.append(kernel(rows, value))
        order.append(rows)
    nulls = np.flatnonzero(np.asarray(param.is_null()))
    result_type = pieces[0].type if pieces else pa.string()
    pieces.append(pa.nulls(len(nulls), result_type))
    order.append(nulls)
    merged = pa.concat_arrays([p.cast(result_type) for p in pieces])
    inverse = np.empty(size, dtype=np.int64)
    inverse[np.concatenate(order)] = np.arange(size)
    return merged.take(pa.array(inverse))


def per_distinct(values: pa.Array, fn: Callable[[object], object], result: pa.DataType) -> pa.Array:
    """Applies a scalar Python function once per distinct value, for the few functions with no
    Arrow kernel (URL parsing, phonetic codes); nulls stay null."""
    encoded = pc.dictionary_encode(values)
    mapped = pa.array([fn(v) for v in encoded.dictionary.to_pylist()], result)
    return mapped.take(encoded.indices)


def per_distinct_pair(
    left: pa.Array, right: pa.Array, fn: Callable[[str, str], object], result: pa.DataType
) -> pa.Array:
    """`per_distinct` over pairs of strings; null where either side is null."""
    joined = pc.binary_join_element_wise(left, right, "\x00")
    return per_distinct(joined, lambda v: fn(*str(v).split("\x00", 1)), result)


def char_class(chars: str) -> str:
    """A regex character class matching any of `chars` (ASCII punctuation escaped)."""
    return "[" + "".join("\\" + c if c.isascii() and not c.isalnum() else c for c in chars) + "]"


def _tokens(values: pa.Array, delimiters: pa.Array) -> pa.ListArray:
    """STRTOK's tokens: split on any delimiter character, empty tokens dropped. An empty
    delimiter set leaves the whole string as one token."""

    def split(rows: np.ndarray, delims: object) -> pa.Array:
        subset = values.take(pa.array(rows))
        if delims == "":
            parts = pc.split_pattern(subset, "\x00\x00never")
        else:
            parts = pc.split_pattern_regex(subset, char_class(str(delims)))
        return drop_empty(parts)

    lists = per_value(delimiters, len(values), split)
    if not isinstance(lists, pa.ListArray):  # every delimiter null
        lists = pa.nulls(len(values), pa.list_(pa.string()))
    return lists


def _split(values: pa.Array, separators: pa.Array) -> pa.Array:
    def split(rows: np.ndarray, sep: object) -> pa.Array:
        subset = values.take(pa.array(rows))
        # An empty separator leaves the string whole.
        return pc.split_pattern(subset, str(sep) or "\x00\x00never")

    lists = per_value(separators, len(values), split)
    if not isinstance(lists, pa.ListArray):
        return pa.nulls(len(values), pa.string())
    return json_array(lists)


def _strtok(values: pa.Array, delimiters: pa.Array, part: pa.Array) -> pa.Array:
    index = pc.subtract(pc.cast(part, pa.int64()), 1)
    return item(_tokens(values, delimiters), index)


def _strtok_to_array(values: pa.Array, delimiters: pa.Array) -> pa.Array:
    return json_array(_tokens(values, delimiters))


def _initcap_one(text: str, delimiters: str) -> str:
    out = []
    start = True
    for c in text:
        out.append(c.upper() if start else c.lower())
        start = c in delimiters
    return "".join(out)


def _initcap(values: pa.Array, delimiters: pa.Array) -> pa.Array:
    def apply(rows: np.ndarray, delims: object) -> pa.Array:
        subset = values.take(pa.array(rows))
        return per_distinct(subset, lambda v: _initcap_one(str(v), str(delims)), pa.string())

    result = per_value(delimiters, len(values), apply)
    return result.cast(pa.string())


_SOUNDEX_CODES = {
    c: str(d)
    for d, letters in enumerate(["AEIOUY", "BFPV", "CGJKQSXZ", "DT", "L", "MN", "R"])
    for c in letters
}


def _soundex_one(text: object) -> str:
    """American Soundex: first letter, then up to three digits; H and W do not separate equal
    codes, vowels do. https://docs.snowflake.com/en/sql-reference/functions/soundex"""
    letters = [c for c in str(text).upper() if "A" <= c <= "Z"]
    if not letters:
        return ""
    code = letters[0]
    last = _SOUNDEX_CODES.get(letters[0], "")
    for c in letters[1:]:
        if c in "HW":
            continue
        digit = _SOUNDEX_CODES[c]
        if digit not in ("0", last):
            code += digit
        last = digit
        if len(code) == 4:
            break
    return code.ljust(4, "0")


def _soundex(values: pa.Array) -> pa.Array:
    return per_distinct(values, _soundex_one, pa.string())


def _jaro_winkler_one(a: str, b: str) -> int:
    a, b = a.lower(), b.lower()
    if not a and not b:
        return 100
    if not a or not b:
        return 0
    window = max(max(len(a), len(b)) // 2 - 1, 0)
    used = [False] * len(b)
    matched_a = []
    for i, c in enumerate(a):
        for j in range(max(0, i - window), min(len(b), i + window + 1)):
            if not used[j] and b[j] == c:
                used[j] = True
                matched_a.append(c)
                break
    if not matched_a:
        return 0
    matched_b = [c for j, c in enumerate(b) if used[j]]
    transpositions = sum(x != y for x, y in zip(matched_a, matched_b, strict=True)) / 2
    m = len(matched_a)
    jaro = (m / len(a) + m / len(b) + (m - transpositions) / m) / 3
    prefix = 0
    for x, y in zip(a[:4], b[:4], strict=False):
        if x != y:
            break
        prefix += 1
    return round((jaro + prefix * 0.1 * (1 - jaro)) * 100)


def _jarowinkler(left: pa.Array, right: pa.Array) -> pa.Array:
    # Pairs are compared once each; a Python loop since no Arrow kernel computes this metric.
    return per_distinct_pair(left, right, _jaro_winkler_one, pa.int64())


def _parse_url_one(url: str, permissive: bool) -> str:
    if ":" not in url or not url.split(":", 1)[0] or "/" in url.split(":", 1)[0]:
        if permissive:
            return json.dumps({"error": "scheme not specified"}, separators=(",", ":"))
        raise UrlParseError("Error parsing URL: scheme not specified")
    parts = urlsplit(url)
    netloc = parts.netloc
    host, port = netloc or None, None
    if netloc and ":" in netloc.rsplit("@", 1)[-1]:
        head, _, tail = netloc.rpartition(":")
        if tail.isdigit():
            host, port = head, tail
    path = parts.path[1:] if parts.path.startswith("/") else parts.path
    query = parts.query if "?" in url else None
    parameters = dict(parse_qsl(query, keep_blank_values=True)) if query else None
    fragment = parts.fragment if "#" in url else None
    value = {
        "fragment": fragment,
        "host": host,
        "parameters": parameters,
        "path": path,
        "port": port,
        "query": query,
        "scheme": parts.scheme,
    }
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


def _parse_url(values: pa.Array, permissive: pa.Array) -> pa.Array:
    def apply(rows: np.ndarray, flag: object) -> pa.Array:
        subset = values.take(pa.array(rows))
        return per_distinct(subset, lambda v: _parse_url_one(str(v), bool(flag)), pa.string())

    return per_value(permissive, len(values), apply).cast(pa.string())


def _uuid5(namespaces: pa.Array, names: pa.Array) -> pa.Array:
    return per_distinct_pair(namespaces, names, lambda ns, n: str(uuid.uuid5(uuid.UUID(ns), n)), pa.string())


def _fits(values: pa.Array, limits: pa.Array) -> pa.Array:
    """Text cast to VARCHAR(n), unchanged: Snowflake never truncates a cast, a longer value is
    its error (TRY_CAST gives NULL instead, sql/transforms/functions/conversion.py)."""
    too_long = pc.fill_null(pc.greater(pc.utf8_length(values), limits), False)
    if pc.any(too_long).as_py():
        value = pc.filter(values, too_long)[0].as_py()
        raise string_too_long(value)
    return values


def _plain_args(fn: Callable[..., pa.Array]) -> Callable[..., pa.Array]:
    def call(*args: pa.Array) -> pa.Array:
        return fn(*(plain(a) for a in args))

    return call


_TEXT, _INT = pa.string(), pa.int64()


def _field(name: str, dtype: pa.DataType = _TEXT) -> pa.Field:
    return pa.field(name, dtype)


_UDFS = [
    udf(_plain_args(_split), [_field("s"), _field("sep")], ARRAY_FIELD, "immutable", name="sf_split"),
    udf(
        _plain_args(_strtok),
        [_field("s"), _field("delims"), _field("n", _INT)],
        _field("r"),
        "immutable",
        name="sf_strtok",
    ),
    udf(
        _plain_args(_strtok_to_array),
        [_field("s"), _field("delims")],
        ARRAY_FIELD,
        "immutable",
        name="sf_strtok_to_array",
    ),
    udf(_plain_args(_initcap), [_field("s"), _field("delims")], _field("r"), "immutable", name="sf_initcap"),
    udf(_plain_args(_soundex), [_field("s")], _field("r"), "immutable", name="sf_soundex"),
    udf(
        _plain_args(_jarowinkler),
        [_field("a"), _field("b")],
        _field("r", _INT),
        "immutable",
        name="sf_jarowinkler_similarity",
    ),
    udf(
        _plain_args(_parse_url),
        [_field("url"), _field("permissive", _INT)],
        OBJECT_FIELD,
        "immutable",
        name="sf_parse_url",
    ),
    udf(_plain_args(_uuid5), [_field("ns"), _field("name")], _field("r"), "immutable", name="sf_uuid5"),
    udf(
        _plain_args(_fits), [_field("s"), _field("n", _INT)], _field("r"), "immutable", name="sf_fits_varchar"
    ),
]


def register(ctx: SessionContext) -> None:
    for function in _UDFS:
        ctx.register_udf(function)
