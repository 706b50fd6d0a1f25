"""Server-side bind parameters: `?` and `:n` placeholders replaced by typed literals in the tree.

Values arrive as the v1 protocol's `bindings` encode them (all strings): dates as epoch
milliseconds, timestamps as epoch nanoseconds, times as nanoseconds since midnight, binary as hex.
Substitution happens on the syntax tree, never by pasting text.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

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


def literal(bind: Bind) -> exp.Expression:
    """The Snowflake literal expression for one bound value."""
    kind, value = bind.type.upper(), bind.value
    if value is None:
        return exp.Null()
    if kind in ("FIXED", "REAL"):
        return exp.Literal.number(value)
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

    return tree.transform(replace, copy=True)


def python_value(kind: str, value: str | None) -> object:
    """One bound value as a Python value (for array binds loaded straight into Arrow)."""
    if value is None:
        return None
    kind = kind.upper()
    if kind == "FIXED":
        return int(value) if value.lstrip("-").isdigit() else float(value)
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
