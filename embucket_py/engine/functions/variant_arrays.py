"""Semi-structured ARRAY functions (ARRAY_CONSTRUCT, ARRAY_CAT, ARRAY_SLICE, ...) over JSON text.

Elements compare by their canonical JSON text with numbers by value (`equality_text`), which is
how Snowflake compares VARIANT values for equality (`1` and `1.0` are one number; keys of objects
are ordered).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from decimal import Decimal
from functools import cmp_to_key
from typing import Any

import pyarrow as pa
from datafusion import SessionContext

from embucket_py.engine.functions.variant import (
    LIST,
    MISSING,
    UTF8,
    make_udf,
    parsed,
    text_of,
    variant_out,
)
from embucket_py.engine.functions.variant_values import VARIANT_FIELDS, equality_text, loads, texts

INT = pa.int64()
BOOL = pa.bool_()
A, V = VARIANT_FIELDS["ARRAY"], VARIANT_FIELDS["VARIANT"]


def _construct(lists: pa.Array, compact: pa.Array) -> pa.Array:
    """ARRAY_CONSTRUCT over make_array(element JSON, ...): SQL NULL elements become JSON null
    (dropped, with JSON nulls, by the _COMPACT form)."""
    drop = bool((compact.to_pylist() or [False])[0])
    out: list[Any] = []
    for items in lists.to_pylist():
        if items is None:
            out.append([])
            continue
        values = [None if t is None else loads(t) for t in items]
        out.append([v for v in values if v is not None] if drop else values)
    return variant_out(out)


def _from_list(lists: pa.Array) -> pa.Array:
    """ARRAY_AGG's final step: the aggregated element texts, SQL NULLs left out."""
    return variant_out(
        [
            [loads(t) for t in items if t is not None] if items is not None else []
            for items in lists.to_pylist()
        ]
    )


def _array_union(lists: pa.Array) -> pa.Array:
    """ARRAY_UNION_AGG over the aggregated ARRAY texts: each element as often as the array holding
    it most often; SQL NULLs skipped.
    https://docs.snowflake.com/en/sql-reference/functions/array_union_agg"""
    out: list[Any] = []
    for items in lists.to_pylist():
        arrays = [loads(t) for t in items or [] if t is not None]
        if any(not isinstance(a, list) for a in arrays):
            raise ValueError("Invalid argument types: expected an ARRAY")
        counts: Counter[str] = Counter()
        result: list[Any] = []
        for a in arrays:
            here = Counter(equality_text(v) for v in a)
            for v in a:
                key = equality_text(v)
                if counts[key] < here[key]:
                    counts[key] += 1
                    result.append(v)
        # The order is unspecified in Snowflake; sorted, it does not depend on row order.
        out.append(sorted(result, key=cmp_to_key(_compare)) if arrays else MISSING)
    return variant_out(out)


def _order_key(value: Any) -> tuple[int, Any]:
    """Snowflake's VARIANT order: numbers, then strings, then booleans, arrays, objects; null last."""
    if value is None:
        return (9, 0)
    if isinstance(value, bool):
        return (2, value)
    if isinstance(value, int | float | Decimal):
        return (0, Decimal(str(value)))
    if isinstance(value, str):
        return (1, value)
    return (3 if isinstance(value, list) else 4, equality_text(value))


def _compare(a: Any, b: Any) -> int:
    ka, kb = _order_key(a), _order_key(b)
    return (ka > kb) - (ka < kb)


_SORT_KEY = cmp_to_key(_compare)


def _sorted_from_list(lists: pa.Array, descending: pa.Array) -> pa.Array:
    desc = bool((descending.to_pylist() or [False])[0])
    out: list[Any] = []
    for items in lists.to_pylist():
        values = [loads(t) for t in items or [] if t is not None]
        out.append(sorted(values, key=_SORT_KEY, reverse=desc))
    return variant_out(out)


def _arrays(array: pa.Array) -> list[Any]:
    """An ARRAY argument: lists stay, SQL NULL is MISSING, anything else is an error."""
    out = []
    for v in parsed(array):
        if v is not MISSING and not isinstance(v, list):
            raise ValueError("Invalid argument types: expected an ARRAY")
        out.append(v)
    return out


def _zip(lists: pa.Array) -> pa.Array:
    """ARRAYS_ZIP over make_array(array, ...): the n-th object holds each array's n-th element
    under "$1", "$2", ... (JSON null past a shorter array's end); NULL when any array is NULL.
    Empty arrays give one empty object, as on Snowflake.
    https://docs.snowflake.com/en/sql-reference/functions/arrays_zip"""
    out: list[Any] = []
    for items in lists.to_pylist():
        arrays = [MISSING if t is None else loads(t) for t in items or []]
        if any(a is MISSING for a in arrays):
            out.append(MISSING)
            continue
        if not all(isinstance(a, list) for a in arrays):
            raise ValueError("Invalid argument types: ARRAYS_ZIP expects arrays")
        length = max((len(a) for a in arrays), default=0)
        out.append(
            [{f"${k + 1}": a[i] if i < len(a) else None for k, a in enumerate(arrays)} for i in range(length)]
            or [{}]
        )
    return variant_out(out)


