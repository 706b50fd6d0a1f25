"""User-defined functions in Python (CREATE FUNCTION ... LANGUAGE PYTHON HANDLER = 'name' AS $$...$$):
the body is run once as a module, and its handler is called once per row by a DataFusion UDF.

A call becomes `CAST(sf_py_<digest>(arrow_cast(arg, <type>), ...) AS <returns>)`: the digest
names one definition (a replaced function gets a new name, so a pooled context never runs an old
body), each argument arrives as the Arrow type of its declared Snowflake type, and values cross
into Python as Snowflake documents its type mapping (NUMBER(p, 0) int, NUMBER(p, s) Decimal,
VARIANT / OBJECT / ARRAY the parsed JSON value, ...).

Their code runs in the server's process with the server's rights, so the server runs them only
when started with --python-functions (EMBUCKET_PYTHON_FUNCTIONS=true). Functions in JavaScript
take the same path, their batches handed to a sandboxed QuickJS body (engine/javascript.py).
https://docs.snowflake.com/en/developer-guide/udf/python/udf-python-introduction
https://docs.snowflake.com/en/developer-guide/udf-stored-procedure-data-type-mapping
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
import threading
import types
from collections.abc import Callable
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

import pyarrow as pa
from datafusion import SessionContext, udf
from sqlglot import exp

from embucket_py.catalog.routines import Routine
from embucket_py.engine import javascript
from embucket_py.engine.functions.variant import MISSING, parsed
from embucket_py.engine.functions.variant_values import dumps
from embucket_py.errors import PythonInterpreterError, SqlCompilationError, Unsupported
from embucket_py.types import SEMI_STRUCTURED, SfType, parse_sql_type, to_arrow

PREFIX = "sf_py_"
_NAMES = re.compile(PREFIX + r"[0-9a-f]{24}")


class _Switch:
    """Whether this server runs Python functions (its --python-functions setting)."""

    enabled = False


SWITCH = _Switch()


def require_enabled() -> None:
    if not SWITCH.enabled:
        raise Unsupported(
            "Functions in PYTHON are turned off on this server: their code would run in the "
            "server's process. Start it with --python-functions true to run them."
        )


def handler_of(body: str, handler: str | None, name: str) -> Callable[..., Any]:
    """Runs the body as a module and returns its handler (`fn`, or `Class.method`).

    Raises:
        SqlCompilationError: no HANDLER, a body that does not run, or no such callable in it.
    """
    if not handler:
        raise SqlCompilationError(f"Function {name} in PYTHON needs a HANDLER.")
    sys.modules.setdefault("_snowflake", _snowflake_module())
    namespace: dict[str, Any] = {"__name__": f"udf_{name.lower()}"}
    try:
        exec(compile(body, f"<function {name}>", "exec"), namespace)
    except Exception as e:  # a syntax error, a failing import: Snowflake refuses the CREATE
        raise SqlCompilationError(
            f"Python Interpreter Error:\n{type(e).__name__}: {e} in function {name}"
        ) from None
    target: Any = namespace
    for part in handler.split("."):
        target = target.get(part) if isinstance(target, dict) else getattr(target, part, None)
    if not callable(target):
        raise SqlCompilationError(f"Handler '{handler}' is not a function defined in the body of {name}.")
    return target  # type: ignore[no-any-return]


def _snowflake_module() -> types.ModuleType:
    """`from _snowflake import vectorized`, as vectorized handlers written for Snowflake import it:
    `@vectorized(input=pandas.DataFrame)` marks a handler called once per batch with a DataFrame
    whose columns 0, 1, ... are the arguments."""
    module = types.ModuleType("_snowflake")

    def vectorized(input: type, max_batch_size: int | None = None) -> Callable[[Any], Any]:
        def mark(handler: Any) -> Any:
            handler._sf_vectorized_input = input
            return handler

        return mark

    module.vectorized = vectorized  # type: ignore[attr-defined]
    return module


class _Registry:
    """The UDFs made so far, by name (one per function definition), and each context's share."""

    def __init__(self) -> None:
        self.udfs: dict[str, Any] = {}
        self.lock = threading.Lock()

    def name_for(self, routine: Routine) -> str:
        key = [routine.database, routine.schema, routine.name, routine.arguments, routine.returns]
        key += [routine.language, routine.body, routine.handler, routine.strict]
        digest = hashlib.sha256(json.dumps(key).encode()).hexdigest()[:24]
        name = PREFIX + digest
        with self.lock:
            if name not in self.udfs:
                self.udfs[name] = _udf(name, routine)
        return name

    def attach(self, ctx: SessionContext, sql: str) -> None:
        """Registers on `ctx` the functions `sql` calls that it does not have yet."""
        if PREFIX not in sql:
            return
        attached: set[str] = getattr(ctx, "python_functions", set())
        for name in set(_NAMES.findall(sql)) - attached:
            ctx.register_udf(self.udfs[name])
            attached.add(name)
        ctx.python_functions = attached  # type: ignore[attr-defined]


REGISTRY = _Registry()


def call(routine: Routine, values: list[exp.Expression]) -> exp.Expression:
    """What replaces a call of `routine` (its arguments already cast to their declared types)."""
    if routine.language == "PYTHON":
        require_enabled()
    if routine.returns_table:
        raise Unsupported(f"Tabular functions in {routine.language} are not supported.")
    name = REGISTRY.name_for(routine)
    args = [
        exp.Anonymous(this="arrow_cast", expressions=[v, exp.Literal.string(_arrow_name(_arrow_type(t)))])
        for v, (_, t, _) in zip(values, routine.arguments, strict=True)
    ]
    result: exp.Expression = exp.Anonymous(this=name, expressions=args or [exp.Literal.number(0)])
    returns = parse_sql_type(routine.returns)
    if returns.kind in SEMI_STRUCTURED:  # JSON text, tagged as a VARIANT by PARSE_JSON
        result = exp.ParseJSON(this=result)
    return exp.cast(result, exp.DataType.build(routine.returns, dialect="snowflake"))


