"""TO_CHAR / TO_VARCHAR of numbers with a fixed-position SQL format model ('999.99', '$9,990.00',
'S999', '999MI', 'FM...'). https://docs.snowflake.com/en/sql-reference/sql-format-models

Formatting is string building per value; Arrow has no kernel for format models.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

import pyarrow as pa
from datafusion import SessionContext, udf

# Elements this module formats; anything else in a model is refused when the SQL is translated.
MODEL = re.compile(r"^(FM)?(\$|S)?(\$)?[90,G]*([.D][90]*)?(MI|S)?$", re.IGNORECASE)


@dataclass(frozen=True)
class _Model:
    fill: bool  # FM: no padding
    leading_sign: bool  # S first
    trailing: str  # "S", "MI" or ""
    currency: bool
    integer: str  # 9, 0 and group separators
    fraction: str  # 9 and 0 after the decimal point


def is_number_model(text: str) -> bool:
    return bool(MODEL.match(text.strip())) and any(c in "90" for c in text)


def _parse(text: str) -> _Model:
    model = text.strip().upper()
    fill = model.startswith("FM")
    model = model[2:] if fill else model
    leading_sign = model.startswith("S")
    model = model[1:] if leading_sign else model
    currency = "$" in model
    model = model.replace("$", "")
    trailing = ""
    for suffix in ("MI", "S"):
        if model.endswith(suffix):
            trailing, model = suffix, model[: -len(suffix)]
            break
    point = max(model.find("."), model.find("D"))
    integer, fraction = (model[:point], model[point + 1 :]) if point >= 0 else (model, "")
    return _Model(fill, leading_sign, trailing, currency, integer.replace("G", ","), fraction)


def _format(value: Decimal, m: _Model) -> str:
    scale = len(m.fraction)
    rounded = abs(value).quantize(Decimal(1).scaleb(-scale), rounding=ROUND_HALF_UP)
    whole, _, frac = f"{rounded:f}".partition(".")
    slots = m.integer.count("9") + m.integer.count("0")
    negative = value < 0 and rounded != 0
    if len(whole.lstrip("0")) > slots:
        # Overflow: every digit position shows '#'.
        body = "".join("#" if c in "90" else c for c in m.integer)
        tail = "." + "#" * scale if m.fraction else ""
        return ("$" if m.currency else "") + body + tail
    digits = whole.lstrip("0") or ("0" if slots else "")
    forced = m.integer.find("0")
    out: list[str] = []
    remaining = list(digits)
    for i in range(len(m.integer) - 1, -1, -1):
        c = m.integer[i]
        if c == ",":
            out.append("," if remaining or (forced >= 0 and i > forced) else " ")
            continue
        if remaining:
            out.append(remaining.pop())
        else:
            out.append("0" if forced >= 0 and i >= forced else " ")
    integer = "".join(reversed(out))
    text = integer + ("." + frac.ljust(scale, "0") if m.fraction else "")
    # Sign and currency float to the first printed character.
    pad = len(text) - len(text.lstrip(" "))
    sign = "-" if negative else ("+" if m.leading_sign or m.trailing == "S" else " ")
    prefix = "$" if m.currency else ""
    if m.trailing == "MI":
        body = prefix + text.lstrip(" ")
        result = " " * pad + body + ("-" if negative else " ")
    elif m.trailing == "S":
        result = " " * pad + prefix + text.lstrip(" ") + sign
    else:
        result = " " * pad + sign + prefix + text.lstrip(" ")
    return result.strip(" ") if m.fill else result


def format_numbers(values: pa.Array, models: pa.Array) -> pa.Array:
    model = _parse(models[0].as_py()) if len(models) else None
    out: list[str | None] = []
    for v in values.to_pylist():
        if v is None or model is None:
            out.append(None)
            continue
        try:
            out.append(_format(Decimal(str(v)), model))
        except InvalidOperation:
            out.append(None)
    return pa.array(out, pa.string())


_UDFS = [udf(format_numbers, [pa.string(), pa.string()], pa.string(), "immutable", "sf_format_number")]


def register(ctx: SessionContext) -> None:
    for function in _UDFS:
        ctx.register_udf(function)
