"""The UDFs behind TRANSFORM, FILTER and REDUCE: each runs its lambda's body, translated into a
query of its own (sql/transforms/lambdas.py), over the elements of a batch's arrays.

The body's query runs on a context of its own, on a thread of its own: a UDF is called on one
of DataFusion's runtime threads, which cannot wait for another query. Its input has one row per
element (`__p0`, or `__p0` and `__p1` for REDUCE's accumulator and element, as VARIANTs) and the
outer values the body reads (`__c<i>`), taken per element from the row it belongs to; those
arrive as Arrow's text of each value with its Arrow type and are cast back before the body sees
them. REDUCE runs the body once per element position, over the rows that array reaches.
A JSON null element is passed as NULL, as Snowflake passes the NULLs of `[1, NULL, 3]`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
from datafusion import SessionContext

from embucket_py import naming
from embucket_py.engine.context import CONTEXTS
from embucket_py.engine.failures import from_datafusion
from embucket_py.engine.functions.variant import MISSING, UTF8, make_udf, parsed
from embucket_py.engine.functions.variant_values import dumps
from embucket_py.errors import InvalidArgumentTypes, SnowflakeError
from embucket_py.sql.transforms.lambdas import CAPTURED, FILTER, NAMES, PARAMETERS, REDUCE
from embucket_py.types import SFTYPE_KEY

_PARAMETERS = [naming.stored(p) for p in PARAMETERS]
_VARIANT = {SFTYPE_KEY: b"VARIANT"}

# What a statement's functions need on the body's context (user functions in Python, NEXTVAL):
# set by engine/query.py, which registers them.
Attach = Callable[[SessionContext, str], None]


class _Input:
    """The outer values a body reads, per row of the batch: texts, Arrow types, Snowflake tags."""

    def __init__(
        self, values: pa.Array | None = None, types: pa.Array | None = None, tags: pa.Array | None = None
    ) -> None:
        self.columns: list[tuple[str, pa.Array, str, str]] = []
        if values is None:
            return
        assert types is not None and tags is not None
        # Types and tags are known when the query is planned: every row holds the same.
        for i, (arrow_type, tag) in enumerate(zip(types[0].as_py(), tags[0].as_py(), strict=True)):
            column = pc.list_element(values, i).cast(UTF8)  # each row's value, in Arrow
            self.columns.append((naming.stored(f"__C{i}"), column, arrow_type, tag or ""))

    def fields(self, rows: pa.Array) -> tuple[list[pa.Field], list[pa.Array], list[str]]:
        """The columns for input rows taken from batch rows `rows`, and the casts restoring them."""
        fields, arrays, casts = [], [], []
        for name, column, arrow_type, tag in self.columns:
            meta = {SFTYPE_KEY: tag.encode()} if tag else None
            fields.append(pa.field(name, UTF8, metadata=meta))
            arrays.append(pc.take(column, rows))
            if arrow_type not in ("Utf8", "LargeUtf8", "Utf8View", "Null"):
                quoted = arrow_type.replace("'", "''")
                casts.append(f'arrow_cast("{name}", \'{quoted}\') AS "{name}"')
            else:
                casts.append(f'"{name}"')
        return fields, arrays, casts


class Lambdas:
    """The six UDFs (each function, without and with outer values), their bodies' functions
    attached by `attach`."""

    def __init__(self, attach: Attach) -> None:
        self.attach = attach

    def udfs(self) -> list[Any]:
        out = []
        for name in NAMES:
            captured = name.endswith(CAPTURED)
            kind = name.removesuffix(CAPTURED)
            inputs = (
                [UTF8, UTF8, UTF8]
                + ([UTF8] if kind == REDUCE else [])
                + [pa.list_(UTF8)] * (3 if captured else 0)
            )
            tag = b"VARIANT" if kind == REDUCE else b"ARRAY"
            out.append(
                make_udf(name, self._udf(kind), inputs, pa.field("r", UTF8, metadata={SFTYPE_KEY: tag}))
            )
        return out

    def _udf(self, kind: str) -> Callable[..., pa.Array]:
        def run(sql: pa.Array, table: pa.Array, arrays: pa.Array, *rest: pa.Array) -> pa.Array:
            if len(arrays) == 0:
                return pa.array([], UTF8)
            init, captured = (rest[0], rest[1:]) if kind == REDUCE else (None, rest)
            body = _Body(self.attach, sql[0].as_py(), table[0].as_py(), _Input(*captured))
            elements = _elements(arrays, kind)
            if init is not None:
                return _reduce(body, elements, init)
            return _transform_or_filter(body, elements, kind == FILTER)

        return run


class _Body:
    """One lambda body's query and the outer values it reads."""

    def __init__(self, attach: Attach, sql: str, table: str, outer: _Input) -> None:
        self.attach, self.sql, self.table, self.outer = attach, sql, table, outer

    def run(self, params: list[pa.Array], rows: pa.Array) -> pa.Array:
        """The body's value per input row: `params` hold the parameters' VARIANT texts, `rows` the
        batch row each input row belongs to."""
        fields = [pa.field(n, UTF8, metadata=_VARIANT) for n in _PARAMETERS[: len(params)]]
        more_fields, more_arrays, casts = self.outer.fields(rows)
        batch = pa.RecordBatch.from_arrays([*params, *more_arrays], schema=pa.schema(fields + more_fields))
        projection = [f'"{f.name}"' for f in fields] + casts
        return _off_runtime(lambda: self._query(batch, projection))

    def _query(self, batch: pa.RecordBatch, projection: list[str]) -> pa.Array:
        ctx = CONTEXTS.borrow(one_partition=True)
        ctx.registered = True  # type: ignore[attr-defined]  # the pool drops the input with it
        try:
            ctx.register_table(self.table, ctx.from_arrow(batch).select_exprs(*projection))
            self.attach(ctx, self.sql)
            table = ctx.sql(self.sql).to_arrow_table()
        except SnowflakeError:
            raise
        except Exception as e:
            raise from_datafusion(e) from None
        finally:
            CONTEXTS.give_back(ctx)
        column = table.column(0)
        return column.combine_chunks() if column.num_chunks else pa.array([], column.type)