def _elements(array: pa.Array) -> list[Any]:
    """An element argument already turned to JSON by sf_to_variant (MISSING for SQL NULL)."""
    return [MISSING if t is None else loads(t) for t in texts(array)]


def _unary(fn: Callable[[list[Any]], Any]) -> Callable[[pa.Array], pa.Array]:
    def run(array: pa.Array) -> pa.Array:
        return variant_out([MISSING if a is MISSING else fn(a) for a in _arrays(array)])

    return run


def _binary(fn: Callable[[list[Any], list[Any]], Any]) -> Callable[[pa.Array, pa.Array], pa.Array]:
    def run(left: pa.Array, right: pa.Array) -> pa.Array:
        return variant_out(
            [
                MISSING if a is MISSING or b is MISSING else fn(a, b)
                for a, b in zip(_arrays(left), _arrays(right), strict=True)
            ]
        )

    return run


def _multiset_except(a: list[Any], b: list[Any]) -> list[Any]:
    remove = Counter(equality_text(v) for v in b)
    out = []
    for v in a:
        key = equality_text(v)
        if remove[key] > 0:
            remove[key] -= 1
        else:
            out.append(v)
    return out


def _multiset_intersection(a: list[Any], b: list[Any]) -> list[Any]:
    keep = Counter(equality_text(v) for v in b)
    out = []
    for v in a:
        key = equality_text(v)
        if keep[key] > 0:
            keep[key] -= 1
            out.append(v)
    return out


def _distinct(a: list[Any]) -> list[Any]:
    seen: set[str] = set()
    out = []
    for v in a:
        key = equality_text(v)
        if key not in seen:
            seen.add(key)
            out.append(v)
    return out


def _flatten(a: list[Any]) -> list[Any]:
    out: list[Any] = []
    for v in a:
        if v is None:
            continue
        if not isinstance(v, list):
            raise ValueError("ARRAY_FLATTEN: every element must be an ARRAY")
        out.extend(v)
    return out


def _size(array: pa.Array) -> pa.Array:
    return pa.array([len(v) if isinstance(v, list) else None for v in parsed(array)], INT)


def _contains(values: pa.Array, arrays: pa.Array) -> pa.Array:
    out: list[bool | None] = []
    for v, a in zip(_elements(values), _arrays(arrays), strict=True):
        if a is MISSING:
            out.append(None)
            continue
        found = equality_text(None if v is MISSING else v) in {equality_text(x) for x in a}
        # A NULL needle finds a null element, else the answer is unknown.
        out.append(found if v is not MISSING or found else None)
    return pa.array(out, BOOL)


def _position(values: pa.Array, arrays: pa.Array) -> pa.Array:
    out: list[int | None] = []
    for v, a in zip(_elements(values), _arrays(arrays), strict=True):
        if a is MISSING:
            out.append(None)
            continue
        key = equality_text(None if v is MISSING else v)
        out.append(next((i for i, x in enumerate(a) if equality_text(x) == key), None))
    return pa.array(out, INT)


def _overlap(left: pa.Array, right: pa.Array) -> pa.Array:
    out: list[bool | None] = []
    for a, b in zip(_arrays(left), _arrays(right), strict=True):
        out.append(
            None
            if a is MISSING or b is MISSING
            else bool({equality_text(x) for x in a} & {equality_text(x) for x in b})
        )
    return pa.array(out, BOOL)


def _append(arrays: pa.Array, values: pa.Array) -> pa.Array:
    return variant_out(
        [
            MISSING if a is MISSING else [*a, None if v is MISSING else v]
            for a, v in zip(_arrays(arrays), _elements(values), strict=True)
        ]
    )


def _prepend(arrays: pa.Array, values: pa.Array) -> pa.Array:
    return variant_out(
        [
            MISSING if a is MISSING else [None if v is MISSING else v, *a]
            for a, v in zip(_arrays(arrays), _elements(values), strict=True)
        ]
    )


def _insert(arrays: pa.Array, positions: pa.Array, values: pa.Array) -> pa.Array:
    out: list[Any] = []
    for a, p, v in zip(_arrays(arrays), positions.to_pylist(), _elements(values), strict=True):
        if a is MISSING or p is None:
            out.append(MISSING)
            continue
        items = list(a)
        if p > len(items):  # past the end: pad with nulls
            items.extend([None] * (p - len(items)))
        items.insert(p, None if v is MISSING else v)
        out.append(items)
    return variant_out(out)


def _slice(arrays: pa.Array, starts: pa.Array, ends: pa.Array) -> pa.Array:
    return variant_out(
        [
            MISSING if a is MISSING or s is None or e is None else a[s:e]
            for a, s, e in zip(_arrays(arrays), starts.to_pylist(), ends.to_pylist(), strict=True)
        ]
    )


