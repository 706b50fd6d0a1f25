"""DataFusion errors -> Snowflake errors (the one place that reads DataFusion's messages)."""

from __future__ import annotations

import re

from embucket_py import errors
from embucket_py.catalog import storage
from embucket_py.errors import (
    DivisionByZero,
    ExecutionError,
    InvalidIdentifier,
    NumericValueNotRecognized,
    SnowflakeError,
    SqlCompilationError,
    Unsupported,
)

# "No field named x. Valid fields are ...", or without the list when nothing is in scope (no FROM).
_NO_FIELD = re.compile(r"No field named (?:[^\s.]+\.)?\"?([^\"\s]+?)\"?\.?(?= Valid|\s|$)")
# A Python UDF that raised: DataFusion wraps it as `PyErr { type: <class ...>, value: ... }`.
# Quotes come escaped (\") when the error passed through a filter run inside the Parquet scan.
_UDF_ERROR = re.compile(r"PyErr \{ type: <class '([\w.]+)'>, value: \w+\(\\?(['\"])(.*?)\\?\2\)", re.S)
_UNDECODED = re.compile(r"Failed to decode value using (\w+): ([^\n]*)")
_SET_OP_WIDTH = re.compile(r"(UNION|EXCEPT|INTERSECT) queries have different number of columns")
_PARSER = re.compile(r'ParserError\("(.*?)(?: at Line: \d+, Column: \d+)?"\)')
_NOT_GROUPED = re.compile(r'column "(?:([^".]+)\.)?([^".]+)" must appear in the GROUP BY clause')
_AMBIGUOUS = re.compile(r"Ambiguous reference to unqualified field \"?([^\"\s]+)")
_UNKNOWN_FUNCTION = re.compile(r"Invalid function '([^']+)'")
# Decimal casts and arithmetic past 38 digits (a cast names the unscaled value: left out).
_CAST_OVERFLOW = re.compile(r"Cannot cast to Decimal128\((\d+), (\d+)\)\. Overflowing")
_PRECISION_OVERFLOW = re.compile(r"(-?[\d.]+) is too large to store in a Decimal128 of precision")
_INT64_OVERFLOW = re.compile(r"value of (-?\d+) is out of range Int64")
_ARITHMETIC_OVERFLOW = re.compile(r"Overflow happened on: (\S+ \S \S+)")
_CHR = re.compile(r"invalid Unicode scalar value: (-?\d+)")
# Arrow's failed text cast (often raised while the optimizer folds a constant, which names only
# the optimizer rule on the first line), and the column kind of its target type.
_UNCAST = re.compile(
    r"Cannot cast (?:string|value) '(.*?)' to value of "
    r"U?(Int|Float|Decimal|Date|Time|Timestamp|Boolean)\d*\b",
    re.S,
)
_UNCAST_KINDS = {"Int": "FIXED", "Float": "REAL", "Decimal": "FIXED", "Date": "DATE", "Time": "TIME"}
_UNCAST_KINDS |= {"Timestamp": "TIMESTAMP_NTZ", "Boolean": "BOOLEAN"}
_UNPARSED_TIMESTAMP = re.compile(r"Error parsing timestamp from '(.*?)'", re.S)
# pyarrow's failed text cast.
_UNPARSED = re.compile(r"Failed to parse string: '(.*?)' as a scalar of type", re.S)
# Operands of types DataFusion cannot bring together (its first line says only "type_coercion").
_TYPE = r"(\w+(?:\([^)]*\))?)"  # an Arrow type as DataFusion prints it: Boolean, Decimal128(10, 2)
_UNCOMPARED = re.compile(rf"Cannot infer common argument type for comparison operation {_TYPE} (\S+) {_TYPE}")
_UNCOMPUTED = re.compile(rf"Cannot coerce arithmetic expression {_TYPE} (\S+) {_TYPE} to valid types")
_UNUNITED = re.compile(rf"Previous inputs were of type {_TYPE}, but got incompatible type {_TYPE} on")
# Arrow type names (as DataFusion prints them) -> Snowflake's.
_ARROW_NAMES = [
    (re.compile(r"U?Int\d+$"), "NUMBER(38,0)"),
    (re.compile(r"Decimal(?:128|256)\((\d+), (\d+)\)$"), r"NUMBER(\1,\2)"),
    (re.compile(r"Float\d+$"), "FLOAT"),
    (re.compile(r"(?:Large)?Utf8(?:View)?$"), "VARCHAR(16777216)"),
    (re.compile(r"(?:Large)?Binary(?:View)?$"), "BINARY(8388608)"),
    (re.compile(r"Boolean$"), "BOOLEAN"),
    (re.compile(r"Date(?:32|64)$"), "DATE"),
    (re.compile(r"Time(?:32|64)\(.*$"), "TIME(9)"),
    (re.compile(r"Timestamp\(.*$"), "TIMESTAMP_NTZ(9)"),
]


