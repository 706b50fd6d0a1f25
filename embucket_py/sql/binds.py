"""Server-side bind parameters: `?` and `:n` placeholders replaced by typed literals in the tree.

Values arrive as the v1 protocol's `bindings` encode them (all strings): dates as epoch
milliseconds, timestamps as epoch nanoseconds, times as nanoseconds since midnight, binary as hex.
Substitution happens on the syntax tree, never by pasting text.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal, InvalidOperation

import pyarrow as pa
from sqlglot import exp

from embucket_py.errors import BindError

_EPOCH = datetime(1970, 1, 1)


@dataclass(frozen=True)
class Bind:
    type: str  # FIXED REAL TEXT BOOLEAN DATE TIME TIMESTAMP_NTZ/LTZ/TZ BINARY ANY
    value: str | list[str | None] | None


def _ns_to_text(ns: int) -> str:
    seconds, frac = divmod(ns, 1_000_000_000)
    return f"{(_EPOCH + timedelta(seconds=seconds)).isoformat(sep=' ')}.{frac:09d}"


_INT64 = 1 << 63


def _fixed(value: str) -> exp.Expression:
    """A FIXED bind keeps its exact value: NUMBER(38, s) beyond int64 or with a fraction
    (a bare numeric literal would become a float)."""
    try:
        number = Decimal(value.strip())
    except InvalidOperation:
        raise BindError(f"Numeric value '{value}' is not recognized") from None
    if not number.is_finite():
        raise BindError(f"Numeric value '{value}' is not recognized")
    scale = max(-int(number.as_tuple().exponent), 0)
    if scale == 0 and -_INT64 <= number < _INT64:
        return exp.Literal.number(str(int(number)))
    text = format(number, "f")
    digits = len(text.replace("-", "").replace(".", "").lstrip("0")) or 1
    if digits > 38 or scale > 37:
        return exp.Literal.number(text)  # beyond NUMBER(38): as Snowflake, a float
    number_type = exp.DataType.build(f"DECIMAL(38, {scale})")
    return exp.cast(exp.Literal.string(text), number_type)


def _real(value: str) -> exp.Expression:
    """A REAL bind stays a float (a bare `2.5` is a NUMBER literal in Snowflake)."""
    number = float(value)
    # NaN and infinities have no literal; Snowflake reads them from strings.
    text = exp.Literal.number(repr(number)) if math.isfinite(number) else exp.Literal.string(value)
    return exp.cast(text, exp.DataType.build("DOUBLE"))


def literal(bind: Bind) -> exp.Expression:
    """The Snowflake literal expression for one bound value."""
    kind, value = bind.type.upper(), bind.value
    if value is None:
        return exp.Null()
    if not isinstance(value, str):
        raise BindError("Array bind values are only supported with executemany.")
    if kind == "FIXED":
        return _fixed(value)
    if kind == "REAL":
        return _real(value)
    if kind == "BOOLEAN":
        return exp.Boolean(this=value.strip().lower() in ("true", "1", "t", "yes"))
    if kind == "DATE":
        day = (_EPOCH + timedelta(milliseconds=int(value))).date().isoformat()
        return exp.cast(exp.Literal.string(day), exp.DataType.build("DATE"))
    if kind == "TIME":
        seconds, frac = divmod(int(value), 1_000_000_000)
        text = f"{(_EPOCH + timedelta(seconds=seconds)).time().isoformat()}.{frac:09d}"
        return exp.cast(exp.Literal.string(text), exp.DataType.build("TIME"))
    if kind in ("TIMESTAMP_NTZ", "TIMESTAMP_LTZ", "TIMESTAMP_TZ"):
        text = _ns_to_text(int(value))
        if kind != "TIMESTAMP_NTZ":
            text += "+00:00"
        return exp.cast(exp.Literal.string(text), exp.DataType.build(kind, dialect="snowflake"))
    if kind == "BINARY":
        return exp.HexString(this=value)
    return exp.Literal.string(value)


def placeholder_count(tree: exp.Expression) -> int:
    return sum(1 for _ in tree.find_all(exp.Placeholder))


def substitute(tree: exp.Expression, binds: list[Bind]) -> exp.Expression:
    """Replaces `?` (in order) and `:n` (1-based) placeholders with literals.

    Raises:
        BindError: a placeholder has no bound value.
    """
    position = 0

    def replace(node: exp.Expression) -> exp.Expression:
        nonlocal position
        if not isinstance(node, exp.Placeholder):
            return node
        if node.this:
            index = int(node.this) - 1
        else:
            index = position
            position += 1
        if not 0 <= index < len(binds):
            raise BindError(f"Bind variable {node.this or '?'} not set.")
        return literal(binds[index])

    return named_identifiers(tree.transform(replace, copy=True))


def named_identifiers(tree: exp.Expression) -> exp.Expression:
    """`IDENTIFIER(?)` with its name bound (write_pandas does this), or `IDENTIFIER('name')`, is
    that name, parsed: a table in FROM, a column anywhere else."""

    def replace(node: exp.Expression) -> exp.Expression:
        if isinstance(node, exp.DynamicIdentifier) and not isinstance(node.parent, exp.Table):
            value = node.this
            if isinstance(value, exp.Literal) and value.is_string:
                column = exp.to_column(value.name, dialect="snowflake")
                for part in column.walk():  # positions in the name's own text, not the statement's
                    part.meta.clear()
                return column
        if isinstance(node, exp.Table) and isinstance(node.this, exp.DynamicIdentifier):
            value = node.this.this
            if isinstance(value, exp.Literal) and value.is_string:
                named = exp.to_table(value.name, dialect="snowflake")
                for key, arg in node.args.items():
                    if key not in ("this", "db", "catalog") and arg is not None:
                        named.set(key, arg)
                return named
        return node

    return tree.transform(replace, copy=False)


def without_placeholders(tree: exp.Expression) -> exp.Expression:
    """Every placeholder replaced by NULL (describeOnly requests bind nothing)."""
    return tree.transform(lambda n: exp.Null() if isinstance(n, exp.Placeholder) else n, copy=True)


def python_value(kind: str, value: str | None) -> object:
    """One bound value as a Python value (for array binds loaded straight into Arrow)."""
    if value is None:
        return None
    kind = kind.upper()
    if kind == "FIXED":
        return int(value) if value.strip().lstrip("-").isdigit() else Decimal(value)
    if kind == "REAL":
        return float(value)
    if kind == "BOOLEAN":
        return value.strip().lower() in ("true", "1", "t", "yes")
    if kind == "DATE":
        return (_EPOCH + timedelta(milliseconds=int(value))).date()
    if kind == "TIME":
        return (_EPOCH + timedelta(microseconds=int(value) // 1000)).time()
    if kind.startswith("TIMESTAMP"):
        return _EPOCH + timedelta(microseconds=int(value) // 1000)
    if kind == "BINARY":
        return bytes.fromhex(value)
    return value


def array_column(bind: Bind) -> pa.Array:
    """An array bind (executemany) as one Arrow column."""
    raw = bind.value if isinstance(bind.value, list) else [bind.value]
    values = [python_value(bind.type, v) for v in raw]
    if bind.type.upper() == "FIXED" and any(
        isinstance(v, Decimal) or (isinstance(v, int) and not -_INT64 <= v < _INT64) for v in values
    ):
        # A fraction or a value beyond int64 anywhere: the whole column is exact decimal.
        values = [None if v is None else Decimal(v) for v in values]
    return pa.array(values)


# How the connector encodes each type (§11.2), for values that arrive typed as TEXT.
_ENCODED = {
    "DATE": re.compile(r"-?\d+"),
    "TIME": re.compile(r"\d+"),
    "TIMESTAMP_NTZ": re.compile(r"-?\d+"),
    "TIMESTAMP_LTZ": re.compile(r"-?\d+"),
    "TIMESTAMP_TZ": re.compile(r"-?\d+"),
    "BINARY": re.compile(r"(?:[0-9a-fA-F]{2})*"),
}


def retyped(bind: Bind, target: str) -> Bind:
    """An array bind typed TEXT, aimed at a `target` column of another type, read in the
    connector's encoding for that type.

    The 4.x connector types a list by its element types and falls back to TEXT when they differ,
    so `[date, None]` arrives as TEXT holding epoch milliseconds and a null.
    """
    pattern = _ENCODED.get(target.upper())
    if pattern is None or bind.type.upper() not in ("TEXT", "ANY") or not isinstance(bind.value, list):
        return bind
    if not all(v is None or pattern.fullmatch(v) for v in bind.value):
        return bind  # e.g. ISO date strings: the column cast reads those
    kind = "TIMESTAMP_NTZ" if target.upper().startswith("TIMESTAMP") else target.upper()
    return Bind(kind, bind.value)
