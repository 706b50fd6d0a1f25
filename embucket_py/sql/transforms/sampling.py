"""SAMPLE / TABLESAMPLE on a table or subquery.
https://docs.snowflake.com/en/sql-reference/constructs/sample

BERNOULLI (ROW) keeps each row with probability p: a filter on random(), or with SEED /
REPEATABLE on a hash of the row's values and the seed, so the same data gives the same sample.
`SAMPLE (n ROWS)` keeps n random rows. SYSTEM (BLOCK) keeps each block (a Parquet row group) with
probability p and reads only those: the table reference carries it to the engine as a
`BlockSample` (see transforms/tables.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlglot import exp

from embucket_py.errors import SqlCompilationError
from embucket_py.sql.context import SqlContext
from embucket_py.sql.names import qualify, table_parts
from embucket_py.sql.transforms.lateral_aliases import ColumnLookup

_HASH_DIGITS = 8  # hex digits of the row hash compared with the threshold (32 bits)


@dataclass(frozen=True)
class BlockSample:
    percent: float
    seed: int | None


def block_sample(table: exp.Table) -> BlockSample | None:
    """The SYSTEM / BLOCK sample of a stored table reference (left for the engine)."""
    sample = table.args.get("sample")
    if not isinstance(sample, exp.TableSample) or _method(sample) != "SYSTEM":
        return None
    return BlockSample(_percent(sample), _seed(sample))


def sampling(tree: exp.Expression, ctx: SqlContext, columns: ColumnLookup | None) -> exp.Expression:
    for node in list(tree.find_all(exp.Table, exp.Subquery)):
        sample = node.args.get("sample")
        if not isinstance(sample, exp.TableSample):
            continue
        if isinstance(node, exp.Table) and _method(sample) == "SYSTEM" and sample.args.get("size") is None:
            _percent(sample)  # validated now; the engine samples the blocks
            continue
        node.set("sample", None)
        alias = node.args.get("alias")
        node.set("alias", None)
        if alias is None and isinstance(node, exp.Table):
            alias = exp.TableAlias(this=node.this.copy())
        inner = exp.select("*").from_(node.copy())
        size = sample.args.get("size")
        if size is not None:
            inner = inner.order_by(exp.Anonymous(this="random")).limit(int(_number(size)))
        else:
            inner = inner.where(_keep_row(node, sample, ctx, columns))
        node.replace(exp.Subquery(this=inner, alias=alias))
    return tree


def _keep_row(
    node: exp.Expression, sample: exp.TableSample, ctx: SqlContext, columns: ColumnLookup | None
) -> exp.Expression:
    fraction = _percent(sample) / 100
    seed = _seed(sample)
    if seed is None:
        return exp.LT(this=exp.Anonymous(this="random"), expression=exp.Literal.number(fraction))
    names = None
    if columns is not None and isinstance(node, exp.Table):
        names = columns(qualify(table_parts(node), ctx, "query"))
    if not names:
        raise SqlCompilationError("SAMPLE ... SEED needs a table whose columns are known.")
    # NULLs hash as a marker value (a NULL would make the whole hash NULL and drop the row).
    values = [exp.Literal.string(str(seed))] + [
        exp.Coalesce(
            this=exp.cast(exp.column(name, quoted=True), exp.DataType.build("VARCHAR")),
            expressions=[exp.Literal.string("\\N")],
        )
        for name in names
    ]
    digest = exp.Substring(
        this=exp.MD5(this=exp.ConcatWs(expressions=[exp.Literal.string("|"), *values])),
        start=exp.Literal.number(1),
        length=exp.Literal.number(_HASH_DIGITS),
    )
    threshold = format(min(int(fraction * 16**_HASH_DIGITS), 16**_HASH_DIGITS - 1), f"0{_HASH_DIGITS}x")
    if fraction >= 1:
        return exp.true()
    return exp.LT(this=digest, expression=exp.Literal.string(threshold))


def _method(sample: exp.TableSample) -> str:
    method = sample.args.get("method")
    name = method.name.upper() if method is not None else "BERNOULLI"
    return {"BLOCK": "SYSTEM", "ROW": "BERNOULLI"}.get(name, name)


def _number(node: exp.Expression) -> float:
    try:
        return float(node.name)
    except (TypeError, ValueError):
        raise SqlCompilationError(f"Sample size '{node.sql('snowflake')}' must be a number.") from None


def _percent(sample: exp.TableSample) -> float:
    percent = sample.args.get("percent")
    if percent is None:
        percent = sample.args.get("size")
    value = _number(percent) if percent is not None else 100.0
    if not 0 <= value <= 100:
        raise SqlCompilationError(f"Sample probability {value:g} is not between 0 and 100.")
    return value


def _seed(sample: exp.TableSample) -> int | None:
    seed = sample.args.get("seed")
    return int(_number(seed)) if seed is not None else None
