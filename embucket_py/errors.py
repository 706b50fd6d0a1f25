"""Snowflake-style errors: the only place error codes and SQLSTATEs live.

Codes and states follow Snowflake's own answers; see
https://docs.snowflake.com/en/developer-guide/sql-api/reference#error-codes and the
protocol notes in shared/design/snowflake-rest-protocol.md section 10.
"""

from __future__ import annotations


class SnowflakeError(Exception):
    """An error a Snowflake client understands: numeric code, SQLSTATE, message."""

    code: int = 2
    sqlstate: str = "0A000"
    prefix: str = ""

    def __init__(self, message: str, *, code: int | None = None, sqlstate: str | None = None) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code
        if sqlstate is not None:
            self.sqlstate = sqlstate
        self.message = f"{self.prefix}{message}"

    @property
    def code_text(self) -> str:
        """The code as the wire wants it: a string of six digits."""
        return f"{self.code:06d}"

    def __str__(self) -> str:
        return self.message


class SqlCompilationError(SnowflakeError):
    code = 2
    sqlstate = "42601"
    prefix = "SQL compilation error:\n"


class SyntaxError_(SqlCompilationError):
    code = 1003
    sqlstate = "42000"


class InvalidIdentifier(SqlCompilationError):
    code = 904
    sqlstate = "42000"


class ObjectNotFound(SqlCompilationError):
    code = 2003
    sqlstate = "42S02"


class ObjectAlreadyExists(SqlCompilationError):
    code = 2002
    sqlstate = "42710"


class Unsupported(SqlCompilationError):
    code = 2
    sqlstate = "0A000"


class UnknownProcedure(SqlCompilationError):
    code = 2141
    sqlstate = "42601"


class InvalidArgumentTypes(SqlCompilationError):
    """A user-defined function called with arguments none of its signatures takes."""

    code = 1044
    sqlstate = "42P13"


class StatementCountMismatch(SnowflakeError):
    code = 8
    sqlstate = "0A000"


class NumericValueNotRecognized(SnowflakeError):
    code = 100038
    sqlstate = "22018"


class DateValueNotRecognized(SnowflakeError):
    code = 100040
    sqlstate = "22007"


class BooleanValueNotRecognized(SnowflakeError):
    code = 100037
    sqlstate = "22018"


class TimeValueNotRecognized(SnowflakeError):
    code = 100108
    sqlstate = "22007"


class TimestampValueNotRecognized(SnowflakeError):
    code = 100035
    sqlstate = "22007"


class InvalidJson(SnowflakeError):
    code = 100069
    sqlstate = "22P02"


class InvalidXml(SnowflakeError):
    code = 100069
    sqlstate = "22P02"


# A value that does not convert to a column kind: Snowflake's message and error by kind (any kind
# not listed is a timestamp; BINARY's has no code of its own here).
_NOT_RECOGNIZED: dict[str, tuple[str, type[SnowflakeError]]] = {
    "FIXED": ("Numeric value '{}' is not recognized", NumericValueNotRecognized),
    "REAL": ("Numeric value '{}' is not recognized", NumericValueNotRecognized),
    "BOOLEAN": ("Boolean value '{}' is not recognized", BooleanValueNotRecognized),
    "DATE": ("Date '{}' is not recognized", DateValueNotRecognized),
    "TIME": ("Time '{}' is not recognized", TimeValueNotRecognized),
    "BINARY": ("The following string is not a legal hex-encoded value: '{}'", NumericValueNotRecognized),
}


def not_recognized(kind: str, value: object) -> SnowflakeError:
    """The error for `value` that does not convert to the column kind `kind` (FIXED, DATE, ...)."""
    text, error = _NOT_RECOGNIZED.get(kind, ("Timestamp '{}' is not recognized", TimestampValueNotRecognized))
    return error(text.format(value))


class PythonInterpreterError(SnowflakeError):
    """A Python function's handler raised, or returned what its declared type cannot hold."""

    code = 100357
    sqlstate = "P0000"


class JavaScriptCompilationError(SnowflakeError):
    """A JavaScript procedure's or function's body does not compile."""

    code = 100131
    sqlstate = "P0000"