def _off_runtime(work: Callable[[], pa.Array]) -> pa.Array:
    """`work` on a thread of its own (see the module's docstring), its error raised here."""
    out: dict[str, Any] = {}

    def run() -> None:
        try:
            out["value"] = work()
        except BaseException as e:  # handed to the calling thread
            out["error"] = e

    thread = threading.Thread(target=run, name="embucket-lambda")
    thread.start()
    thread.join()
    if "error" in out:
        raise out["error"]
    return out["value"]


def _elements(arrays: pa.Array, kind: str) -> list[list[str | None] | None]:
    """Each row's elements as VARIANT texts (a JSON null as None); None for a NULL array."""
    out: list[list[str | None] | None] = []
    for value in parsed(arrays):
        if value is MISSING or value is None:
            out.append(None)
        elif isinstance(value, list):
            out.append([None if e is None else dumps(e) for e in value])
        else:
            name = kind.removeprefix("sf_").upper()
            raise InvalidArgumentTypes(
                f"Invalid argument types for function '{name}': its first argument is no ARRAY"
            )
    return out


def _transform_or_filter(body: _Body, elements: list[list[str | None] | None], keep: bool) -> pa.Array:
    flat: list[str | None] = []
    rows: list[int] = []
    for row, items in enumerate(elements):
        if items:
            flat += items
            rows += [row] * len(items)
    results = body.run([pa.array(flat, UTF8)], pa.array(rows, pa.int64())).to_pylist() if flat else []
    out: list[str | None] = []
    at = 0
    for items in elements:
        if items is None:
            out.append(None)
            continue
        mine = results[at : at + len(items)]
        at += len(items)
        kept = [item for item, ok in zip(items, mine, strict=True) if ok is True] if keep else mine
        out.append("[" + ",".join("null" if t is None else t for t in kept) + "]")
    return pa.array(out, UTF8)


def _reduce(body: _Body, elements: list[list[str | None] | None], init: pa.Array) -> pa.Array:
    acc: list[str | None] = init.to_pylist()
    # NULL for a NULL array or a NULL initial value; an empty array gives the initial value.
    null = [items is None or start is None for items, start in zip(elements, acc, strict=True)]
    longest = max((len(items) for items in elements if items), default=0)
    for position in range(longest):
        rows = [r for r, items in enumerate(elements) if not null[r] and len(items or []) > position]
        accs = pa.array([acc[r] for r in rows], UTF8)
        values = pa.array([elements[r][position] for r in rows], UTF8)  # type: ignore[index]
        results = body.run([accs, values], pa.array(rows, pa.int64())).to_pylist()
        for r, value in zip(rows, results, strict=True):
            acc[r] = value
    return pa.array([None if n else a for a, n in zip(acc, null, strict=True)], UTF8)


def attach(ctx: SessionContext, sql: str, attach_more: Attach) -> None:
    """Registers the lambda UDFs on `ctx` when `sql` calls them; their bodies get `attach_more`."""
    if any(name + "(" in sql for name in NAMES):
        for function in Lambdas(attach_more).udfs():
            ctx.register_udf(function)