def _arrow_type(type_text: str) -> pa.DataType:
    return to_arrow(parse_sql_type(type_text))


def _arrow_name(t: pa.DataType) -> str:
    """The type as DataFusion's arrow_cast spells it."""
    if pa.types.is_decimal(t):
        return f"Decimal128({t.precision}, {t.scale})"
    if pa.types.is_timestamp(t):
        return 'Timestamp(Microsecond, Some("UTC"))' if t.tz else "Timestamp(Microsecond, None)"
    names = {
        pa.int64(): "Int64",
        pa.float64(): "Float64",
        pa.bool_(): "Boolean",
        pa.date32(): "Date32",
        pa.time64("us"): "Time64(Microsecond)",
        pa.binary(): "Binary",
    }
    return names.get(t, "Utf8")


def _udf(name: str, routine: Routine) -> Any:
    kinds = [parse_sql_type(t) for _, t, _ in routine.arguments]
    returns = parse_sql_type(routine.returns)
    inputs = [to_arrow(k) for k in kinds] or [pa.int64()]  # no arguments: a constant gives the row count
    output = pa.string() if returns.kind in SEMI_STRUCTURED else to_arrow(returns)
    if routine.language == "JAVASCRIPT":
        body = javascript.FunctionBody(routine)

        def run_javascript(*arrays: pa.Array) -> pa.Array:
            # Semi-structured arguments stay JSON text here: the body parses them.
            columns = [a.to_pylist() for a in arrays[: len(kinds)]]
            rows = list(zip(*columns, strict=True)) if columns else [()] * len(arrays[0])
            out = [javascript.returned_value(o, returns) for o in body(kinds, rows)]
            return _arrow([_converted(v, returns, routine) for v in out], output, routine, returns)

        return udf(run_javascript, inputs, output, "volatile", name)
    handler = handler_of(routine.body, routine.handler, routine.name)

    vectorized = getattr(handler, "_sf_vectorized_input", None) is not None

    def failed(e: Exception) -> PythonInterpreterError:
        return PythonInterpreterError(
            f"Python Interpreter Error: {type(e).__name__}: {e} "
            f"in function {routine.name} with handler {routine.handler}"
        )

    def run(*arrays: pa.Array) -> pa.Array:
        if vectorized:
            import pandas as pd  # the body imported it already to name its input type

            frame = pd.DataFrame(
                {
                    i: _values(a, k) if k.kind in SEMI_STRUCTURED else a.to_pandas()
                    for i, (a, k) in enumerate(zip(arrays, kinds, strict=False))
                },
                index=range(len(arrays[0])),
            )
            try:
                values = list(handler(frame))
            except Exception as e:
                raise failed(e) from None
            out = [_converted(None if _missing(v) else v, returns, routine) for v in values]
            return _arrow(out, output, routine, returns)
        columns = [_values(a, k) for a, k in zip(arrays, kinds, strict=False)]
        out = []
        for row in zip(*columns, strict=True) if columns else [()] * len(arrays[0]):
            if routine.strict and any(v is None for v in row):
                out.append(None)
                continue
            try:
                value = handler(*row)
            except Exception as e:
                raise failed(e) from None
            out.append(_converted(value, returns, routine))
        return _arrow(out, output, routine, returns)

    return udf(run, inputs, output, "volatile", name)


def _missing(value: Any) -> bool:
    """None, or pandas' NaN / NA / NaT for a missing value."""
    return value is None or (not isinstance(value, list | dict | str) and value != value)


def _arrow(out: list[Any], output: pa.DataType, routine: Routine, returns: SfType) -> pa.Array:
    try:
        return pa.array(out, output)
    except (pa.ArrowException, TypeError, ValueError) as e:
        raise _bad_result(routine, returns, str(e)) from None


def _values(array: pa.Array, kind: SfType) -> list[Any]:
    if kind.kind in SEMI_STRUCTURED:
        return [None if v is MISSING else v for v in parsed(array)]
    return array.to_pylist()  # type: ignore[no-any-return]


def _converted(value: Any, returns: SfType, routine: Routine) -> Any:
    """A handler's result as its function's declared type holds it."""
    if value is None:
        return None
    try:
        if returns.kind in SEMI_STRUCTURED:
            return dumps(value)
        if returns.kind == "FIXED":
            number = Decimal(str(value)) if not isinstance(value, Decimal | int) else Decimal(value)
            exact = number.quantize(Decimal(1).scaleb(-(returns.scale or 0)), ROUND_HALF_UP)
            return int(exact) if pa.types.is_integer(to_arrow(returns)) else exact
        if returns.kind == "REAL":
            return float(value)
        if returns.kind == "TEXT":
            return value if isinstance(value, str) else str(value)
        return value
    except (ArithmeticError, TypeError, ValueError):
        raise _bad_result(routine, returns, f"{type(value).__name__} value {value!r}") from None


def _bad_result(routine: Routine, returns: SfType, what: str) -> PythonInterpreterError:
    return PythonInterpreterError(
        f"Python Interpreter Error: function {routine.name} returned what {returns.sql} cannot hold: {what}"
    )