class JavaScriptExecutionError(SnowflakeError):
    """A JavaScript body threw an exception it did not catch."""

    code = 100132
    sqlstate = "P0000"


class StoredProcedureExecutionError(SnowflakeError):
    """A JavaScript procedure did not catch the error of a statement it ran."""

    code = 100183
    sqlstate = "P0000"


class DivisionByZero(SnowflakeError):
    code = 100051
    sqlstate = "22012"


class SingleRowSubquery(SnowflakeError):
    """A scalar subquery returned more than one row (a runtime error on Snowflake)."""

    code = 90150
    sqlstate = "22000"


class NumberOutOfRange(SnowflakeError):
    """A NUMBER beyond 38 digits: a product, or a quotient at its scale (SUM(x) / n of sums near
    10^32 at scale 8)."""

    code = 100046
    sqlstate = "22003"


class NumericValueOutOfRange(SnowflakeError):
    """A value with more integer digits than its NUMBER(p, s) column holds."""

    code = 100039
    sqlstate = "22003"


class NullInNotNullColumn(SnowflakeError):
    code = 100072
    sqlstate = "22000"


class StringTooLong(SnowflakeError):
    """A value longer than its VARCHAR(n) column (Snowflake never truncates it silently)."""

    code = 100074
    sqlstate = "22001"


def out_of_range(value: object) -> NumericValueOutOfRange:
    return NumericValueOutOfRange(f"Numeric value '{value}' is out of range")


def width_mismatch(expected: int, got: int) -> SqlCompilationError:
    """002020: a row of values (or a query's columns) not as many as the columns they fill."""
    return SqlCompilationError(
        f"Insert value list does not match column list expecting {expected} but got {got}", code=2020
    )


def string_too_long(value: object) -> StringTooLong:
    return StringTooLong(f"String '{value}' is too long and would be truncated")


class DuplicateRowInDml(SnowflakeError):
    """A target row several source rows join, in a session that asks for the error.
    https://docs.snowflake.com/en/sql-reference/parameters#error-on-nondeterministic-merge
    https://docs.snowflake.com/en/sql-reference/parameters#error-on-nondeterministic-update"""

    code = 100090
    sqlstate = "42P18"


class ExecutionError(SnowflakeError):
    """A failure while running a statement that has no more specific Snowflake code."""

    code = 100000
    sqlstate = "22000"


class AccessDenied(SnowflakeError):
    """The role sees the object but lacks the privilege the statement needs."""

    code = 3001
    sqlstate = "42501"
    prefix = "SQL access control error:\n"


class StorageFailure(SnowflakeError):
    """Object storage refused or failed a read or write; nothing was committed."""

    code = 91003
    sqlstate = "22000"


class TableUnreadable(StorageFailure):
    """A table whose current Iceberg metadata file is missing or not valid: only it fails."""


class InvalidCharacterCode(SnowflakeError):
    """CHR of a number that is no Unicode code point."""

    code = 100062
    sqlstate = "22021"


class UrlParseError(SnowflakeError):
    """PARSE_URL of a string that is no URL."""

    code = 100139
    sqlstate = "22000"


class QueryCanceled(SnowflakeError):
    code = 604
    sqlstate = "57014"


class ResultExpired(SnowflakeError):
    code = 612
    sqlstate = "02000"


class BindError(SnowflakeError):
    code = 2049
    sqlstate = "07001"


# Authentication and session errors (the client maps the credential ones to SQLSTATE 28000).
class AuthError(SnowflakeError):
    sqlstate = "28000"


class IncorrectCredentials(AuthError):
    code = 390100


class SessionTokenExpired(AuthError):
    """Renewable: the client asks /session/token-request with its master token."""

    code = 390112
    sqlstate = "08001"


class SessionGone(AuthError):
    code = 390111
    sqlstate = "08001"


class MasterTokenExpired(AuthError):
    code = 390114
    sqlstate = "08001"


def object_not_found(kind: str, name: str) -> ObjectNotFound:
    return ObjectNotFound(f"{kind} '{name}' does not exist or not authorized.")


def already_exists(kind: str, name: str) -> ObjectAlreadyExists:
    return ObjectAlreadyExists(f"Object '{name}' already exists.")
