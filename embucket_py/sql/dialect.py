"""A sqlglot dialect that generates SQL for Apache DataFusion (sqlglot ships none).

DataFusion's SQL is close to PostgreSQL's, so this subclasses the Postgres dialect and overrides
only what differs. Casts go through the one type mapping in `embucket_py.types`.
"""

from __future__ import annotations

from sqlglot import exp, transforms
from sqlglot.dialects.postgres import Postgres

from embucket_py.types import SfType, parse_sql_type

# DataFusion's arrow_cast names for the timestamp types with a time zone.
_UTC_MICROS = 'Timestamp(Microsecond, Some("UTC"))'
_TIME_MICROS = "Time64(Microsecond)"


def snowflake_type(dtype: exp.DataType) -> SfType | None:
    """The Snowflake type a sqlglot DataType (parsed from Snowflake SQL) stands for."""
    text = dtype.sql(dialect="snowflake")
    try:
        return parse_sql_type(text)
    except ValueError:
        return None


def datafusion_type(t: SfType) -> str:
    if t.kind == "FIXED":
        # Casts keep the full range: NUMBER(38,0) values may exceed BIGINT.
        if t.scale == 0 and (t.precision or 38) <= 18:
            return "BIGINT"
        return f"DECIMAL({t.precision}, {t.scale})"
    return {
        "REAL": "DOUBLE",
        "BINARY": "BYTEA",
        "BOOLEAN": "BOOLEAN",
        "DATE": "DATE",
        "TIME": "TIME",
        "TIMESTAMP_NTZ": "TIMESTAMP",
    }.get(t.kind, "VARCHAR")


def _integral(node: exp.Expression) -> bool:
    """Whether a value is known to hold no fraction: an integer literal, or a cast to an integer."""
    if isinstance(node, exp.Literal):
        return node.is_int
    if isinstance(node, exp.Cast):
        sf = snowflake_type(node.to)
        return sf is not None and sf.kind == "FIXED" and sf.scale == 0
    return False


def _eliminate_qualify(select: exp.Expression) -> exp.Expression:
    """sqlglot's QUALIFY elimination (a filter over a subquery that computes the window), with a
    star staying the query's own columns: `SELECT * ... QUALIFY ROW_NUMBER() ... = 1` also
    returned the window's helper column (dbt's deduplicate)."""
    star = isinstance(select, exp.Select) and bool(select.args.get("qualify")) and select.is_star
    own = set(select.named_selects) if star else set()
    result = transforms.eliminate_qualify(select)
    if star and result is not select:
        added = [name for name in select.named_selects if name not in own]  # `select` is the inner one now
        result.set("expressions", [exp.Star(except_=[exp.column(name) for name in added])])
    return result


class DataFusion(Postgres):
    # DataFusion looks table functions such as range() up by their lower-case names.
    NORMALIZE_FUNCTIONS = "lower"

    class Generator(Postgres.Generator):
        # DataFusion has TRY_CAST; Postgres's generator would turn it into a CAST.
        TRANSFORMS = {k: v for k, v in Postgres.Generator.TRANSFORMS.items() if k is not exp.TryCast}
        # Postgres writes XOR as `#`, which DataFusion does not parse; its XOR is `^`.
        TRANSFORMS[exp.BitwiseXor] = lambda self, e: self.binary(e, "^")
        TRANSFORMS[exp.Select] = transforms.preprocess(
            [transforms.eliminate_semi_and_anti_joins, _eliminate_qualify]
        )

        def datatype_sql(self, expression: exp.DataType) -> str:
            sf = snowflake_type(expression)
            return datafusion_type(sf) if sf is not None else super().datatype_sql(expression)

        def cast_sql(self, expression: exp.Cast, safe_prefix: str | None = None) -> str:
            sf = snowflake_type(expression.to)
            if sf is not None and sf.kind in ("TIMESTAMP_LTZ", "TIMESTAMP_TZ"):
                inner = self.sql(expression, "this")
                fn = "arrow_cast" if not isinstance(expression, exp.TryCast) else "try_arrow_cast"
                return f"{fn}({inner}, '{_UTC_MICROS}')"
            if sf is not None and sf.kind == "TIME":
                # DataFusion's TIME is nanoseconds; stored TIMEs (Iceberg's) are microseconds, and
                # the two do not compare, union or coalesce: every TIME is microseconds here.
                return f"arrow_cast({super().cast_sql(expression, safe_prefix)}, '{_TIME_MICROS}')"
            if sf is not None and datafusion_type(sf) == "BIGINT" and not _integral(expression.this):
                # Snowflake rounds a fraction half away from zero (1.7::NUMBER(10,0) is 2);
                # DataFusion's casts to integers truncate it, its casts to DECIMAL(p, 0) round.
                exact = expression.copy()
                exact.set("to", exp.DataType.build("DECIMAL(38, 0)"))
                inner = super().cast_sql(exact, safe_prefix)
                return f"{safe_prefix or ''}CAST({inner} AS BIGINT)"
            return super().cast_sql(expression, safe_prefix)

        # DataFusion takes IGNORE / RESPECT NULLS after a window function's call, as Snowflake
        # (Postgres, the base, has neither and drops them).
        def ignorenulls_sql(self, expression: exp.IgnoreNulls) -> str:
            return f"{self.sql(expression, 'this')} IGNORE NULLS"

        def respectnulls_sql(self, expression: exp.RespectNulls) -> str:
            return f"{self.sql(expression, 'this')} RESPECT NULLS"

        def trycast_sql(self, expression: exp.TryCast) -> str:
            # DataFusion has TRY_CAST (NULL where CAST fails); Postgres, the base, has not.
            return self.cast_sql(expression, safe_prefix="TRY_")
