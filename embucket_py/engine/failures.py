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

_NO_FIELD = re.compile(r"No field named (?:[^\s.]+\.)?\"?([^\"\s]+?)\"?\.? Valid")
# A Python UDF that raised one of our errors: DataFusion wraps it as `PyErr { type: <class ...> }`.
_UDF_ERROR = re.compile(r"PyErr \{ type: <class 'embucket_py\.errors\.(\w+)'>, value: \w+\((['\"])(.*?)\2\)")
_SET_OP_WIDTH = re.compile(r"(UNION|EXCEPT|INTERSECT) queries have different number of columns")
_PARSER = re.compile(r'ParserError\("(.*?)(?: at Line: \d+, Column: \d+)?"\)')
_NOT_GROUPED = re.compile(r'column "(?:([^".]+)\.)?([^".]+)" must appear in the GROUP BY clause')
_CHR = re.compile(r"invalid Unicode scalar value: (-?\d+)")


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


def from_datafusion(error: Exception) -> SnowflakeError:
    text = str(error)
    message = text.split("\n")[0]
    if match := _NO_FIELD.search(text):
        name = match.group(1)
        shown = name.upper() if name == name.lower() else name
        return InvalidIdentifier(f"error line 1 at position 0\ninvalid identifier '{shown}'")
    if (match := _UDF_ERROR.search(text)) and isinstance(getattr(errors, match.group(1), None), type):
        raised = getattr(errors, match.group(1))
        if issubclass(raised, SnowflakeError):
            return raised(match.group(3))
    if match := _CHR.search(text):
        return errors.InvalidCharacterCode(f"Invalid character code {match.group(1)} in the CHR input")
    if "Divide by zero" in text or "division by zero" in text.lower():
        return DivisionByZero("Division by zero")
    if "Cannot cast string" in text or "Cannot parse" in text:
        return NumericValueNotRecognized(message)
    if match := _PARSER.search(text):  # SQL the translation let through that DataFusion cannot read
        return errors.SyntaxError_(f"syntax error: {match.group(1)}")
    if "This feature is not implemented" in text:
        return Unsupported(message.replace("This feature is not implemented: ", ""))
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
    if "Aggregate functions are not allowed in the WHERE clause" in text:
        return SqlCompilationError("Invalid aggregate function in where clause", code=2035)
    if "Error during planning" in text or "Schema error" in text:
        return SqlCompilationError(message.replace("Error during planning: ", ""))
    return ExecutionError(message)
