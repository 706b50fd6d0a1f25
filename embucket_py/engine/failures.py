"""DataFusion errors -> Snowflake errors (the one place that reads DataFusion's messages)."""

from __future__ import annotations

import re

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


def from_datafusion(error: Exception) -> SnowflakeError:
    text = str(error)
    message = text.split("\n")[0]
    if match := _NO_FIELD.search(text):
        name = match.group(1)
        shown = name.upper() if name == name.lower() else name
        return InvalidIdentifier(f"error line 1 at position 0\ninvalid identifier '{shown}'")
    if "Divide by zero" in text or "division by zero" in text.lower():
        return DivisionByZero("Division by zero")
    if "Cannot cast string" in text or "Cannot parse" in text:
        return NumericValueNotRecognized(message)
    if "This feature is not implemented" in text:
        return Unsupported(message.replace("This feature is not implemented: ", ""))
    if "Error during planning" in text or "Schema error" in text:
        return SqlCompilationError(message.replace("Error during planning: ", ""))
    return ExecutionError(message)