_UNEVALUATED_SUBQUERIES = (
    "Physical plan does not support logical expression ScalarSubquery",
    "Physical plan does not support logical expression Exists",
    "Physical plan does not support logical expression InSubquery",
    "Correlated scalar subquery must be aggregated",
)
_UNSUPPORTED_NODE = re.compile(r"Unsupported ast node (\w+)")


def _snowflake_name(arrow_name: str) -> str:
    for pattern, name in _ARROW_NAMES:
        if pattern.match(arrow_name):
            return pattern.sub(name, arrow_name)
    return arrow_name.upper()


def _mistyped(text: str) -> SnowflakeError | None:
    """Snowflake's errors for operands and set-operation branches of types that do not meet."""
    if match := _UNCOMPARED.search(text) or _UNCOMPUTED.search(text):
        left, operator, right = match.groups()
        return errors.InvalidArgumentTypes(
            f"Invalid argument types for function '{operator}': "
            f"({_snowflake_name(left)}, {_snowflake_name(right)})"
        )
    if match := _UNUNITED.search(text):
        return SqlCompilationError(
            "inconsistent data type for result columns for set operator input branches, "
            f"expected {_snowflake_name(match[2])}, got {_snowflake_name(match[1])}"
        )
    return None


def from_storage(error: OSError) -> SnowflakeError:
    """An object store or file system failure (S3 5xx/403, a vanished file)."""
    cause = storage.redact(str(error).split("\n")[0]) or type(error).__name__
    return errors.StorageFailure(f"Failure using storage. Cause: [{cause}]")


def from_conflict(error: Exception) -> SnowflakeError:
    """Concurrent commits to the same table won every retry: nothing of this statement landed."""
    return errors.ExecutionError(
        f"The statement was not applied: concurrent statements kept changing the table ({error}). Retry it.",
        code=625,
        sqlstate="57014",
    )


def from_text_to_number(error: Exception) -> SnowflakeError:
    """pyarrow's cast of text to a number that failed on a value."""
    match = _UNPARSED.search(str(error))
    return errors.not_recognized("FIXED", match.group(1) if match else str(error).split("\n")[0])