def _remove_at(arrays: pa.Array, positions: pa.Array) -> pa.Array:
    out: list[Any] = []
    for a, p in zip(_arrays(arrays), positions.to_pylist(), strict=True):
        if a is MISSING or p is None:
            out.append(MISSING)
            continue
        items = list(a)
        if -len(items) <= p < len(items):
            del items[p]
        out.append(items)
    return variant_out(out)


def _remove(arrays: pa.Array, values: pa.Array) -> pa.Array:
    out: list[Any] = []
    for a, v in zip(_arrays(arrays), _elements(values), strict=True):
        if a is MISSING or v is MISSING:
            out.append(MISSING)
            continue
        key = equality_text(v)
        out.append([x for x in a if equality_text(x) != key])
    return variant_out(out)


def _to_string(arrays: pa.Array, separators: pa.Array) -> pa.Array:
    out: list[str | None] = []
    for a, sep in zip(_arrays(arrays), texts(separators), strict=True):
        if a is MISSING or sep is None:
            out.append(None)
            continue
        out.append(sep.join("" if v is None else (text_of(v) or "") for v in a))
    return pa.array(out, UTF8)


def _sort(arrays: pa.Array, ascending: pa.Array, nulls_first: pa.Array) -> pa.Array:
    out: list[Any] = []
    for a, asc, nf in zip(_arrays(arrays), ascending.to_pylist(), nulls_first.to_pylist(), strict=True):
        if a is MISSING:
            out.append(MISSING)
            continue
        values = sorted((v for v in a if v is not None), key=_SORT_KEY, reverse=asc is False)
        nulls = [None] * (len(a) - len(values))
        first = (asc is False) if nf is None else nf
        out.append(nulls + values if first else values + nulls)
    return variant_out(out)


def _extreme(largest: bool) -> Callable[[pa.Array], pa.Array]:
    def run(array: pa.Array) -> pa.Array:
        out: list[Any] = []
        for a in _arrays(array):
            values = [v for v in a if v is not None] if a is not MISSING else []
            out.append((max if largest else min)(values, key=_SORT_KEY) if values else MISSING)
        return variant_out(out)

    return run


def _generate_range(starts: pa.Array, stops: pa.Array, steps: pa.Array) -> pa.Array:
    out: list[Any] = []
    for a, b, s in zip(starts.to_pylist(), stops.to_pylist(), steps.to_pylist(), strict=True):
        if a is None or b is None or s is None:
            out.append(MISSING)
        elif s == 0:
            raise ValueError("ARRAY_GENERATE_RANGE: step must not be 0")
        else:
            out.append(list(range(a, b, s)))
    return variant_out(out)


UDFS = [
    make_udf("sf_array_construct", _construct, [LIST, BOOL], A),
    make_udf("sf_array_from_list", _from_list, [LIST], A),
    make_udf("sf_array_union_list", _array_union, [LIST], A),
    make_udf("sf_array_sorted_from_list", _sorted_from_list, [LIST, BOOL], A),
    make_udf("sf_array_size", _size, [UTF8], INT),
    make_udf("sf_array_contains", _contains, [UTF8, UTF8], BOOL),
    make_udf("sf_array_position", _position, [UTF8, UTF8], INT),
    make_udf("sf_arrays_overlap", _overlap, [UTF8, UTF8], BOOL),
    make_udf("sf_array_cat", _binary(lambda a, b: a + b), [UTF8, UTF8], A),
    make_udf("sf_arrays_zip", _zip, [LIST], A),
    make_udf("sf_array_except", _binary(_multiset_except), [UTF8, UTF8], A),
    make_udf("sf_array_intersection", _binary(_multiset_intersection), [UTF8, UTF8], A),
    make_udf("sf_array_compact", _unary(lambda a: [v for v in a if v is not None]), [UTF8], A),
    make_udf("sf_array_distinct", _unary(_distinct), [UTF8], A),
    make_udf("sf_array_reverse", _unary(lambda a: a[::-1]), [UTF8], A),
    make_udf("sf_array_flatten", _unary(_flatten), [UTF8], A),
    make_udf("sf_array_append", _append, [UTF8, UTF8], A),
    make_udf("sf_array_prepend", _prepend, [UTF8, UTF8], A),
    make_udf("sf_array_insert", _insert, [UTF8, INT, UTF8], A),
    make_udf("sf_array_slice", _slice, [UTF8, INT, INT], A),
    make_udf("sf_array_remove_at", _remove_at, [UTF8, INT], A),
    make_udf("sf_array_remove", _remove, [UTF8, UTF8], A),
    make_udf("sf_array_to_string", _to_string, [UTF8, UTF8], UTF8),
    make_udf("sf_array_sort", _sort, [UTF8, BOOL, BOOL], A),
    make_udf("sf_array_min", _extreme(False), [UTF8], V),
    make_udf("sf_array_max", _extreme(True), [UTF8], V),
    make_udf("sf_array_generate_range", _generate_range, [INT, INT, INT], A),
]


def register(ctx: SessionContext) -> None:
    for u in UDFS:
        ctx.register_udf(u)