def from_datafusion(error: Exception) -> SnowflakeError:
    text = str(error)
    message = text.split("\n")[0]
    if match := _NO_FIELD.search(text):
        name = match.group(1)
        shown = name.upper() if name == name.lower() else name
        return InvalidIdentifier(f"error line 1 at position 0\ninvalid identifier '{shown}'")
    if match := _AMBIGUOUS.search(text):
        name = match.group(1)
        shown = name.upper() if name == name.lower() else name
        return SqlCompilationError(f"error line 1 at position 0\nambiguous column name '{shown}'", code=2028)
    udf_error = _UDF_ERROR.search(text)
    if udf_error:
        module, _, name = udf_error.group(1).rpartition(".")
        raised = getattr(errors, name, None) if module == "embucket_py.errors" else None
        if isinstance(raised, type) and issubclass(raised, SnowflakeError):
            return raised(udf_error.group(3))
    if match := _UNDECODED.search(text):  # TO_BINARY / ::BINARY of text that is no hex (base64)
        return NumericValueNotRecognized(
            f"The following string is not a legal {match[1]}-encoded value ({match[2]})"
        )
    if match := _CHR.search(text):
        return errors.InvalidCharacterCode(f"Invalid character code {match.group(1)} in the CHR input")
    if "Scalar subquery returned more than one row" in text:
        return errors.SingleRowSubquery("Single-row subquery returns more than one row.")
    if "Divide by zero" in text or "DivideByZero" in text or "division by zero" in text.lower():
        return DivisionByZero("Division by zero")
    if match := _CAST_OVERFLOW.search(text):
        return errors.NumberOutOfRange(
            f"Number out of representable range: type NUMBER({match[1]},{match[2]})"
        )
    if match := _PRECISION_OVERFLOW.search(text):  # a value past its NUMBER(p, s) column
        return errors.out_of_range(match[1])
    if match := _INT64_OVERFLOW.search(text):  # an exact product where a 64-bit integer is needed
        return errors.NumberOutOfRange(f"Number out of representable range: value {match[1]}")
    if match := _ARITHMETIC_OVERFLOW.search(text):
        return errors.NumberOutOfRange(f"Number out of representable range: value {match[1]}")
    if match := _UNCAST.search(text):
        return errors.not_recognized(_UNCAST_KINDS[match.group(2)], match.group(1))
    if match := _UNPARSED_TIMESTAMP.search(text):
        return errors.not_recognized("TIMESTAMP_NTZ", match.group(1))
    if "Cannot cast string" in text or "Cannot parse" in text:
        return NumericValueNotRecognized(message)
    if match := _PARSER.search(text):  # SQL the translation let through that DataFusion cannot read
        return errors.SyntaxError_(f"syntax error: {match.group(1)}")
    if any(cause in text for cause in _UNEVALUATED_SUBQUERIES):
        # Subqueries the engine cannot decorrelate (a non-equality correlation, no aggregate to
        # make a scalar one one row, ANY / ALL outside a filter): Snowflake refuses such shapes so.
        return SqlCompilationError("Unsupported subquery type cannot be evaluated", code=2031)
    if "This feature is not implemented" in text:
        message = message.replace("This feature is not implemented: ", "")
        # DataFusion prints the whole syntax tree of a construct it lacks: its name says enough.
        if match := _UNSUPPORTED_NODE.search(message):
            return Unsupported(f"{match[1]} is not supported yet.")
        return Unsupported(message)
    if match := _SET_OP_WIDTH.search(text):
        # https://docs.snowflake.com/en/sql-reference/operators-query#general-usage-notes
        return SqlCompilationError(
            f"invalid number of result columns for set operator input branches ({match.group(1)})",
            code=1789,
        )
    if match := _NOT_GROUPED.search(text):
        name = ".".join(part.upper() if part == part.lower() else part for part in match.groups() if part)
        return SqlCompilationError(
            f"error line 1 at position 0\n'{name}' in select clause is neither an aggregate nor in the "
            "group by clause.",
            code=1104,
        )
    if match := _UNKNOWN_FUNCTION.search(text):
        name = match.group(1)
        return SqlCompilationError(
            f"Unknown function {name.upper() if name == name.lower() else name}", code=2140
        )
    if (mistyped := _mistyped(text)) is not None:
        return mistyped
    if "Aggregate functions are not allowed in the WHERE clause" in text:
        return SqlCompilationError("Invalid aggregate function in where clause", code=2035)
    if "Error during planning" in text or "Schema error" in text:
        return SqlCompilationError(message.replace("Error during planning: ", ""))
    # Any other failure of a function: its own message, without the Python traceback.
    return ExecutionError(udf_error.group(3) if udf_error else message)
